//! A thread Pizza Bot exported as JSON Lines: one message per line, as the
//! window shows it, with attachments named by hash (`thread_export`).

use std::collections::HashSet;

use pizza_protocol::Role;
use pizza_store::{Part, ResultPart};
use serde::Deserialize;
use serde_json::Value;

use super::draft::{Conversation, Draft, DraftPart};
use super::{ImportError, json_error};

/// One line of the export; `id` and `seq` are the old thread's and are
/// not kept.
#[derive(Deserialize)]
struct Line {
    role: Role,
    parts: Vec<Value>,
    #[serde(default)]
    created_at: Option<i64>,
}

/// An attachment as the export names it.
#[derive(Deserialize)]
struct NamedFile {
    name: String,
    #[serde(default)]
    mime: Option<String>,
    #[serde(default)]
    sha256: Option<String>,
}

/// A tool result as the window shows it: its text.
#[derive(Deserialize)]
struct ShownResult {
    call_id: String,
    content: String,
    #[serde(default)]
    is_error: bool,
}

/// The one conversation of the file, titled `title` (the export's file
/// name is the thread's title unless the person changed it).
pub(super) fn parse(text: &str, title: Option<String>) -> Result<Conversation, ImportError> {
    let mut conversation = Conversation {
        title,
        ..Conversation::default()
    };
    let mut calls = CallLedger::default();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(line)
            .map_err(|e| ImportError::Json(json_error(&e, Some(number))))?;
        let mut draft = Draft::new(line.role, line.created_at);
        for (at, part) in line.parts.into_iter().enumerate() {
            let part = parse_part(part)
                .map_err(|e| ImportError::line(number, format!("part {}: {e}", at + 1)))?;
            if let DraftPart::Stored(stored) = &part {
                calls
                    .check(line.role, stored)
                    .map_err(|e| ImportError::line(number, e))?;
            }
            draft.parts.push(part);
        }
        if line.role == Role::Tool {
            calls
                .check_tool_message(&draft)
                .map_err(|e| ImportError::line(number, e))?;
        }
        conversation.messages.push(draft);
    }
    if conversation.messages.is_empty() {
        return Err(ImportError::Empty);
    }
    Ok(conversation)
}

fn parse_part(part: Value) -> Result<DraftPart, String> {
    let kind = part
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    match kind.as_str() {
        "attachment" => {
            let file: NamedFile = serde_json::from_value(part).map_err(|e| e.to_string())?;
            Ok(DraftPart::Attachment {
                mime: file
                    .mime
                    .unwrap_or_else(|| "application/octet-stream".to_owned()),
                name: file.name,
                sha256: file.sha256,
            })
        }
        "tool_result" => {
            let result: ShownResult = serde_json::from_value(part).map_err(|e| e.to_string())?;
            Ok(DraftPart::Stored(Part::ToolResult {
                call_id: result.call_id,
                content: vec![ResultPart::text(result.content)],
                is_error: result.is_error,
            }))
        }
        // Only by hash: an id of this app's files is not the export's to name.
        "image" | "document" => Err("a file is named by an `attachment` part".to_owned()),
        _ => serde_json::from_value::<Part>(part)
            .map(DraftPart::Stored)
            .map_err(|e| format!("not a message part Pizza Bot knows ({e})")),
    }
}

/// The tool calls made so far, and which have their result: a result must
/// answer a call made before it, once.
#[derive(Default)]
struct CallLedger {
    made: HashSet<String>,
    answered: HashSet<String>,
}

impl CallLedger {
    fn check(&mut self, role: Role, part: &Part) -> Result<(), String> {
        match part {
            Part::ToolCall { id, .. } => {
                if role != Role::Assistant {
                    return Err("only the assistant's messages make tool calls".to_owned());
                }
                if id.trim().is_empty() || !self.made.insert(id.clone()) {
                    return Err(format!("the tool call id “{id}” is empty or used twice"));
                }
            }
            Part::ToolResult { call_id, .. } => {
                if role != Role::Tool {
                    return Err("only tool messages carry a tool's result".to_owned());
                }
                if !self.made.contains(call_id) {
                    return Err(format!(
                        "the result answers the call “{call_id}”, which no earlier line makes"
                    ));
                }
                if !self.answered.insert(call_id.clone()) {
                    return Err(format!("the call “{call_id}” already has a result"));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn check_tool_message(&self, draft: &Draft) -> Result<(), String> {
        let results = draft
            .parts
            .iter()
            .filter(|part| matches!(part, DraftPart::Stored(Part::ToolResult { .. })))
            .count();
        match results {
            1 => Ok(()),
            0 => Err("a tool message has no tool result".to_owned()),
            _ => Err("a tool message carries more than one result".to_owned()),
        }
    }
}
