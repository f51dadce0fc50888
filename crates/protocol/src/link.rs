//! Links in messages: which ones the app hands to the system browser.

use serde::{Deserialize, Serialize};

/// The longest link the app opens.
pub const LINK_MAX: usize = 8 * 1024;

/// Opens a link from a message in the system's browser or mail app.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOpenParams {
    pub url: String,
}

/// Whether `url` may leave the app for the system's browser (`http`,
/// `https`) or mail app (`mailto`). Everything else (`file:`, `javascript:`,
/// custom schemes, relative links) stays refused: the webview never
/// navigates anywhere, and the system only opens what cannot run code here.
pub fn is_external_link(url: &str) -> bool {
    if url.is_empty()
        || url.len() > LINK_MAX
        || url
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
    {
        return false;
    }
    let Some((scheme, rest)) = url.split_once(':') else {
        return false;
    };
    match scheme.to_ascii_lowercase().as_str() {
        "http" | "https" => rest
            .strip_prefix("//")
            .and_then(|after| after.split(['/', '?', '#']).next())
            // A host is there, with no credentials to fool the reader.
            .is_some_and(|authority| !authority.is_empty() && !authority.contains('@')),
        "mailto" => !rest.is_empty() && !rest.starts_with('/'),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_and_mail_links_leave_the_app() {
        for url in [
            "https://example.com",
            "http://example.com/a?b=c#d",
            "HTTPS://EXAMPLE.COM/",
            "mailto:pizza@example.com",
            "mailto:pizza@example.com?subject=Dough",
        ] {
            assert!(is_external_link(url), "{url} refused");
        }
        for url in [
            "",
            "javascript:alert(1)",
            "file:///etc/passwd",
            "tauri://localhost/index.html",
            "data:text/html,<script>",
            "ftp://example.com",
            "//example.com",
            "/relative/path",
            "#anchor",
            "https://",
            "https:example.com",
            "https://user:pass@example.com",
            "https://example.com/a b",
            "https://example.com\n",
            "http:\\\\example.com",
            "mailto:",
            "mailto://example.com",
            "vbscript:msgbox",
        ] {
            assert!(!is_external_link(url), "{url:?} allowed");
        }
        assert!(!is_external_link(&format!(
            "https://example.com/{}",
            "a".repeat(LINK_MAX)
        )));
    }
}
