//! `export_choose` and `thread_export`: a thread to a Markdown or JSON Lines
//! file the person chose in the native save dialog.
//!
//! The page never names the file. `export_choose` asks the desktop shell to
//! show the dialog, keeps its answer here and gives the page a random
//! one-time token; `thread_export` writes only to the path a fresh token
//! stands for. A script in the page can therefore not write anywhere the
//! person did not just pick.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

mod attachments;

use super::ThreadService;
use super::{message_view, store_err};
use crate::Host;
use crate::desktop::SaveDialog;
use pizza_protocol::{
    ApiError, ErrorCode, ExportChooseParams, ExportFormat, ExportTarget, MessagePart, MessageView,
    Role, ThreadExportParams, ThreadExportResponse,
};

/// Chosen files not yet exported to; an older choice is forgotten first.
const TARGETS_KEPT: usize = 16;

/// The save dialog's answers since the app started, by token; each is
/// taken by one export.
#[derive(Debug, Default)]
pub(crate) struct ExportTargets {
    chosen: Mutex<VecDeque<(String, PathBuf)>>,
}

impl ExportTargets {
    /// Keeps `path` and answers the token that stands for it.
    fn remember(&self, path: PathBuf) -> String {
        let token = uuid::Uuid::new_v4().simple().to_string();
        let mut chosen = self.chosen.lock().unwrap_or_else(PoisonError::into_inner);
        if chosen.len() >= TARGETS_KEPT {
            chosen.pop_front();
        }
        chosen.push_back((token.clone(), path));
        token
    }

    /// The path `token` stands for, once.
    fn take(&self, token: &str) -> Option<PathBuf> {
        let mut chosen = self.chosen.lock().unwrap_or_else(PoisonError::into_inner);
        let at = chosen.iter().position(|(t, _)| t == token)?;
        chosen.remove(at).map(|(_, path)| path)
    }
}

fn not_chosen() -> ApiError {
    ApiError::new(
        ErrorCode::PermissionDenied,
        "Choose where to save the export first; each choice saves one export.",
    )
}

impl ThreadService {
    pub(crate) async fn thread_export(
        &self,
        params: ThreadExportParams,
    ) -> Result<ThreadExportResponse, ApiError> {
        let thread = self
            .store
            .thread(&params.thread_id)
            .await
            .map_err(store_err)?;
        let path = self
            .export_targets
            .take(&params.token)
            .ok_or_else(not_chosen)?;
        // The folder may have gone since the choice.
        let path = export_path(&path.display().to_string())?;
        let state = self
            .store
            .state(&thread.id, None)
            .await
            .map_err(store_err)?;
        let messages: Vec<MessageView> = state.messages.iter().map(message_view).collect();
        let text = match params.format {
            ExportFormat::Markdown => {
                let files = attachments::write_beside(&self.store, &path, &messages).await?;
                markdown(&thread.title, &messages, &files)
            }
            ExportFormat::Jsonl => {
                let hashes = attachments::hashes(&self.store, &thread.id).await?;
                jsonl(&messages, &hashes)?
            }
        };
        let bytes = text.len() as u64;
        let target = path.clone();
        tokio::task::spawn_blocking(move || pizza_tools::write_atomic(&target, text.as_bytes()))
            .await
            .map_err(|e| {
                ApiError::general("The export was interrupted.").with_details(e.to_string())
            })?
            .map_err(|e| ApiError::general(format!("Could not write {}: {e}.", path.display())))?;
        Ok(ThreadExportResponse {
            path: path.display().to_string(),
            bytes,
        })
    }

    /// A file the person chose for an export, as a one-time token.
    pub(crate) fn export_target(&self, chosen: &Path) -> Result<ExportTarget, ApiError> {
        let path = export_path(&chosen.display().to_string())?;
        let shown = path.display().to_string();
        Ok(ExportTarget {
            token: self.export_targets.remember(path),
            path: shown,
        })
    }
}

impl Host {
    /// Shows the native save dialog; the chosen file comes back as a token
    /// for one `thread_export` (`None`: the person cancelled).
    pub async fn export_choose(
        &self,
        params: ExportChooseParams,
    ) -> Result<Option<ExportTarget>, ApiError> {
        let (filter, extension) = match params.format {
            ExportFormat::Markdown => ("Markdown", "md"),
            ExportFormat::Jsonl => ("JSON Lines", "jsonl"),
        };
        let name = params
            .suggested_name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .unwrap_or("Thread");
        // A name only: the dialog decides the folder.
        let name: String = name
            .chars()
            .map(|c| {
                if matches!(c, '/' | '\\' | '\0') {
                    '_'
                } else {
                    c
                }
            })
            .take(120)
            .collect();
        let dialog = SaveDialog {
            title: "Export thread".to_owned(),
            suggested_name: format!("{name}.{extension}"),
            filter_name: filter.to_owned(),
            extension: extension.to_owned(),
        };
        match self.inner.desktop.choose_save_file(dialog).await? {
            Some(path) => self.inner.threads.export_target(&path).map(Some),
            None => Ok(None),
        }
    }
}

/// Refuses anything but an absolute file path in an existing folder.
pub(super) fn export_path(raw: &str) -> Result<PathBuf, ApiError> {
    if raw.trim().is_empty() || raw.contains('\0') {
        return Err(ApiError::invalid_input("Choose a file to save to."));
    }
    let path = PathBuf::from(raw);
    if !path.is_absolute() {
        return Err(ApiError::invalid_input(format!(
            "The path {raw} is not absolute; choose a file in the dialog."
        )));
    }
    if path.is_dir() {
        return Err(ApiError::invalid_input(format!(
            "{raw} is a folder; choose a file name."
        )));
    }
    match path.parent() {
        Some(parent) if parent.is_dir() => Ok(path),
        _ => Err(ApiError::invalid_input(format!(
            "The folder for {raw} does not exist."
        ))),
    }
}

/// One message per line; an attachment is referenced by its name and the
/// sha256 of its bytes (never a path of this computer).
fn jsonl(messages: &[MessageView], hashes: &HashMap<String, String>) -> Result<String, ApiError> {
    let mut out = String::new();
    for message in messages {
        let mut value = serde_json::to_value(message).map_err(|e| {
            ApiError::general("Could not encode a message.").with_details(e.to_string())
        })?;
        attachments::reference_by_hash(&mut value, hashes);
        let line = serde_json::to_string(&value).map_err(|e| {
            ApiError::general("Could not encode a message.").with_details(e.to_string())
        })?;
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}

/// An answer's sources as a list of links (a document without an address
/// by its title).
fn sources_list(sources: &[pizza_protocol::Source]) -> String {
    let mut out = String::from("**Sources**\n\n");
    for source in sources {
        let title = source.title.as_deref().unwrap_or_default().trim();
        let line = match (source.url.as_deref(), title) {
            (Some(url), "") => format!("- <{url}>\n"),
            (Some(url), title) => format!("- [{}](<{url}>)\n", title.replace(['[', ']'], "")),
            (None, title) => format!("- {title}\n"),
        };
        out.push_str(&line);
    }
    out.push('\n');
    out
}

/// The thread as Markdown; `files` maps an attachment id to where it was
/// written beside the export (relative to it).
pub(crate) fn markdown(
    title: &str,
    messages: &[MessageView],
    files: &HashMap<String, String>,
) -> String {
    let mut out = format!("# {title}\n");
    for message in messages {
        let who = match message.role {
            Role::User => "You",
            Role::Assistant => "Pizza Bot",
            Role::Tool => "Tool",
            Role::System => "System",
        };
        out.push_str(&format!("\n## {who}\n\n"));
        for part in &message.parts {
            match part {
                MessagePart::Text { text } => out.push_str(&format!("{text}\n\n")),
                MessagePart::Reasoning { text } => {
                    for line in text.lines() {
                        out.push_str(&format!("> {line}\n"));
                    }
                    out.push('\n');
                }
                MessagePart::ToolCall {
                    name, arguments, ..
                } => out.push_str(&format!(
                    "**Tool call** `{name}`\n\n```json\n{}\n```\n\n",
                    serde_json::to_string_pretty(arguments).unwrap_or_default()
                )),
                MessagePart::ToolResult {
                    content, is_error, ..
                } => {
                    let label = if *is_error {
                        "Tool error"
                    } else {
                        "Tool result"
                    };
                    out.push_str(&format!("**{label}**\n\n```\n{content}\n```\n\n"));
                }
                MessagePart::Notice { text } => out.push_str(&format!("_{text}_\n\n")),
                MessagePart::Attachment { attachment } => {
                    out.push_str(&attachments::markdown_link(attachment, files));
                }
                MessagePart::Sources { sources } => out.push_str(&sources_list(sources)),
            }
        }
    }
    out
}
