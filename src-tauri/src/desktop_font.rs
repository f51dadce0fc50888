//! The desktop's interface font, for the app's pages.
//!
//! People see the app in their desktop's own font: GTK's interface font
//! (`gtk-font-name`, what GNOME, Ubuntu, KDE and the rest set) is handed to
//! each page in its address (`?font=`), and the page puts it first in its
//! font list before its first layout (`ui/first_paint.js`). WebKitGTK's `system-ui`
//! is fontconfig's alias, not that setting.
//!
//! It is also the cheap way: every family of a CSS font list that is not
//! installed costs the page a fontconfig match for each size and weight it
//! uses, on the first paint of every start and reopen. The list of eight
//! desktop fonts this replaced cost ~55 ms of each (measured on the release
//! app); the desktop's own family is one match.

use std::sync::{Arc, Mutex, PoisonError};
use tauri::{AppHandle, Manager, Runtime};

/// The query parameter the page reads its font families from.
const PARAM: &str = "font";

/// The desktop's font families as last read, for whoever makes a window.
#[derive(Debug, Clone, Default)]
pub(crate) struct DesktopFont(Arc<Mutex<Vec<String>>>);

impl DesktopFont {
    /// Reads GTK's interface font now, and again whenever the desktop
    /// changes it (the next window made uses it). On the main thread.
    #[cfg(target_os = "linux")]
    pub(crate) fn follow() -> Self {
        use gtk::prelude::GtkSettingsExt;
        let font = Self::default();
        if let Some(settings) = gtk::Settings::default() {
            font.set(settings.gtk_font_name().as_deref());
            let followed = font.clone();
            settings.connect_gtk_font_name_notify(move |settings| {
                followed.set(settings.gtk_font_name().as_deref());
            });
        }
        font
    }

    /// Elsewhere the page's own font list stands.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn follow() -> Self {
        Self::default()
    }

    #[cfg(target_os = "linux")]
    fn set(&self, font_name: Option<&str>) {
        let families = font_name.map(families).unwrap_or_default();
        tracing::debug!(?families, "desktop font");
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = families;
    }

    fn families(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// `page` (a path of the app's bundle, maybe with a query) with the
/// desktop's font families added, when the app follows them.
pub(crate) fn page<R: Runtime>(app: &AppHandle<R>, page: &str) -> String {
    match app.try_state::<DesktopFont>() {
        Some(font) => with_families(page, &font.families()),
        None => page.to_owned(),
    }
}

/// The font families of a GTK (Pango) font name such as "Ubuntu Sans 11"
/// or "Cantarell, Sans Bold 11", in order. A name CSS could not quote as
/// it is (quotes, backslashes, control characters) is left out.
#[cfg(target_os = "linux")]
fn families(font_name: &str) -> Vec<String> {
    let description = gtk::pango::FontDescription::from_string(font_name);
    let Some(family) = description.family() else {
        return Vec::new();
    };
    family
        .split(',')
        .map(str::trim)
        .filter(|family| {
            !family.is_empty()
                && family.chars().count() <= 100
                && !family
                    .chars()
                    .any(|c| c.is_control() || matches!(c, '"' | '\\'))
        })
        .map(str::to_owned)
        .collect()
}

/// `page` with `families` in its query (comma-separated, URL-encoded).
fn with_families(page: &str, families: &[String]) -> String {
    if families.is_empty() {
        return page.to_owned();
    }
    crate::first_paint::with_param(page, PARAM, &families.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_gtk_font_name_gives_its_families_without_style_or_size() {
        assert_eq!(families("Ubuntu Sans 11"), ["Ubuntu Sans"]);
        assert_eq!(families("Cantarell 11"), ["Cantarell"]);
        assert_eq!(families("Noto Sans Bold Italic 10"), ["Noto Sans"]);
        assert_eq!(families("Cantarell, Sans 11"), ["Cantarell", "Sans"]);
        assert_eq!(families("Sans"), ["Sans"]);
        assert!(families("").is_empty());
        assert!(families("11").is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_family_css_could_not_quote_is_left_out() {
        assert_eq!(families("Evil\"Font, Sans 11"), ["Sans"]);
        assert_eq!(families("Back\\slash 11"), Vec::<String>::new());
    }

    #[test]
    fn the_families_go_in_the_pages_query() {
        assert_eq!(
            with_families("index.html", &["Ubuntu Sans".into()]),
            "index.html?font=Ubuntu+Sans"
        );
        assert_eq!(
            with_families(
                "index.html?view=quick-ask",
                &["Cantarell".into(), "Sans".into()]
            ),
            "index.html?view=quick-ask&font=Cantarell%2CSans"
        );
        assert_eq!(with_families("index.html", &[]), "index.html");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_page_the_app_does_not_follow_the_font_for_is_left_as_it_is() {
        let app = tauri::test::mock_app();
        assert_eq!(page(app.handle(), "index.html"), "index.html");
        app.manage(DesktopFont::default());
        app.state::<DesktopFont>().set(Some("DejaVu Serif 11"));
        assert_eq!(
            page(app.handle(), "index.html"),
            "index.html?font=DejaVu+Serif"
        );
    }
}
