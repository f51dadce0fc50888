//! The stored transcript: what a message is made of, as the store keeps it.
//!
//! This type belongs to the store and the agent, not to the IPC contract: the
//! window's `MessageView` is derived from it in one place ([`view`]), so the
//! contract can change without a data migration. Each row records the
//! version of the encoding it was written with (`messages.content_version`);
//! rows written before this type existed are version 1 and are read through
//! [`legacy`].

mod legacy;
mod view;

use pizza_protocol::{AttachmentKind, AttachmentView, attachment_kind, attachment_src};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use view::view;

/// The encoding new rows are written with.
pub const CONTENT_VERSION: i64 = 2;

/// A file the person attached, kept by reference: the bytes live beside the
/// database, never in the transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentRef {
    pub id: String,
    pub name: String,
    pub mime: String,
    pub size: u64,
}

impl AttachmentRef {
    /// The attachment as the window shows it: an image with the URL its
    /// thumbnail loads from.
    pub fn view(&self) -> AttachmentView {
        let kind = attachment_kind(&self.mime);
        AttachmentView {
            id: self.id.clone(),
            name: self.name.clone(),
            mime: self.mime.clone(),
            size: self.size,
            kind,
            thumbnail: (kind == AttachmentKind::Image).then(|| attachment_src(&self.id)),
        }
    }
}

/// One part of a stored message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    Text {
        text: String,
    },
    /// Model reasoning with what the provider needs to accept it again on
    /// the next turn: a `signature` (Anthropic, Bedrock, Gemini) or an opaque
    /// `encrypted` payload (redacted thinking, OpenAI encrypted reasoning).
    Reasoning {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted: Option<String>,
    },
    Image {
        attachment: AttachmentRef,
    },
    Document {
        attachment: AttachmentRef,
    },
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
    },
    ToolResult {
        call_id: String,
        content: Vec<ResultPart>,
        #[serde(default)]
        is_error: bool,
    },
    /// Something the app says in the thread (a limit, a stop); never sent to
    /// the model.
    Notice {
        text: String,
    },
    /// What the answer cites (web pages, documents), each once; shown under
    /// the answer, never sent to a model.
    Sources {
        sources: Vec<CitedSource>,
    },
}

/// A source an answer cites: a web page (`url`), or a document the person
/// gave (`title` only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitedSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The passage the answer leans on, when the provider said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_text: Option<String>,
}

/// One part of a tool's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResultPart {
    Text { text: String },
    Image { attachment: AttachmentRef },
}

impl Part {
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    pub fn notice(text: impl Into<String>) -> Self {
        Self::Notice { text: text.into() }
    }
}

impl ResultPart {
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }
}

/// The text of a result's parts, as a reader sees it: text as is, an image
/// as its name in brackets.
pub fn result_text(parts: &[ResultPart]) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            ResultPart::Text { text } => out.push_str(text),
            ResultPart::Image { attachment } => {
                if !out.is_empty() && !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(&format!("[image {}]", attachment.name));
            }
        }
    }
    out
}

/// Decodes a row's content as written with `version`. A damaged version 1
/// row reads as its search text, so the message still shows.
pub(crate) fn decode(version: i64, content: &str, text: &str) -> crate::Result<Vec<Part>> {
    match version {
        1 => Ok(legacy::decode(content).unwrap_or_else(|| vec![Part::text(text)])),
        CONTENT_VERSION => serde_json::from_str(content)
            .map_err(|e| crate::Error::Corrupt(format!("message content: {e}"))),
        other => Err(crate::Error::Corrupt(format!(
            "message content version {other} is newer than this app reads"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn parts_round_trip_with_signatures_and_result_parts() {
        let parts = vec![
            Part::Reasoning {
                text: "think".into(),
                signature: Some("sig".into()),
                encrypted: None,
            },
            Part::ToolResult {
                call_id: "c1".into(),
                content: vec![ResultPart::text("ok")],
                is_error: false,
            },
        ];
        let encoded = serde_json::to_string(&parts).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&encoded).unwrap(),
            json!([
                {"type": "reasoning", "text": "think", "signature": "sig"},
                {"type": "tool_result", "call_id": "c1",
                 "content": [{"type": "text", "text": "ok"}], "is_error": false}
            ])
        );
        assert_eq!(decode(CONTENT_VERSION, &encoded, "").unwrap(), parts);
    }

    #[test]
    fn sources_round_trip_without_empty_fields() {
        let parts = vec![
            Part::text("Rome"),
            Part::Sources {
                sources: vec![
                    CitedSource {
                        url: Some("https://a.example/".into()),
                        title: Some("A".into()),
                        cited_text: None,
                    },
                    CitedSource {
                        url: None,
                        title: Some("notes.pdf".into()),
                        cited_text: Some("page one".into()),
                    },
                ],
            },
        ];
        let encoded = serde_json::to_string(&parts).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&encoded).unwrap()[1],
            json!({"type": "sources", "sources": [
                {"url": "https://a.example/", "title": "A"},
                {"title": "notes.pdf", "cited_text": "page one"}
            ]})
        );
        assert_eq!(decode(CONTENT_VERSION, &encoded, "").unwrap(), parts);
    }

    #[test]
    fn a_newer_version_is_refused_not_guessed() {
        assert!(decode(CONTENT_VERSION + 1, "[]", "").is_err());
        assert_eq!(decode(1, "{}", "plain").unwrap(), vec![Part::text("plain")]);
    }

    #[test]
    fn result_text_names_images() {
        let image = ResultPart::Image {
            attachment: AttachmentRef {
                id: "a".into(),
                name: "chart.png".into(),
                mime: "image/png".into(),
                size: 3,
            },
        };
        assert_eq!(
            result_text(&[ResultPart::text("see"), image]),
            "see\n[image chart.png]"
        );
    }
}
