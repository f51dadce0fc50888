//! `thread_import_choose`, `thread_import_preview` and `thread_import`:
//! conversations from a file as threads. Three formats, told apart by their
//! content: a thread Pizza Bot exported as JSON Lines, and the
//! `conversations.json` of a ChatGPT or a Claude.ai data export.
//!
//! The preview and the import read the file the same way, so the preview's
//! count is what the import brings in. A bad file is refused with
//! `INVALID_INPUT` naming the place (the JSON Lines line, or JSON's line and
//! column), and an import writes every conversation or none.

mod chatgpt;
mod claude;
mod draft;
mod jsonl;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pizza_protocol::{
    ApiError, IMPORT_PREVIEW_MAX, ImportFormat, ThreadImportChooseParams, ThreadImportParams,
    ThreadImportPreview, ThreadSummary,
};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::json;

use super::{ThreadService, store_err, summary};
use crate::Host;
use crate::desktop::OpenDialog;
use crate::error::off_thread;
use draft::Conversation;

/// The largest file read: a long ChatGPT history is tens of megabytes.
const IMPORT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// Why a file cannot be imported; said with the file's name in
/// [`ImportError::into_api`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum ImportError {
    #[error("line {number}: {message}")]
    Line { number: usize, message: String },
    #[error("{0}")]
    Json(String),
    #[error("it holds no conversation with a message to import")]
    Empty,
    #[error(
        "it is not a Pizza Bot JSON Lines export, nor a ChatGPT or Claude.ai conversations.json"
    )]
    Unknown,
}

impl ImportError {
    pub(super) fn line(number: usize, message: impl Into<String>) -> Self {
        Self::Line {
            number,
            message: message.into(),
        }
    }

    fn into_api(self, path: &Path) -> ApiError {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        ApiError::invalid_input(format!("Nothing was imported: in {name}, {self}."))
    }
}

/// serde's message, with the place it names in front: its line and column,
/// or, in JSON Lines (`line` given, each line parsed alone), that line.
pub(super) fn json_error(error: &serde_json::Error, line: Option<usize>) -> String {
    let full = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    format!(
        "line {}, column {}: {message}",
        line.unwrap_or(error.line()),
        error.column()
    )
}

/// A file's conversations, read.
#[derive(Debug)]
struct Parsed {
    format: ImportFormat,
    conversations: Vec<Conversation>,
}

/// Enough of a conversation to tell the two JSON exports apart.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    mapping: Option<IgnoredAny>,
    #[serde(default)]
    chat_messages: Option<IgnoredAny>,
}

/// Reads `text`; `title` is the file's name, a JSON Lines export's title.
fn parse(text: &str, title: Option<String>) -> Result<Parsed, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (format, conversations) = match text.trim_start().chars().next() {
        Some('{') => (
            ImportFormat::PizzaBotJsonl,
            vec![jsonl::parse(text, title)?],
        ),
        Some('[') => {
            let json = |e: serde_json::Error| ImportError::Json(json_error(&e, None));
            let probes: Vec<Probe> = serde_json::from_str(text).map_err(json)?;
            match probes.first() {
                None => return Err(ImportError::Empty),
                Some(p) if p.mapping.is_some() => {
                    let all: Vec<chatgpt::GptConversation> =
                        serde_json::from_str(text).map_err(json)?;
                    let all = all
                        .into_iter()
                        .map(chatgpt::GptConversation::into_conversation);
                    (ImportFormat::Chatgpt, all.collect())
                }
                Some(p) if p.chat_messages.is_some() => {
                    let all: Vec<claude::ClaudeConversation> =
                        serde_json::from_str(text).map_err(json)?;
                    let all = all
                        .into_iter()
                        .map(claude::ClaudeConversation::into_conversation);
                    (ImportFormat::Claude, all.collect())
                }
                Some(_) => return Err(ImportError::Unknown),
            }
        }
        _ => return Err(ImportError::Unknown),
    };
    // A conversation with nothing left to show (only system or hidden
    // nodes) would be an empty thread.
    let conversations: Vec<Conversation> = conversations
        .into_iter()
        .filter(|c| !c.messages.is_empty())
        .collect();
    if conversations.is_empty() {
        return Err(ImportError::Empty);
    }
    Ok(Parsed {
        format,
        conversations,
    })
}

/// Refuses anything but an absolute path to a file.
fn import_path(raw: &str) -> Result<PathBuf, ApiError> {
    let raw = raw.trim();
    if raw.is_empty() || raw.contains('\0') {
        return Err(ApiError::invalid_input("Choose a file to import."));
    }
    let path = PathBuf::from(raw);
    if !path.is_absolute() {
        return Err(ApiError::invalid_input(format!(
            "The import path {raw} is not absolute."
        )));
    }
    Ok(path)
}

/// Reads and parses the file off the async threads.
async fn read(path: &Path) -> Result<Parsed, ApiError> {
    let unreadable = |e: std::io::Error| {
        ApiError::invalid_input(format!("Could not read {}: {e}.", path.display()))
    };
    let meta = tokio::fs::metadata(path).await.map_err(unreadable)?;
    if !meta.is_file() {
        return Err(ApiError::invalid_input(format!(
            "{} is not a file; choose an export file.",
            path.display()
        )));
    }
    if meta.len() > IMPORT_MAX_BYTES {
        return Err(ApiError::invalid_input(format!(
            "{} is larger than {} MB; Pizza Bot imports files up to that size.",
            path.display(),
            IMPORT_MAX_BYTES / (1024 * 1024)
        )));
    }
    let bytes = tokio::fs::read(path).await.map_err(unreadable)?;
    let title = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.trim().is_empty());
    let owned = path.to_owned();
    off_thread("Reading the import was interrupted.", move || {
        let text = String::from_utf8(bytes).map_err(|_| {
            ApiError::invalid_input(format!(
                "Nothing was imported: {} is not text (UTF-8).",
                owned.display()
            ))
        })?;
        parse(&text, title).map_err(|e| e.into_api(&owned))
    })
    .await?
}

fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

fn format_name(format: ImportFormat) -> &'static str {
    match format {
        ImportFormat::PizzaBotJsonl => "pizza_bot_jsonl",
        ImportFormat::Chatgpt => "chatgpt",
        ImportFormat::Claude => "claude",
    }
}

impl ThreadService {
    pub(crate) async fn thread_import_preview(
        &self,
        params: ThreadImportParams,
    ) -> Result<ThreadImportPreview, ApiError> {
        let path = import_path(&params.path)?;
        let parsed = read(&path).await?;
        let now = now_ms();
        Ok(ThreadImportPreview {
            path: path.display().to_string(),
            format: parsed.format,
            count: parsed.conversations.len() as u64,
            conversations: parsed
                .conversations
                .iter()
                .take(IMPORT_PREVIEW_MAX)
                .map(|c| c.preview(now))
                .collect(),
        })
    }

    pub(crate) async fn thread_import(
        &self,
        params: ThreadImportParams,
    ) -> Result<Vec<ThreadSummary>, ApiError> {
        let path = import_path(&params.path)?;
        let parsed = read(&path).await?;
        let files = self.known_files(&parsed.conversations).await?;
        let now = now_ms();
        let metadata = json!({
            "source": "import",
            "format": format_name(parsed.format),
        });
        let threads = parsed
            .conversations
            .into_iter()
            .map(|c| c.into_thread(&files, now, metadata.clone()))
            .collect();
        let imported = self
            .store
            .import_threads(threads)
            .await
            .map_err(|e| match e {
                pizza_store::Error::InvalidInput(reason) => {
                    ApiError::invalid_input(format!("Nothing was imported: {reason}."))
                }
                other => store_err(other),
            })?;
        self.threads_changed(None);
        Ok(imported.into_iter().map(summary).collect())
    }

    /// The attachments this app still has for the hashes an export names.
    async fn known_files(
        &self,
        conversations: &[Conversation],
    ) -> Result<HashMap<String, pizza_store::AttachmentRef>, ApiError> {
        let hashes = draft::attachment_hashes(conversations);
        let found = self
            .store
            .attachments_with_sha256(&hashes)
            .await
            .map_err(store_err)?;
        let mut files = HashMap::new();
        for attachment in found {
            let on_disk = self
                .store
                .attachment_path(&attachment.id)
                .is_some_and(|p| p.is_file());
            if on_disk {
                files
                    .entry(attachment.sha256.clone())
                    .or_insert_with(|| attachment.reference());
            }
        }
        Ok(files)
    }
}

impl Host {
    /// Shows the native open dialog for a file to import; `None` when the
    /// person cancelled. The path it answers goes to `thread_import_preview`.
    pub async fn thread_import_choose(
        &self,
        _params: ThreadImportChooseParams,
    ) -> Result<Option<String>, ApiError> {
        let dialog = OpenDialog {
            title: "Import conversations".to_owned(),
            filter_name: "Pizza Bot, ChatGPT or Claude export".to_owned(),
            extension: "json,jsonl".to_owned(),
        };
        let chosen = self.inner.desktop.choose_open_file(dialog).await?;
        Ok(chosen.map(|path| path.display().to_string()))
    }

    pub async fn thread_import_preview(
        &self,
        params: ThreadImportParams,
    ) -> Result<ThreadImportPreview, ApiError> {
        self.inner.threads.thread_import_preview(params).await
    }

    pub async fn thread_import(
        &self,
        params: ThreadImportParams,
    ) -> Result<Vec<ThreadSummary>, ApiError> {
        self.inner.threads.thread_import(params).await
    }
}

#[cfg(test)]
mod tests;
