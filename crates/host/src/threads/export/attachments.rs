//! Attachments in exports: a Markdown export gets them as files in a folder
//! beside it and links to them; a JSON Lines export names each by its file
//! name and the sha256 of its bytes.

use std::collections::HashMap;
use std::path::Path;

use pizza_protocol::{ApiError, AttachmentKind, AttachmentView, MessagePart, MessageView};
use pizza_store::Store;
use serde_json::Value;

use super::super::store_err;

/// Copies the attachments of `messages` into `<export stem> files/` beside
/// `export` and answers where each went (by id, relative to the export). A
/// file that is gone is left out: its link says so.
pub(super) async fn write_beside(
    store: &Store,
    export: &Path,
    messages: &[MessageView],
) -> Result<HashMap<String, String>, ApiError> {
    let mut written = HashMap::new();
    let attachments: Vec<&AttachmentView> = messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|part| match part {
            MessagePart::Attachment { attachment } => Some(attachment),
            _ => None,
        })
        .collect();
    if attachments.is_empty() {
        return Ok(written);
    }
    let stem = export
        .file_stem()
        .map_or_else(|| "export".to_owned(), |s| s.to_string_lossy().into_owned());
    let folder_name = format!("{stem} files");
    let folder = export.with_file_name(&folder_name);
    tokio::fs::create_dir_all(&folder).await.map_err(|e| {
        ApiError::general(format!("Could not make the folder {}.", folder.display()))
            .with_details(e.to_string())
    })?;
    let mut taken: HashMap<String, usize> = HashMap::new();
    for attachment in attachments {
        if written.contains_key(&attachment.id) {
            continue;
        }
        let Some(source) = store.attachment_path(&attachment.id) else {
            continue;
        };
        let name = unique_name(&attachment.name, &mut taken);
        match tokio::fs::copy(&source, folder.join(&name)).await {
            Ok(_) => {
                written.insert(attachment.id.clone(), format!("{folder_name}/{name}"));
            }
            Err(error) => {
                tracing::warn!(%error, id = attachment.id, "an attachment could not be exported");
            }
        }
    }
    Ok(written)
}

/// `name`, or `name (2)` … when an earlier attachment of the export has it.
fn unique_name(name: &str, taken: &mut HashMap<String, usize>) -> String {
    let count = taken.entry(name.to_owned()).or_insert(0);
    *count += 1;
    if *count == 1 {
        return name.to_owned();
    }
    let (stem, extension) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (name, String::new()),
    };
    format!("{stem} ({count}){extension}")
}

/// The Markdown for one attachment: an image inline, a file as a link.
pub(super) fn markdown_link(
    attachment: &AttachmentView,
    files: &HashMap<String, String>,
) -> String {
    let name = attachment.name.replace(['[', ']'], "");
    match files.get(&attachment.id) {
        Some(path) if attachment.kind == AttachmentKind::Image => {
            format!("![{name}](<{path}>)\n\n")
        }
        Some(path) => format!("📎 [{name}](<{path}>)\n\n"),
        None => format!("📎 {name} _(file unavailable)_\n\n"),
    }
}

/// The sha256 of each attachment the thread uses, by id.
pub(super) async fn hashes(
    store: &Store,
    thread_id: &str,
) -> Result<HashMap<String, String>, ApiError> {
    Ok(store
        .thread_attachments(thread_id)
        .await
        .map_err(store_err)?
        .into_iter()
        .map(|a| (a.id, a.sha256))
        .collect())
}

/// Rewrites a message's attachment parts to `{name, mime, size, sha256}`:
/// what identifies the file anywhere, without this app's ids or URLs.
pub(super) fn reference_by_hash(message: &mut Value, hashes: &HashMap<String, String>) {
    let Some(parts) = message.get_mut("parts").and_then(Value::as_array_mut) else {
        return;
    };
    for part in parts {
        if part.get("type").and_then(Value::as_str) != Some("attachment") {
            continue;
        }
        let Some(attachment) = part.get("attachment") else {
            continue;
        };
        let field = |key: &str| attachment.get(key).cloned().unwrap_or(Value::Null);
        let sha256 = attachment
            .get("id")
            .and_then(Value::as_str)
            .and_then(|id| hashes.get(id))
            .map_or(Value::Null, |h| Value::String(h.clone()));
        *part = serde_json::json!({
            "type": "attachment",
            "name": field("name"),
            "mime": field("mime"),
            "size": field("size"),
            "sha256": sha256,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clashing_names_get_a_number() {
        let mut taken = HashMap::new();
        assert_eq!(unique_name("a.png", &mut taken), "a.png");
        assert_eq!(unique_name("a.png", &mut taken), "a (2).png");
        assert_eq!(unique_name("README", &mut taken), "README");
        assert_eq!(unique_name("README", &mut taken), "README (2)");
    }

    #[test]
    fn jsonl_names_attachments_by_hash() {
        let mut message = serde_json::json!({"parts": [
            {"type": "text", "text": "see"},
            {"type": "attachment", "attachment": {"id": "a1", "name": "chart.png",
             "mime": "image/png", "size": 3, "kind": "image", "thumbnail": "attachment://localhost/a1"}}
        ]});
        let hashes = HashMap::from([("a1".to_owned(), "abc".to_owned())]);
        reference_by_hash(&mut message, &hashes);
        assert_eq!(
            message["parts"][1],
            serde_json::json!({"type": "attachment", "name": "chart.png",
                "mime": "image/png", "size": 3, "sha256": "abc"})
        );
    }
}
