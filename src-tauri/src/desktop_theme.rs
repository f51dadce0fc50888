//! The desktop's light or dark style, for the app's windows.
//!
//! GNOME (42 and later), KDE and others publish the person's choice as the
//! desktop portal's `org.freedesktop.appearance` `color-scheme`. GTK 3 does
//! not read it, so the app does: GTK's `gtk-application-prefer-dark-theme`
//! follows it, and WebKit's `prefers-color-scheme` (the page's "System"
//! theme) follows GTK. The portal is asked once, as the app starts and in
//! parallel with opening the store, and its `SettingChanged` signal keeps
//! the windows current; no preference leaves GTK's own setting.
//!
//! This replaces the windowing library's follower (Tauri's `dbus` feature),
//! which asked the portal on a new connection, synchronously, each time a
//! window was made, and kept a thread waking every five seconds for the
//! app's whole life, closed to the tray too.

use std::time::Duration;
use tauri::{AppHandle, Runtime};
use tokio::sync::watch;

/// How long the first window waits for the portal's answer. A running
/// portal answers in milliseconds; one still starting (D-Bus activation at
/// login) does not hold the window: its answer is applied when it comes.
const FIRST_ANSWER: Duration = Duration::from_millis(250);

const NAMESPACE: &str = "org.freedesktop.appearance";
const KEY: &str = "color-scheme";

/// The person's choice, as the portal tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// No preference, no portal, or a value this app does not know.
    Default,
    Dark,
    Light,
}

#[zbus::proxy(
    interface = "org.freedesktop.portal.Settings",
    default_service = "org.freedesktop.portal.Desktop",
    default_path = "/org/freedesktop/portal/desktop",
    gen_blocking = false
)]
trait PortalSettings {
    /// The value, wrapped in one variant more than the signature says
    /// (the portal's `ReadOne` does not, but older portals lack it).
    fn read(&self, namespace: &str, key: &str) -> zbus::Result<zbus::zvariant::OwnedValue>;

    #[zbus(signal)]
    fn setting_changed(
        &self,
        namespace: &str,
        key: &str,
        value: zbus::zvariant::Value<'_>,
    ) -> zbus::Result<()>;
}

/// The portal's answers as they come: `None` until the first.
#[derive(Debug)]
pub(crate) struct DesktopTheme(watch::Receiver<Option<Scheme>>);

impl DesktopTheme {
    /// Asks the portal on the session bus, then listens for changes, on the
    /// app's runtime. Returns at once.
    pub(crate) fn ask() -> Self {
        let (sender, receiver) = watch::channel(None);
        tauri::async_runtime::spawn(async move {
            if let Err(error) = listen(&sender).await {
                tracing::debug!(%error, "no session bus: the windows keep GTK's style");
            }
            // Nothing more will come: whoever waits for a first answer stops.
            sender.send_if_modified(|scheme| {
                let unanswered = scheme.is_none();
                if unanswered {
                    *scheme = Some(Scheme::Default);
                }
                unanswered
            });
        });
        Self(receiver)
    }

    /// Applies the first answer and every later one. On the main thread,
    /// before the first window; `window_now` (a window is made at start)
    /// waits for the first answer, at most [`FIRST_ANSWER`].
    #[cfg(target_os = "linux")]
    pub(crate) fn follow<R: Runtime>(self, app: &AppHandle<R>, window_now: bool) {
        use gtk::prelude::GtkSettingsExt;
        let Self(mut answers) = self;
        let own = gtk::Settings::default()
            .is_some_and(|settings| settings.is_gtk_application_prefer_dark_theme());
        if window_now {
            let first = tauri::async_runtime::block_on(async {
                tokio::time::timeout(FIRST_ANSWER, answers.wait_for(Option::is_some))
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .and_then(|scheme| *scheme)
            });
            if let Some(scheme) = first {
                apply(scheme, own);
            }
        }
        let app = app.clone();
        tauri::async_runtime::spawn(async move {
            while answers.changed().await.is_ok() {
                let Some(scheme) = *answers.borrow_and_update() else {
                    continue;
                };
                if let Err(error) = app.run_on_main_thread(move || apply(scheme, own)) {
                    tracing::warn!(%error, "could not apply the desktop's style");
                }
            }
        });
    }

    /// Elsewhere the system's own style reaches the page.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn follow<R: Runtime>(self, _app: &AppHandle<R>, _window_now: bool) {}
}

/// Subscribes to changes, reads the current value, then tells each change,
/// until the bus goes away. Fails only without a session bus.
async fn listen(sender: &watch::Sender<Option<Scheme>>) -> zbus::Result<()> {
    use futures::StreamExt;
    let connection = crate::session_bus::connection().await?;
    let portal = PortalSettingsProxy::builder(connection)
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await?;
    let mut changes = portal.receive_setting_changed().await?;
    // No portal yet, or one without the setting: GTK's own style until a
    // portal tells a change.
    let scheme = match portal.read(NAMESPACE, KEY).await {
        Ok(value) => scheme_of(&value),
        Err(error) => {
            tracing::debug!(%error, "the desktop portal has no colour scheme");
            Scheme::Default
        }
    };
    tracing::debug!(?scheme, "desktop colour scheme");
    sender.send_replace(Some(scheme));
    while let Some(change) = changes.next().await {
        let Ok(args) = change.args() else {
            continue;
        };
        if *args.namespace() == NAMESPACE && *args.key() == KEY {
            let scheme = scheme_of(args.value());
            tracing::debug!(?scheme, "desktop colour scheme changed");
            sender.send_replace(Some(scheme));
        }
    }
    Ok(())
}

/// The scheme in a portal value: `1` prefers dark, `2` light, anything
/// else (`0`, no preference; a wrong type) is the default. Variants in
/// variants are unwrapped.
fn scheme_of(value: &zbus::zvariant::Value<'_>) -> Scheme {
    use zbus::zvariant::Value;
    match value {
        Value::Value(inner) => scheme_of(inner),
        Value::U32(1) => Scheme::Dark,
        Value::U32(2) => Scheme::Light,
        _ => Scheme::Default,
    }
}

/// Sets GTK's dark preference for `scheme`; the default puts back GTK's
/// own (`own`, read before the app changed it).
#[cfg(target_os = "linux")]
fn apply(scheme: Scheme, own: bool) {
    use gtk::prelude::GtkSettingsExt;
    let Some(settings) = gtk::Settings::default() else {
        return;
    };
    let dark = match scheme {
        Scheme::Dark => true,
        Scheme::Light => false,
        Scheme::Default => own,
    };
    if settings.is_gtk_application_prefer_dark_theme() != dark {
        settings.set_gtk_application_prefer_dark_theme(dark);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::zvariant::Value;

    #[test]
    fn the_portal_values_map_to_schemes() {
        assert_eq!(scheme_of(&Value::U32(1)), Scheme::Dark);
        assert_eq!(scheme_of(&Value::U32(2)), Scheme::Light);
        assert_eq!(scheme_of(&Value::U32(0)), Scheme::Default);
        assert_eq!(scheme_of(&Value::U32(7)), Scheme::Default);
        assert_eq!(scheme_of(&Value::from("dark")), Scheme::Default);
    }

    #[test]
    fn read_answers_wrapped_in_variants_are_unwrapped() {
        let twice = Value::Value(Box::new(Value::Value(Box::new(Value::U32(1)))));
        assert_eq!(scheme_of(&twice), Scheme::Dark);
        assert_eq!(
            scheme_of(&Value::Value(Box::new(Value::U32(2)))),
            Scheme::Light
        );
    }
}
