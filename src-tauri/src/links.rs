//! Links never open inside the app's webviews: a navigation away from the
//! app's own pages is stopped, and an `http`, `https` or `mailto` link goes
//! to the system's browser or mail app instead (opener.rs: the desktop's
//! own opener). Anything else (`file:`, `javascript:`, custom
//! schemes) goes nowhere.

use pizza_protocol::is_external_link;
use tauri::{Manager, Runtime, Url, Webview};

/// Hands an allowed link to the system; anything else is refused.
pub(crate) fn open_external(url: &str) -> Result<(), String> {
    if !is_external_link(url) {
        return Err(format!("{url} is not a web or email link"));
    }
    crate::opener::open_detached(url).map_err(|error| error.to_string())
}

/// For a navigation or new window the app refused: open it outside when it
/// is a link people follow, say why not otherwise.
pub(crate) fn open_instead(url: &Url) {
    if !is_external_link(url.as_str()) {
        tracing::warn!(
            scheme = url.scheme(),
            "refused a navigation to a link that is not web or email"
        );
        return;
    }
    if let Err(error) = open_external(url.as_str()) {
        tracing::warn!(%error, "could not open a link in the browser");
    }
}

/// Whether `url` is one of the app's own pages (the bundled UI, or the dev
/// server when one is configured).
pub(crate) fn is_app_page(url: &Url, dev_url: Option<&Url>) -> bool {
    match url.scheme() {
        "tauri" => url.host_str() == Some("localhost"),
        "http" | "https" => {
            url.host_str() == Some("tauri.localhost")
                || dev_url.is_some_and(|dev| dev.origin() == url.origin())
        }
        // The blank page a webview starts with.
        "about" => url.as_str() == "about:blank",
        _ => false,
    }
}

/// The navigation guard for every webview: the app's pages load, anything
/// else is opened outside (if allowed) and never in the webview.
pub(crate) fn plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri::plugin::Builder::new("navigation-guard")
        .on_navigation(|webview: &Webview<R>, url| {
            let dev_url = webview.config().build.dev_url.clone();
            if is_app_page(url, dev_url.as_ref()) {
                return true;
            }
            open_instead(url);
            false
        })
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn only_the_apps_own_pages_load_in_the_webview() {
        for page in [
            "tauri://localhost/index.html",
            "tauri://localhost/index.html?view=quick-ask",
            "http://tauri.localhost/index.html",
            "about:blank",
        ] {
            assert!(is_app_page(&url(page), None), "{page}");
        }
        for away in [
            "https://example.com/",
            "http://localhost:1420/",
            "tauri://evil.example/",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "mailto:pizza@example.com",
        ] {
            assert!(!is_app_page(&url(away), None), "{away}");
        }
        let dev = url("http://localhost:1420/");
        assert!(is_app_page(
            &url("http://localhost:1420/index.html"),
            Some(&dev)
        ));
        assert!(!is_app_page(&url("http://localhost:1421/"), Some(&dev)));
    }

    #[test]
    fn only_web_and_mail_links_are_handed_to_the_system() {
        // Refused before any opener runs: nothing is launched by this test.
        for refused in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "tauri://localhost/",
            "smb://server/share",
        ] {
            assert!(open_external(refused).is_err(), "{refused}");
        }
    }
}
