//! The attachment inliner. The transcript keeps attachments as references
//! (`attachment://<id>`); just before each model call they become what the
//! provider takes: base64 image parts for a vision model, document parts
//! where the provider takes documents, text files as text. What a model
//! cannot take becomes a one-line notice in its place, and a file that is
//! gone reads "[attachment X unavailable]": an attachment never fails a run.
//! Nothing here is stored; the checkpoint keeps the reference.

use std::collections::HashMap;

use base64::Engine as _;
use pizza_llm::{AttachmentSupport, ContentPart, DocumentSource, ImageSource, Message};
use pizza_protocol::{ATTACHMENT_REF_PREFIX, AttachmentKind, attachment_kind, format_size};
use pizza_store::{NewAttachment, ResultPart, Store};
use pizza_tools::{OutputPart, ToolOutput};

use crate::run::RunLoop;

/// Text attachments are inlined up to this many characters; the rest is
/// cut with a note, so one log file cannot fill the context window.
pub(crate) const TEXT_INLINE_MAX_CHARS: usize = 200_000;

impl RunLoop<'_> {
    /// The parts of a tool's result as the transcript keeps them: text as
    /// is, an image stored once as an attachment of the thread (so the
    /// checkpoint holds only its reference). An image that cannot be kept
    /// is named in a line instead.
    pub(crate) async fn result_parts(&self, output: &ToolOutput) -> Vec<ResultPart> {
        let mut parts = Vec::with_capacity(output.parts.len());
        for part in &output.parts {
            let kept = match part {
                OutputPart::Text(text) => ResultPart::text(text.clone()),
                OutputPart::Image { name, mime, data } => {
                    let stored = self
                        .agent
                        .store
                        .add_attachment(NewAttachment {
                            thread_id: Some(&self.input.thread_id),
                            name,
                            mime,
                            bytes: data,
                        })
                        .await;
                    match stored {
                        Ok(attachment) => ResultPart::Image {
                            attachment: attachment.reference(),
                        },
                        Err(error) => {
                            tracing::warn!(%error, "an image a tool returned could not be kept");
                            ResultPart::text(format!(
                                "[The tool returned an image ({name}) that could not be kept.]"
                            ))
                        }
                    }
                }
            };
            parts.push(kept);
        }
        parts
    }
}

/// The messages with every attachment reference resolved for this model.
pub(crate) async fn inline(
    mut messages: Vec<Message>,
    support: &AttachmentSupport,
    store: &Store,
) -> Vec<Message> {
    let mut resolved: HashMap<String, ContentPart> = HashMap::new();
    for message in &mut messages {
        for part in &mut message.content {
            inline_part(part, support, store, &mut resolved).await;
        }
    }
    messages
}

async fn inline_part(
    part: &mut ContentPart,
    support: &AttachmentSupport,
    store: &Store,
    resolved: &mut HashMap<String, ContentPart>,
) {
    let id = match part {
        ContentPart::Image {
            source: ImageSource::Reference { uri, .. },
        }
        | ContentPart::Document {
            source: DocumentSource::Reference { uri, .. },
            ..
        } => uri.strip_prefix(ATTACHMENT_REF_PREFIX).map(str::to_owned),
        ContentPart::ToolResult { content, .. } => {
            for inner in content.iter_mut() {
                Box::pin(inline_part(inner, support, store, resolved)).await;
            }
            None
        }
        _ => None,
    };
    let Some(id) = id else { return };
    if let Some(done) = resolved.get(&id) {
        *part = done.clone();
        return;
    }
    let inlined = resolve(&id, support, store).await;
    resolved.insert(id, inlined.clone());
    *part = inlined;
}

/// One reference as the model gets it.
async fn resolve(id: &str, support: &AttachmentSupport, store: &Store) -> ContentPart {
    let row = match store.attachment(id).await {
        Ok(row) => row,
        Err(error) => {
            tracing::warn!(%error, id, "an attachment in the transcript has no record");
            return ContentPart::text(format!("[attachment {id} unavailable]"));
        }
    };
    let name = row.name.as_str();
    let limits = &support.limits;
    let kind = attachment_kind(&row.mime);
    // Refused on what is known before reading any bytes.
    match kind {
        AttachmentKind::Image if !support.vision => {
            return ContentPart::text(format!(
                "[image {name} not shown: this model has no vision]"
            ));
        }
        AttachmentKind::Image if row.size > limits.image_max_bytes => {
            return ContentPart::text(format!(
                "[image {name} not shown: {} takes images up to {}]",
                limits.provider,
                format_size(limits.image_max_bytes)
            ));
        }
        AttachmentKind::Document if !limits.documents => {
            return ContentPart::text(format!(
                "[document {name} not shown: this model cannot read PDF documents]"
            ));
        }
        AttachmentKind::Document if row.size > limits.document_max_bytes => {
            return ContentPart::text(format!(
                "[document {name} not shown: {} takes documents up to {}]",
                limits.provider,
                format_size(limits.document_max_bytes)
            ));
        }
        _ => {}
    }
    let bytes = match store.read_attachment(id).await {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::warn!(%error, id, "an attachment's file cannot be read");
            return ContentPart::text(format!("[attachment {name} unavailable]"));
        }
    };
    match kind {
        AttachmentKind::Image => ContentPart::Image {
            source: ImageSource::Base64 {
                media_type: row.mime.clone(),
                data: base64::engine::general_purpose::STANDARD.encode(&bytes),
            },
        },
        AttachmentKind::Document => ContentPart::Document {
            source: DocumentSource::Base64 {
                media_type: row.mime.clone(),
                data: base64::engine::general_purpose::STANDARD.encode(&bytes),
            },
            name: Some(row.name.clone()),
        },
        AttachmentKind::Text => ContentPart::text(text_block(name, &row.mime, &bytes)),
    }
}

/// A text file as the model reads it: named, and cut past
/// [`TEXT_INLINE_MAX_CHARS`].
fn text_block(name: &str, mime: &str, bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut body: String = text.chars().take(TEXT_INLINE_MAX_CHARS).collect();
    if body.len() < text.len() {
        let rest = text.chars().count() - TEXT_INLINE_MAX_CHARS;
        body.push_str(&format!("\n[… {rest} more characters of {name} not shown]"));
    }
    format!("<attachment name=\"{name}\" type=\"{mime}\">\n{body}\n</attachment>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_with_a_note() {
        let long = "x".repeat(TEXT_INLINE_MAX_CHARS + 5);
        let block = text_block("log.txt", "text/plain", long.as_bytes());
        assert!(block.starts_with("<attachment name=\"log.txt\" type=\"text/plain\">\n"));
        assert!(block.contains("[… 5 more characters of log.txt not shown]"));
        let short = text_block("a.csv", "text/csv", b"a,b\n1,2");
        assert_eq!(
            short,
            "<attachment name=\"a.csv\" type=\"text/csv\">\na,b\n1,2\n</attachment>"
        );
    }
}
