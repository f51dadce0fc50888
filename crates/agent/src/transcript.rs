//! The agent's two readings of the stored transcript
//! ([`pizza_store::Part`]): what it stores for a model's answer or a tool's
//! result, and what the model is sent. (What the window is shown is derived
//! by the store, [`pizza_store::transcript::view`].)

use std::collections::HashSet;

use pizza_llm::{ContentPart, Message as LlmMessage, Role as LlmRole, ToolCall};
use pizza_store::{
    AttachmentRef, CitedSource, Message as StoredMessage, NewMessage, Part, ResultPart, Role,
};
use pizza_tools::{OutputPart, ToolOutput};
use serde_json::Value;

use crate::error::Result;

/// The most characters of a tool result indexed for search.
const RESULT_SEARCH_CHARS: usize = 4_000;

/// The person's message: its text, then its attachments as references. The
/// search text names the attachments too.
pub(crate) fn user_message(text: &str, attachments: &[AttachmentRef]) -> NewMessage {
    let mut parts = Vec::new();
    if !text.is_empty() || attachments.is_empty() {
        parts.push(Part::text(text));
    }
    let mut search = text.to_owned();
    for attachment in attachments {
        search.push_str(&format!("\n[{}]", attachment.name));
        let attachment = attachment.clone();
        parts.push(
            if pizza_protocol::attachment_kind(&attachment.mime)
                == pizza_protocol::AttachmentKind::Image
            {
                Part::Image { attachment }
            } else {
                Part::Document { attachment }
            },
        );
    }
    NewMessage::new(Role::User, parts, search.trim_start())
}

/// A notice the app adds to the thread; never sent to the model.
pub(crate) fn notice_message(text: &str) -> NewMessage {
    NewMessage::new(Role::System, vec![Part::notice(text)], text)
}

/// A tool result made of one text (the agent's own results: a refusal, a
/// cancel, the person's answer).
pub(crate) fn tool_result_message(call_id: &str, result: &str, is_error: bool) -> NewMessage {
    tool_output_message(
        call_id,
        &ToolOutput {
            parts: vec![OutputPart::Text(result.to_owned())],
            is_error,
        },
    )
}

/// A tool's output as the result of `call_id`.
pub(crate) fn tool_output_message(call_id: &str, output: &ToolOutput) -> NewMessage {
    let content = output
        .parts
        .iter()
        .map(|part| match part {
            OutputPart::Text(text) => ResultPart::text(text.clone()),
            OutputPart::Image { name, .. } => ResultPart::text(format!("[image {name} not kept]")),
        })
        .collect();
    tool_parts_message(call_id, output, content)
}

/// A tool's result with its parts as stored (images as attachment
/// references, see [`crate::attachments`]).
pub(crate) fn tool_parts_message(
    call_id: &str,
    output: &ToolOutput,
    content: Vec<ResultPart>,
) -> NewMessage {
    let parts = vec![Part::ToolResult {
        call_id: call_id.to_owned(),
        content,
        is_error: output.is_error,
    }];
    let text: String = output.to_text().chars().take(RESULT_SEARCH_CHARS).collect();
    NewMessage::new(Role::Tool, parts, text).answering(call_id)
}

/// The assistant message to store for a model's answer: its text, its
/// reasoning with the signature or encrypted payload the provider needs to
/// accept it again, its tool calls, and last what it cites.
pub(crate) fn assistant_message(
    message: &LlmMessage,
    sources: &[pizza_llm::Source],
) -> Option<NewMessage> {
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    for part in &message.content {
        match part {
            ContentPart::Text { text } if !text.is_empty() => parts.push(Part::text(text.clone())),
            ContentPart::Reasoning {
                text,
                signature,
                encrypted,
            } if !text.is_empty() || signature.is_some() || encrypted.is_some() => {
                parts.push(Part::Reasoning {
                    text: text.clone(),
                    signature: signature.clone(),
                    encrypted: encrypted.clone(),
                });
            }
            ContentPart::ToolCall(call) => {
                calls.push(call.id.clone());
                parts.push(Part::ToolCall {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                });
            }
            _ => {}
        }
    }
    if parts.is_empty() {
        return None;
    }
    if !sources.is_empty() {
        parts.push(Part::Sources {
            sources: sources
                .iter()
                .map(|source| CitedSource {
                    url: source.url.clone(),
                    title: source.title.clone(),
                    cited_text: source.cited_text.clone(),
                })
                .collect(),
        });
    }
    Some(NewMessage::new(Role::Assistant, parts, message.text()).with_tool_calls(calls))
}

/// One stored message as the model reads it, or `None` for what the model
/// never sees (notices, app system rows, turns with nothing left to send).
/// Sources stay behind: no provider takes citations back as input.
/// Reasoning goes back with its signature so the provider accepts the turn;
/// reasoning without one (written before signatures were kept) is dropped,
/// as a provider would refuse it.
pub(crate) fn to_model_message(message: &StoredMessage) -> Result<Option<LlmMessage>> {
    let role = match message.role {
        Role::System => return Ok(None),
        Role::User => LlmRole::User,
        Role::Assistant => LlmRole::Assistant,
        Role::Tool => LlmRole::Tool,
    };
    let mut out = Vec::new();
    for part in &message.content {
        match part {
            Part::Text { text } => out.push(ContentPart::text(text.clone())),
            Part::Reasoning {
                text,
                signature,
                encrypted,
            } if signature.is_some() || encrypted.is_some() => {
                out.push(ContentPart::Reasoning {
                    text: text.clone(),
                    signature: signature.clone(),
                    encrypted: encrypted.clone(),
                });
            }
            Part::ToolCall {
                id,
                name,
                arguments,
            } => out.push(ContentPart::ToolCall(ToolCall {
                id: id.clone(),
                name: name.clone(),
                arguments: arguments.clone(),
            })),
            Part::ToolResult {
                call_id,
                content,
                is_error,
            } => out.push(ContentPart::ToolResult {
                call_id: call_id.clone(),
                content: content.iter().map(result_part).collect(),
                is_error: *is_error,
            }),
            Part::Image { attachment } | Part::Document { attachment } => {
                out.push(attachment_reference(attachment, part));
            }
            Part::Reasoning { .. } | Part::Notice { .. } | Part::Sources { .. } => {}
        }
    }
    // A turn of only reasoning carries nothing the model can use.
    let meaningful = out
        .iter()
        .any(|p| !matches!(p, ContentPart::Reasoning { .. }));
    Ok(meaningful.then(|| LlmMessage::new(role, out)))
}

fn result_part(part: &ResultPart) -> ContentPart {
    match part {
        ResultPart::Text { text } => ContentPart::text(text.clone()),
        ResultPart::Image { attachment } => ContentPart::Image {
            source: pizza_llm::ImageSource::Reference {
                uri: format!("attachment://{}", attachment.id),
                media_type: Some(attachment.mime.clone()),
            },
        },
    }
}

/// An attachment stays a reference here; it is inlined (or explained) just
/// before the model call, never stored as bytes in the transcript.
fn attachment_reference(attachment: &pizza_store::AttachmentRef, part: &Part) -> ContentPart {
    let uri = format!("attachment://{}", attachment.id);
    let media_type = Some(attachment.mime.clone());
    match part {
        Part::Document { .. } => ContentPart::Document {
            source: pizza_llm::DocumentSource::Reference { uri, media_type },
            name: Some(attachment.name.clone()),
        },
        _ => ContentPart::Image {
            source: pizza_llm::ImageSource::Reference { uri, media_type },
        },
    }
}

/// A tool call of the last assistant turn that has no committed result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PendingCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: Value,
}

/// The calls of the newest assistant message not yet answered by a tool
/// message after it. A user message after it means the turn was closed.
pub(crate) fn pending_calls(messages: &[StoredMessage]) -> Result<Vec<PendingCall>> {
    let mut answered = HashSet::new();
    for message in messages.iter().rev() {
        match message.role {
            Role::Tool => {
                if let Some(id) = &message.tool_call_id {
                    answered.insert(id.clone());
                }
            }
            Role::System => {}
            Role::User => return Ok(Vec::new()),
            Role::Assistant => {
                let pending = message
                    .content
                    .iter()
                    .filter_map(|part| match part {
                        Part::ToolCall {
                            id,
                            name,
                            arguments,
                        } if !answered.contains(id) => Some(PendingCall {
                            id: id.clone(),
                            name: name.clone(),
                            arguments: arguments.clone(),
                        }),
                        _ => None,
                    })
                    .collect();
                return Ok(pending);
            }
        }
    }
    Ok(Vec::new())
}

/// True if the newest message the model would see is its own final answer
/// or an app notice that ended the turn: there is nothing to do.
pub(crate) fn turn_is_over(messages: &[StoredMessage]) -> bool {
    matches!(
        messages.last().map(|m| m.role),
        None | Some(Role::Assistant | Role::System)
    )
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
