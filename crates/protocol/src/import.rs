//! Importing conversations as threads: a thread Pizza Bot exported as JSON
//! Lines, or the `conversations.json` of a ChatGPT or Claude.ai data export.
//! The file is previewed first (nothing written), then imported whole.

use serde::{Deserialize, Serialize};

/// The most conversations a preview lists; `count` says how many there are.
pub const IMPORT_PREVIEW_MAX: usize = 200;

/// Asks for a file to import in the native open dialog.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadImportChooseParams {}

/// The file to preview or import: a path `thread_import_choose` answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadImportParams {
    pub path: String,
}

/// What kind of file an import read; found from its content, not its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImportFormat {
    /// A thread Pizza Bot exported as JSON Lines: one message per line.
    PizzaBotJsonl,
    /// ChatGPT's data export (`conversations.json`).
    Chatgpt,
    /// Claude.ai's data export (`conversations.json`).
    Claude,
}

/// One conversation an import would bring in, as it will be listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportConversation {
    pub title: String,
    pub created_at: i64,
    pub updated_at: i64,
    /// The messages that will be imported (hidden and empty ones left out).
    pub messages: u64,
}

/// What importing the file would do; nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadImportPreview {
    /// The file read, to show.
    pub path: String,
    pub format: ImportFormat,
    /// How many conversations the file holds; each becomes a thread.
    pub count: u64,
    /// The first [`IMPORT_PREVIEW_MAX`] of them, in the file's order.
    pub conversations: Vec<ImportConversation>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn formats_are_snake_case() {
        assert_eq!(
            serde_json::to_value([
                ImportFormat::PizzaBotJsonl,
                ImportFormat::Chatgpt,
                ImportFormat::Claude
            ])
            .unwrap(),
            json!(["pizza_bot_jsonl", "chatgpt", "claude"])
        );
    }

    #[test]
    fn params_name_only_a_path() {
        let params: ThreadImportParams =
            serde_json::from_value(json!({"path": "/tmp/conversations.json"})).unwrap();
        assert_eq!(params.path, "/tmp/conversations.json");
        assert!(serde_json::from_value::<ThreadImportParams>(json!({"path": "", "x": 1})).is_err());
    }
}
