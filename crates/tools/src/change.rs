//! What a gated file change will do and what it was asked against: the
//! preview on the approval card, and the file's state when the call asked,
//! so an approved call never writes over a file that changed meanwhile.

use pizza_protocol::ChangePreview;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Result, ToolError};
use crate::fs::FileSystem;

/// The most a preview carries; a larger change is cut at a line boundary
/// with a last line saying so (the card is for reading, not for review of
/// a whole generated file).
pub const PREVIEW_MAX_CHARS: usize = 20_000;

/// Lines of unchanged text shown around each change.
const CONTEXT_LINES: usize = 3;

/// A file as a gated call found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FileState {
    Absent,
    /// The SHA-256 of the file's bytes, in hex.
    Sha256 {
        hex: String,
    },
}

impl FileState {
    fn of(content: &str) -> Self {
        let digest = Sha256::digest(content.as_bytes());
        let hex = digest.iter().map(|b| format!("{b:02x}")).collect();
        Self::Sha256 { hex }
    }
}

/// The file's content now, `None` when it does not exist.
pub(crate) async fn read_if_present(fs: &dyn FileSystem, path: &str) -> Result<Option<String>> {
    match fs.read(path).await {
        Ok(content) => Ok(Some(content)),
        Err(ToolError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The state of `path` now.
pub async fn file_state(fs: &dyn FileSystem, path: &str) -> Result<FileState> {
    Ok(match read_if_present(fs, path).await? {
        Some(content) => FileState::of(&content),
        None => FileState::Absent,
    })
}

/// The card's preview of replacing `before` (absent: a new file) by `after`.
pub(crate) fn preview(path: &str, before: Option<&str>, after: &str) -> ChangePreview {
    match before {
        None => ChangePreview::NewFile {
            path: path.to_owned(),
            content: cap(after),
        },
        Some(before) => {
            let diff = similar::TextDiff::from_lines(before, after)
                .unified_diff()
                .context_radius(CONTEXT_LINES)
                .to_string();
            ChangePreview::Diff {
                path: path.to_owned(),
                diff: cap(&diff),
            }
        }
    }
}

fn cap(text: &str) -> String {
    if text.len() <= PREVIEW_MAX_CHARS {
        return text.to_owned();
    }
    let mut end = PREVIEW_MAX_CHARS;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text[..end].rfind('\n').map_or(end, |i| i + 1);
    let hidden = text[cut..].lines().count();
    format!("{}… {hidden} more lines not shown\n", &text[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_diff_shows_the_change_in_context() {
        let before = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let after = "a\nb\nc\nd\nE\nf\ng\nh\n";
        let ChangePreview::Diff { diff, .. } = preview("/local/x.md", Some(before), after) else {
            panic!("a diff");
        };
        assert_eq!(diff, "@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n");
    }

    #[test]
    fn a_long_preview_is_cut_at_a_line() {
        let content = "line\n".repeat(10_000);
        let ChangePreview::NewFile { content: shown, .. } = preview("/n.md", None, &content) else {
            panic!("new file");
        };
        assert!(shown.len() <= PREVIEW_MAX_CHARS + 40);
        assert!(shown.ends_with("… 6000 more lines not shown\n"), "{shown}");
    }

    #[test]
    fn states_differ_when_the_bytes_do() {
        assert_eq!(FileState::of("a"), FileState::of("a"));
        assert_ne!(FileState::of("a"), FileState::of("b"));
        assert_ne!(FileState::of(""), FileState::Absent);
    }
}
