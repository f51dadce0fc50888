//! What a window shows before its page has painted.
//!
//! A window is mapped ~150 ms before its web process has started and
//! ~400 ms before the page's code has read the settings. Until then GTK drew
//! its own light background, then WebKit its default white, and the page's
//! first layout used the system's style: with the dark theme set, every
//! start and every reopen from the tray flashed light for ~0.4 s (pixels of
//! the release app sampled as it started). Now each window and its webview
//! are made in the theme's background, and the page gets the theme in its
//! address (`?theme=`), which `ui/first_paint.js` applies before the first
//! paint, as it does the desktop's font.

use pizza_host::Host;
use pizza_protocol::Theme;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tauri::window::Color;
use tauri::{AppHandle, Manager, Runtime, Url};

/// The query parameter the page reads its theme from.
const PARAM: &str = "theme";

/// The page's background (`--bg` in `ui/styles.css`) in each style.
const LIGHT_BACKGROUND: Color = Color(0xff, 0xff, 0xff, 0xff);
const DARK_BACKGROUND: Color = Color(0x1b, 0x1b, 0x1d, 0xff);

/// `page` (a path of the app's bundle, maybe with a query) with the
/// desktop's font and the theme in its address.
pub(crate) fn page<R: Runtime>(app: &AppHandle<R>, page: &str) -> String {
    let page = crate::desktop_font::page(app, page);
    with_param(&page, PARAM, theme(app).as_str())
}

/// The background to make a window in.
pub(crate) fn background<R: Runtime>(app: &AppHandle<R>) -> Color {
    let desktop_dark = app
        .try_state::<DesktopShade>()
        .is_some_and(|shade| shade.is_dark());
    background_for(theme(app), desktop_dark)
}

fn theme<R: Runtime>(app: &AppHandle<R>) -> Theme {
    app.try_state::<Host>()
        .map_or(Theme::System, |host| host.theme())
}

/// The background for `theme`; the system's style is the desktop's.
fn background_for(theme: Theme, desktop_dark: bool) -> Color {
    match theme {
        Theme::Dark => DARK_BACKGROUND,
        Theme::Light => LIGHT_BACKGROUND,
        Theme::System if desktop_dark => DARK_BACKGROUND,
        Theme::System => LIGHT_BACKGROUND,
    }
}

/// Whether GTK, which WebKit's `prefers-color-scheme` follows, is dark (the
/// desktop's preference, set from the portal by desktop_theme.rs, or a dark
/// GTK theme), as last read on the main thread, for whoever makes a window.
#[derive(Debug, Clone, Default)]
pub(crate) struct DesktopShade(Arc<AtomicBool>);

impl DesktopShade {
    /// Reads GTK's settings now and whenever they change. On the main
    /// thread, before the desktop's style is first applied.
    #[cfg(target_os = "linux")]
    pub(crate) fn follow() -> Self {
        use gtk::prelude::GtkSettingsExt;
        let shade = Self::default();
        if let Some(settings) = gtk::Settings::default() {
            shade.read(&settings);
            let followed = shade.clone();
            settings.connect_gtk_application_prefer_dark_theme_notify(move |settings| {
                followed.read(settings);
            });
            let followed = shade.clone();
            settings.connect_gtk_theme_name_notify(move |settings| followed.read(settings));
        }
        shade
    }

    /// Elsewhere the page's own background stands in the system's style.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn follow() -> Self {
        Self::default()
    }

    #[cfg(target_os = "linux")]
    fn read(&self, settings: &gtk::Settings) {
        use gtk::prelude::GtkSettingsExt;
        let theme_name = settings.gtk_theme_name();
        let forced = std::env::var("GTK_THEME").ok();
        let dark = settings.is_gtk_application_prefer_dark_theme()
            || theme_name.as_deref().is_some_and(is_dark_theme)
            || forced.as_deref().is_some_and(is_dark_theme);
        self.0.store(dark, Ordering::Relaxed);
    }

    fn is_dark(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// A GTK theme's name (`gtk-theme-name`, or `GTK_THEME` which overrides it)
/// naming a dark theme or its dark variant: "Adwaita-dark", "Adwaita:dark".
fn is_dark_theme(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.ends_with("-dark") || name.ends_with(":dark")
}

/// `page` with `name=value` added to its query (URL-encoded).
pub(crate) fn with_param(page: &str, name: &str, value: &str) -> String {
    let Ok(mut url) = Url::parse("tauri://localhost/").and_then(|base| base.join(page)) else {
        return page.to_owned();
    };
    url.query_pairs_mut().append_pair(name, value);
    let path = url.path().trim_start_matches('/');
    match url.query() {
        Some(query) => format!("{path}?{query}"),
        None => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_background_is_the_themes_and_the_system_one_the_desktops() {
        assert_eq!(background_for(Theme::Dark, false), DARK_BACKGROUND);
        assert_eq!(background_for(Theme::Light, true), LIGHT_BACKGROUND);
        assert_eq!(background_for(Theme::System, true), DARK_BACKGROUND);
        assert_eq!(background_for(Theme::System, false), LIGHT_BACKGROUND);
    }

    /// The colours are the stylesheet's: a window made in one and painted
    /// in the other would flash all the same.
    #[test]
    fn the_backgrounds_are_the_pages() {
        let css = include_str!("../../ui/styles.css");
        let hex = |Color(r, g, b, _): Color| format!("--bg: #{r:02x}{g:02x}{b:02x};");
        let light = css
            .split(":root[data-theme=\"dark\"]")
            .next()
            .unwrap_or_default();
        assert!(light.contains(&hex(LIGHT_BACKGROUND)), "light --bg");
        let dark = css
            .split(":root[data-theme=\"dark\"]")
            .nth(1)
            .unwrap_or_default();
        assert!(dark.contains(&hex(DARK_BACKGROUND)), "dark --bg");
    }

    #[test]
    fn dark_gtk_themes_are_told_by_their_names() {
        assert!(is_dark_theme("Adwaita-dark"));
        assert!(is_dark_theme("Adwaita:dark"));
        assert!(is_dark_theme("Yaru-Dark"));
        assert!(!is_dark_theme("Adwaita"));
        assert!(!is_dark_theme("Darkly"));
    }

    #[test]
    fn the_theme_goes_in_the_pages_query() {
        assert_eq!(
            with_param("index.html", PARAM, "dark"),
            "index.html?theme=dark"
        );
        assert_eq!(
            with_param("index.html?view=quick-ask&font=Cantarell", PARAM, "light"),
            "index.html?view=quick-ask&font=Cantarell&theme=light"
        );
    }

    #[test]
    fn a_window_made_without_a_host_starts_in_the_systems_style() {
        let app = tauri::test::mock_app();
        assert_eq!(page(app.handle(), "index.html"), "index.html?theme=system");
        assert_eq!(background(app.handle()), LIGHT_BACKGROUND);
        let shade = DesktopShade::default();
        shade.0.store(true, Ordering::Relaxed);
        app.manage(shade);
        assert_eq!(background(app.handle()), DARK_BACKGROUND);
    }
}
