//! Small validation and text helpers shared by the repositories.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

pub(crate) const PREVIEW_MAX_CHARS: usize = 140;
pub(crate) const TITLE_MAX_CHARS: usize = 200;
pub(crate) const FOLDER_NAME_MAX_CHARS: usize = 80;
/// An untitled thread is listed under the start of its first message, this long.
pub(crate) const INTERIM_TITLE_MAX_CHARS: usize = 60;

/// Trims `value` and refuses it when empty or longer than `max` characters.
pub(crate) fn required(what: &str, value: &str, max: usize) -> Result<String> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(Error::invalid(format!("{what} must not be empty")));
    }
    let len = trimmed.chars().count();
    if len > max {
        return Err(Error::invalid(format!(
            "{what} is {len} characters long; the limit is {max}"
        )));
    }
    Ok(trimmed.to_owned())
}

/// One line of at most [`PREVIEW_MAX_CHARS`] characters, whitespace collapsed.
pub(crate) fn preview(text: &str) -> String {
    one_line(text, PREVIEW_MAX_CHARS)
}

/// One line of at most `max` characters, whitespace collapsed, cut with `…`.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    for word in text.split_whitespace() {
        let sep = usize::from(count > 0);
        let len = word.chars().count();
        if count + sep + len > max {
            let room = max.saturating_sub(count + sep + 1);
            if room > 0 {
                if sep == 1 {
                    out.push(' ');
                }
                out.extend(word.chars().take(room));
            }
            out.push('…');
            return out;
        }
        if sep == 1 {
            out.push(' ');
        }
        out.push_str(word);
        count += sep + len;
    }
    out
}

pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::invalid(format!("cannot encode JSON: {e}")))
}

pub(crate) fn from_json<T: DeserializeOwned>(what: &str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::Corrupt(format!("{what}: {e}")))
}

/// The page size used when a caller passes 0.
pub(crate) const DEFAULT_PAGE: u32 = 50;

/// Clamps a page size into `1..=max`; 0 means [`DEFAULT_PAGE`].
pub(crate) fn clamp_limit(limit: u32, max: u32) -> i64 {
    let limit = if limit == 0 { DEFAULT_PAGE } else { limit };
    i64::from(limit.min(max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preview_collapses_whitespace_and_caps_length() {
        assert_eq!(preview("  hello \n\t world  "), "hello world");
        let long = "word ".repeat(100);
        let p = preview(&long);
        assert!(
            p.chars().count() <= PREVIEW_MAX_CHARS,
            "{}",
            p.chars().count()
        );
        assert!(p.ends_with('…'));
        let one = "x".repeat(500);
        assert_eq!(preview(&one).chars().count(), PREVIEW_MAX_CHARS);
    }

    #[test]
    fn required_trims_and_limits() {
        assert_eq!(required("name", "  a  ", 3).ok(), Some("a".to_owned()));
        assert!(matches!(
            required("name", "   ", 3),
            Err(Error::InvalidInput(_))
        ));
        assert!(matches!(
            required("name", "abcd", 3),
            Err(Error::InvalidInput(_))
        ));
        // Characters, not bytes.
        assert!(required("name", "ééé", 3).is_ok());
    }
}
