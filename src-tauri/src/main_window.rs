//! The life of the app's webview windows. The main window is made from its
//! configuration when it is first wanted (never, for a start at login), and
//! a window closed to the tray — the main one, or quick-ask — is destroyed
//! after a short grace: its web process exits and gives its memory back,
//! while the host, runs, schedules and MCP connections never notice.
//! Opening it again (the tray, a second launch, a notification, quick-ask's
//! "Open in Pizza Bot") makes it anew, with where the person was (their
//! screen and thread) in its page's address: the page mounts there, and its
//! first paint is the place they left.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use pizza_host::Host;
use pizza_protocol::{WindowPlace, WindowScreen};
use tauri::{AppHandle, Manager, Runtime, WebviewWindow, WebviewWindowBuilder};

use crate::first_paint::with_param;

/// The main window's label (its capability in `capabilities/main.json`).
pub(crate) const LABEL: &str = pizza_protocol::WindowScope::Main.label();

/// How long a hidden window is kept before its webview is destroyed: long
/// enough for the page to finish what it was saving (a draft waits 400 ms
/// for a pause in typing) and for a close that is undone at once to cost
/// nothing. `PIZZA_WINDOW_RELEASE_MS` overrides it.
const RELEASE_AFTER: Duration = Duration::from_secs(3);

/// Per window label, a number bumped by every show and hide: a release
/// scheduled by an older hide finds it changed and gives up.
#[derive(Debug, Default)]
pub(crate) struct Releases {
    generations: Mutex<HashMap<String, u64>>,
}

impl Releases {
    fn bump(&self, label: &str) -> u64 {
        let mut generations = self
            .generations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let generation = generations.entry(label.to_owned()).or_default();
        *generation += 1;
        *generation
    }

    fn is_current(&self, label: &str, generation: u64) -> bool {
        self.generations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(label)
            .is_some_and(|current| *current == generation)
    }
}

pub(crate) fn release_after() -> Duration {
    std::env::var("PIZZA_WINDOW_RELEASE_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(RELEASE_AFTER, Duration::from_millis)
}

/// Cancels a pending release of `label`: it is being shown again.
pub(crate) fn keep<R: Runtime>(app: &AppHandle<R>, label: &str) {
    if let Some(releases) = app.try_state::<Releases>() {
        releases.bump(label);
    }
}

/// Destroys the window `label` once it has stayed hidden for the grace
/// period.
pub(crate) fn release_later<R: Runtime>(app: &AppHandle<R>, label: &'static str) {
    let Some(releases) = app.try_state::<Releases>() else {
        return;
    };
    let generation = releases.bump(label);
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(release_after()).await;
        let Some(releases) = app.try_state::<Releases>() else {
            return;
        };
        if !releases.is_current(label, generation) {
            return;
        }
        let Some(window) = app.get_webview_window(label) else {
            return;
        };
        if window.is_visible().unwrap_or(true) {
            return;
        }
        match window.destroy() {
            Ok(()) => tracing::info!(
                label,
                "hidden window released: its webview is made again when it is opened"
            ),
            Err(error) => tracing::warn!(%error, label, "could not release a hidden window"),
        }
    });
}

/// The main window, made from its configuration if it does not exist.
pub(crate) fn get_or_build<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<WebviewWindow<R>> {
    if let Some(window) = app.get_webview_window(LABEL) {
        return Ok(window);
    }
    let started = Instant::now();
    crate::ui_assets::prepare(app);
    let mut config = app
        .config()
        .app
        .windows
        .iter()
        .find(|window| window.label == LABEL)
        .cloned()
        .ok_or(tauri::Error::WindowNotFound)?;
    if let tauri::WebviewUrl::App(path) = &config.url {
        let page = crate::first_paint::page(app, &path.to_string_lossy());
        let place = app.try_state::<Host>().and_then(|host| host.window_place());
        let page = with_place(&page, place.as_ref());
        config.url = tauri::WebviewUrl::App(page.into());
    }
    let mut builder = WebviewWindowBuilder::from_config(app, &config)?
        .background_color(crate::first_paint::background(app));
    builder = crate::web_extension::load_in(app, builder);
    if let Some(script) = app
        .try_state::<Host>()
        .and_then(|host| host.window_snapshot())
        .and_then(|html| snapshot_script(&html))
    {
        builder = builder.initialization_script(script);
    }
    let window = builder
        // A page never opens windows of its own; links go to the browser.
        .on_new_window(|url, _features| {
            crate::links::open_instead(&url);
            tauri::webview::NewWindowResponse::Deny
        })
        .build()?;
    crate::ui_assets::hand_module_to(app, &window);
    tracing::info!(ms = started.elapsed().as_millis(), "main window made");
    Ok(window)
}

/// `page` with where the main window was, which `ui/src/place.rs` reads:
/// the inbox, with no thread open, needs nothing.
fn with_place(page: &str, place: Option<&WindowPlace>) -> String {
    let Some(place) = place else {
        return page.to_owned();
    };
    let mut page = page.to_owned();
    if place.screen != WindowScreen::Inbox {
        page = with_param(&page, "screen", place.screen.as_str());
    }
    if let Some(thread_id) = &place.thread_id {
        page = with_param(&page, "thread", thread_id);
    }
    page
}

/// The script that hands the last window's snapshot to the page
/// (`ui/snapshot.js` shows it while the page starts).
fn snapshot_script(html: &str) -> Option<String> {
    let html = serde_json::to_string(html).ok()?;
    Some(format!("window.__pizzaSnapshot = {html};"))
}

/// Shows, restores and focuses the main window, making it if needed.
pub(crate) fn show<R: Runtime>(app: &AppHandle<R>) {
    keep(app, LABEL);
    let window = match get_or_build(app) {
        Ok(window) => window,
        Err(error) => {
            tracing::error!(%error, "could not open the main window");
            return;
        }
    };
    // Each step can fail on exotic window managers; the rest still helps.
    let _ = window.show();
    let _ = window.unminimize();
    let _ = window.set_focus();
    if let Some(host) = app.try_state::<Host>() {
        host.set_window_shown(true);
    }
}

/// Hides the main window (closed to the tray) and releases it after the
/// grace period; nothing is viewed while it is hidden, so finished work
/// lands in Unread.
pub(crate) fn hide<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(LABEL) {
        let _ = window.hide();
    }
    if let Some(host) = app.try_state::<Host>() {
        host.set_window_shown(false);
        host.set_window_focused(false);
    }
    release_later(app, LABEL);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_show_after_a_hide_cancels_its_release() {
        let releases = Releases::default();
        let hidden = releases.bump(LABEL);
        assert!(releases.is_current(LABEL, hidden));
        releases.bump(LABEL);
        assert!(!releases.is_current(LABEL, hidden));
        assert!(!releases.is_current("quick-ask", hidden));
    }

    #[test]
    fn the_snapshot_reaches_the_page_as_one_string() {
        let html = "<div class=\"shell\">it's </script> \u{2028}</div>";
        let script = snapshot_script(html).unwrap();
        let literal = script
            .strip_prefix("window.__pizzaSnapshot = ")
            .and_then(|rest| rest.strip_suffix(';'))
            .unwrap();
        assert_eq!(serde_json::from_str::<String>(literal).unwrap(), html);
    }

    #[test]
    fn a_window_made_again_has_its_place_in_its_address() {
        let page = "index.html?theme=dark";
        assert_eq!(with_place(page, None), page);
        let inbox = WindowPlace::default();
        assert_eq!(with_place(page, Some(&inbox)), page);
        let settings = WindowPlace {
            screen: WindowScreen::Settings,
            thread_id: None,
        };
        assert_eq!(
            with_place(page, Some(&settings)),
            "index.html?theme=dark&screen=settings"
        );
        let thread = WindowPlace {
            screen: WindowScreen::Inbox,
            thread_id: Some("t 1&x".into()),
        };
        assert_eq!(
            with_place(page, Some(&thread)),
            "index.html?theme=dark&thread=t+1%26x"
        );
    }
}
