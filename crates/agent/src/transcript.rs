//! The stored transcript (`Vec<MessagePart>` JSON per message) and its two
//! readings: what the model is sent, and what the UI is shown.

use std::collections::HashSet;

use pizza_llm::{ContentPart, Message as LlmMessage, Role as LlmRole, ToolCall};
use pizza_protocol::{MessagePart, MessageView, Role as ViewRole};
use pizza_store::{Message as StoredMessage, NewMessage, Role};
use serde_json::Value;

use crate::error::{Error, Result};

/// The most characters of a tool result indexed for search.
const RESULT_SEARCH_CHARS: usize = 4_000;

pub(crate) fn parts_of(message: &StoredMessage) -> Result<Vec<MessagePart>> {
    serde_json::from_value(message.content.clone())
        .map_err(|e| Error::Corrupt(format!("message {}: {e}", message.id)))
}

fn content(parts: &[MessagePart]) -> Value {
    // A Vec of plain enums always serializes.
    serde_json::to_value(parts).unwrap_or(Value::Array(Vec::new()))
}

pub(crate) fn user_message(text: &str) -> NewMessage {
    let parts = vec![MessagePart::Text {
        text: text.to_owned(),
    }];
    NewMessage::new(Role::User, content(&parts), text)
}

/// A notice the app adds to the thread; never sent to the model.
pub(crate) fn notice_message(text: &str) -> NewMessage {
    let parts = vec![MessagePart::Notice {
        text: text.to_owned(),
    }];
    NewMessage::new(Role::System, content(&parts), text)
}

pub(crate) fn tool_result_message(call_id: &str, result: &str, is_error: bool) -> NewMessage {
    let parts = vec![MessagePart::ToolResult {
        call_id: call_id.to_owned(),
        content: result.to_owned(),
        is_error,
    }];
    let text: String = result.chars().take(RESULT_SEARCH_CHARS).collect();
    NewMessage::new(Role::Tool, content(&parts), text).answering(call_id)
}

/// The assistant message to store for a model's answer. Reasoning keeps its
/// text only: `MessagePart` has no slot for signatures, so reasoning is not
/// replayed to the model (see [`to_model_messages`]).
pub(crate) fn assistant_message(message: &LlmMessage) -> Option<NewMessage> {
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    for part in &message.content {
        match part {
            ContentPart::Text { text } if !text.is_empty() => {
                parts.push(MessagePart::Text { text: text.clone() });
            }
            ContentPart::Reasoning { text, .. } if !text.is_empty() => {
                parts.push(MessagePart::Reasoning { text: text.clone() });
            }
            ContentPart::ToolCall(call) => {
                calls.push(call.id.clone());
                parts.push(MessagePart::ToolCall {
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
    Some(NewMessage::new(Role::Assistant, content(&parts), message.text()).with_tool_calls(calls))
}

/// The stored message as the UI shows it.
pub(crate) fn view(message: &StoredMessage) -> Result<MessageView> {
    Ok(MessageView {
        id: message.id.clone(),
        seq: message.seq,
        role: match message.role {
            Role::System => ViewRole::System,
            Role::User => ViewRole::User,
            Role::Assistant => ViewRole::Assistant,
            Role::Tool => ViewRole::Tool,
        },
        parts: parts_of(message)?,
        created_at: message.created_at,
    })
}

/// One stored message as the model reads it, or `None` for what the model
/// never sees (notices, app system rows, reasoning-only turns).
pub(crate) fn to_model_message(message: &StoredMessage) -> Result<Option<LlmMessage>> {
    let role = match message.role {
        Role::System => return Ok(None),
        Role::User => LlmRole::User,
        Role::Assistant => LlmRole::Assistant,
        Role::Tool => LlmRole::Tool,
    };
    let mut out = Vec::new();
    for part in parts_of(message)? {
        match part {
            MessagePart::Text { text } => out.push(ContentPart::Text { text }),
            MessagePart::ToolCall {
                id,
                name,
                arguments,
            } => out.push(ContentPart::ToolCall(ToolCall {
                id,
                name,
                arguments,
            })),
            MessagePart::ToolResult {
                call_id,
                content,
                is_error,
            } => out.push(ContentPart::ToolResult {
                call_id,
                content: vec![ContentPart::Text { text: content }],
                is_error,
            }),
            // Without its signature a provider would reject replayed reasoning.
            MessagePart::Reasoning { .. } | MessagePart::Notice { .. } => {}
        }
    }
    Ok((!out.is_empty()).then(|| LlmMessage::new(role, out)))
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
                let mut pending = Vec::new();
                for part in parts_of(message)? {
                    if let MessagePart::ToolCall {
                        id,
                        name,
                        arguments,
                    } = part
                        && !answered.contains(&id)
                    {
                        pending.push(PendingCall {
                            id,
                            name,
                            arguments,
                        });
                    }
                }
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
