//! `thread_export`: a thread to a Markdown or JSON Lines file the user chose.

use super::ThreadService;
use super::{message_view, store_err};
use pizza_protocol::{
    ApiError, ExportFormat, MessagePart, MessageView, Role, ThreadExportParams,
    ThreadExportResponse,
};
use std::path::PathBuf;

impl ThreadService {
    pub(crate) async fn thread_export(
        &self,
        params: ThreadExportParams,
    ) -> Result<ThreadExportResponse, ApiError> {
        let path = export_path(&params.path)?;
        let thread = self
            .store
            .thread(&params.thread_id)
            .await
            .map_err(store_err)?;
        let state = self
            .store
            .state(&thread.id, None)
            .await
            .map_err(store_err)?;
        let messages: Vec<MessageView> = state.messages.iter().map(message_view).collect();
        let text = match params.format {
            ExportFormat::Markdown => markdown(&thread.title, &messages),
            ExportFormat::Jsonl => jsonl(&messages)?,
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
}

/// Refuses anything but an absolute file path in an existing folder.
fn export_path(raw: &str) -> Result<PathBuf, ApiError> {
    if raw.trim().is_empty() || raw.contains('\0') {
        return Err(ApiError::invalid_input("Choose a file to export to."));
    }
    let path = PathBuf::from(raw);
    if !path.is_absolute() {
        return Err(ApiError::invalid_input(format!(
            "The export path {raw} is not absolute."
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

fn jsonl(messages: &[MessageView]) -> Result<String, ApiError> {
    let mut out = String::new();
    for message in messages {
        let line = serde_json::to_string(message).map_err(|e| {
            ApiError::general("Could not encode a message.").with_details(e.to_string())
        })?;
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}

pub(crate) fn markdown(title: &str, messages: &[MessageView]) -> String {
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
            }
        }
    }
    out
}
