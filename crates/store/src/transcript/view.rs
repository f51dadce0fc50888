//! The one place a stored message becomes what the window shows.

use pizza_protocol::{MessagePart, MessageView, Source};

use super::{Part, result_text};
use crate::messages::Message;

/// The message as the feed renders it.
pub fn view(message: &Message) -> MessageView {
    MessageView {
        id: message.id.clone(),
        seq: message.seq,
        role: message.role,
        parts: message.content.iter().map(view_part).collect(),
        created_at: message.created_at,
    }
}

fn view_part(part: &Part) -> MessagePart {
    match part {
        Part::Text { text } => MessagePart::Text { text: text.clone() },
        Part::Reasoning { text, .. } => MessagePart::Reasoning { text: text.clone() },
        Part::Image { attachment } | Part::Document { attachment } => MessagePart::Attachment {
            attachment: attachment.view(),
        },
        Part::ToolCall {
            id,
            name,
            arguments,
        } => MessagePart::ToolCall {
            id: id.clone(),
            name: name.clone(),
            arguments: arguments.clone(),
        },
        Part::ToolResult {
            call_id,
            content,
            is_error,
        } => MessagePart::ToolResult {
            call_id: call_id.clone(),
            content: result_text(content),
            is_error: *is_error,
        },
        Part::Notice { text } => MessagePart::Notice { text: text.clone() },
        Part::Sources { sources } => MessagePart::Sources {
            sources: sources
                .iter()
                .map(|source| Source {
                    url: source.url.clone(),
                    title: source.title.clone(),
                    cited_text: source.cited_text.clone(),
                })
                .collect(),
        },
    }
}
