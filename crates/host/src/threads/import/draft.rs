//! What every format is read into, and how that becomes threads to store:
//! times filled in, attachments found by hash, tool calls paired with their
//! results, and the search text of each message.

use std::collections::{HashMap, HashSet};

use pizza_protocol::{AttachmentKind, ImportConversation, Role, attachment_kind};
use pizza_store::{
    AttachmentRef, ImportedMessage, ImportedThread, NewMessage, Part, ResultPart,
    transcript::result_text,
};

/// The store's title limit, in characters.
const TITLE_MAX_CHARS: usize = 200;
/// The most characters of a tool result indexed for search (as the agent does).
const RESULT_SEARCH_CHARS: usize = 4_000;
/// The result given to a tool call the file has none for, so the thread
/// stays one a model accepts.
const NO_RESULT: &str = "No result: the call had none in the imported file.";

/// One conversation as read from a file.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Conversation {
    pub(super) title: Option<String>,
    pub(super) created_at: Option<i64>,
    pub(super) updated_at: Option<i64>,
    pub(super) messages: Vec<Draft>,
}

/// One message as read from a file.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Draft {
    pub(super) role: Role,
    pub(super) parts: Vec<DraftPart>,
    pub(super) created_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum DraftPart {
    Stored(Part),
    /// A file an export names by its hash, not its bytes.
    Attachment {
        name: String,
        mime: String,
        sha256: Option<String>,
    },
}

impl Draft {
    pub(super) fn new(role: Role, created_at: Option<i64>) -> Self {
        Self {
            role,
            parts: Vec::new(),
            created_at,
        }
    }

    pub(super) fn push(&mut self, part: Part) {
        self.parts.push(DraftPart::Stored(part));
    }
}

impl Conversation {
    /// Appends `draft`, joining it to the previous message when both are
    /// the person's or both the assistant's: an export that splits one turn
    /// (thinking, then text) shows as one message.
    pub(super) fn push_joined(&mut self, draft: Draft) {
        if draft.parts.is_empty() {
            return;
        }
        match self.messages.last_mut() {
            Some(last)
                if last.role == draft.role
                    && matches!(draft.role, Role::User | Role::Assistant) =>
            {
                last.parts.extend(draft.parts);
            }
            _ => self.messages.push(draft),
        }
    }

    /// Created and updated times: the file's, else the first and last
    /// message's, else `now`.
    fn times(&self, now: i64) -> (i64, i64) {
        let first = self.messages.iter().find_map(|m| m.created_at);
        let last = self.messages.iter().rev().find_map(|m| m.created_at);
        let created = self.created_at.or(first).unwrap_or(now);
        let updated = self.updated_at.or(last).unwrap_or(created).max(created);
        (created, updated)
    }

    fn title(&self) -> Option<String> {
        let title = self.title.as_deref()?.trim();
        (!title.is_empty()).then(|| title.chars().take(TITLE_MAX_CHARS).collect())
    }

    /// How the preview lists it.
    pub(super) fn preview(&self, now: i64) -> ImportConversation {
        let (created_at, updated_at) = self.times(now);
        ImportConversation {
            title: self
                .title()
                .or_else(|| first_user_line(&self.messages))
                .unwrap_or_else(|| "Untitled".to_owned()),
            created_at,
            updated_at,
            messages: self.messages.len() as u64,
        }
    }

    /// The thread to store. `files` are the attachments this app has, by
    /// hash; a file it does not have becomes a notice naming it.
    pub(super) fn into_thread(
        self,
        files: &HashMap<String, AttachmentRef>,
        now: i64,
        metadata: serde_json::Value,
    ) -> ImportedThread {
        let (created_at, updated_at) = self.times(now);
        let title = self.title();
        let mut messages = Vec::with_capacity(self.messages.len());
        let mut at = created_at;
        for draft in answered(self.messages) {
            // A message without a time takes the one before it.
            at = draft.created_at.unwrap_or(at);
            let parts: Vec<Part> = draft
                .parts
                .into_iter()
                .map(|part| resolve(part, files))
                .collect();
            messages.push(ImportedMessage {
                message: new_message(draft.role, parts),
                created_at: at,
            });
        }
        ImportedThread {
            title,
            created_at,
            updated_at,
            messages,
            metadata,
        }
    }
}

fn first_user_line(messages: &[Draft]) -> Option<String> {
    messages
        .iter()
        .filter(|m| m.role == Role::User)
        .flat_map(|m| &m.parts)
        .find_map(|part| match part {
            DraftPart::Stored(Part::Text { text }) => text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| l.chars().take(60).collect()),
            _ => None,
        })
}

/// The message with the ids the store pairs calls and results by, and the
/// text search indexes.
fn new_message(role: Role, parts: Vec<Part>) -> NewMessage {
    let calls: Vec<String> = parts
        .iter()
        .filter_map(|part| match part {
            Part::ToolCall { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect();
    let answers = parts.iter().find_map(|part| match part {
        Part::ToolResult { call_id, .. } => Some(call_id.clone()),
        _ => None,
    });
    let text = search_text(role, &parts);
    let mut message = NewMessage::new(role, parts, text);
    if role == Role::Assistant {
        message = message.with_tool_calls(calls);
    }
    if role == Role::Tool
        && let Some(call) = answers
    {
        message = message.answering(call);
    }
    message
}

/// What search finds a message by: its text, a tool's result (the start
/// of it), a notice of the app's, the names of its files.
fn search_text(role: Role, parts: &[Part]) -> String {
    let mut pieces: Vec<String> = Vec::new();
    for part in parts {
        match part {
            Part::Text { text } => pieces.push(text.clone()),
            Part::ToolResult { content, .. } => {
                pieces.push(
                    result_text(content)
                        .chars()
                        .take(RESULT_SEARCH_CHARS)
                        .collect(),
                );
            }
            Part::Notice { text } if role == Role::System => pieces.push(text.clone()),
            Part::Image { attachment } | Part::Document { attachment } => {
                pieces.push(format!("[{}]", attachment.name));
            }
            _ => {}
        }
    }
    pieces.join("\n")
}

/// A stored part; an attachment this app has by hash is linked again.
fn resolve(part: DraftPart, files: &HashMap<String, AttachmentRef>) -> Part {
    match part {
        DraftPart::Stored(part) => part,
        DraftPart::Attachment { name, mime, sha256 } => {
            match sha256.as_deref().and_then(|hash| files.get(hash)) {
                Some(found) => {
                    let attachment = AttachmentRef {
                        name,
                        ..found.clone()
                    };
                    if attachment_kind(&mime) == AttachmentKind::Image {
                        Part::Image { attachment }
                    } else {
                        Part::Document { attachment }
                    }
                }
                None => Part::notice(format!(
                    "📎 {name} was not imported: the export names the file but does not carry it."
                )),
            }
        }
    }
}

/// The hashes of the files the conversations name.
pub(super) fn attachment_hashes(conversations: &[Conversation]) -> Vec<String> {
    let mut hashes: Vec<String> = conversations
        .iter()
        .flat_map(|c| &c.messages)
        .flat_map(|m| &m.parts)
        .filter_map(|part| match part {
            DraftPart::Attachment {
                sha256: Some(hash), ..
            } => Some(hash.clone()),
            _ => None,
        })
        .collect();
    hashes.sort();
    hashes.dedup();
    hashes
}

/// The messages with a result added for every tool call that has none,
/// right after the results the call's message does have.
fn answered(messages: Vec<Draft>) -> Vec<Draft> {
    let answered: HashSet<String> = messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|part| match part {
            DraftPart::Stored(Part::ToolResult { call_id, .. }) => Some(call_id.clone()),
            _ => None,
        })
        .collect();
    let mut out = Vec::with_capacity(messages.len());
    let mut owed: Vec<(String, Option<i64>)> = Vec::new();
    for draft in messages {
        if draft.role != Role::Tool {
            settle(&mut out, &mut owed);
        }
        if draft.role == Role::Assistant {
            for part in &draft.parts {
                if let DraftPart::Stored(Part::ToolCall { id, .. }) = part
                    && !answered.contains(id)
                {
                    owed.push((id.clone(), draft.created_at));
                }
            }
        }
        out.push(draft);
    }
    settle(&mut out, &mut owed);
    out
}

fn settle(out: &mut Vec<Draft>, owed: &mut Vec<(String, Option<i64>)>) {
    for (call_id, created_at) in owed.drain(..) {
        let mut result = Draft::new(Role::Tool, created_at);
        result.push(Part::ToolResult {
            call_id,
            content: vec![ResultPart::text(NO_RESULT)],
            is_error: true,
        });
        out.push(result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn call(id: &str) -> Part {
        Part::ToolCall {
            id: id.into(),
            name: "read_file".into(),
            arguments: json!({}),
        }
    }

    #[test]
    fn a_call_without_result_gets_one_after_its_answered_siblings() {
        let mut ask = Draft::new(Role::Assistant, Some(5));
        ask.push(call("a"));
        ask.push(call("b"));
        let mut result = Draft::new(Role::Tool, Some(6));
        result.push(Part::ToolResult {
            call_id: "a".into(),
            content: vec![ResultPart::text("ok")],
            is_error: false,
        });
        let mut next = Draft::new(Role::User, Some(7));
        next.push(Part::text("thanks"));
        let out = answered(vec![ask, result, next]);
        let roles: Vec<Role> = out.iter().map(|d| d.role).collect();
        assert_eq!(roles, [Role::Assistant, Role::Tool, Role::Tool, Role::User]);
        assert!(matches!(
            &out[2].parts[0],
            DraftPart::Stored(Part::ToolResult { call_id, is_error: true, .. }) if call_id == "b"
        ));
    }

    #[test]
    fn consecutive_turns_of_one_side_join() {
        let mut conversation = Conversation::default();
        for text in ["thinking", "answer"] {
            let mut draft = Draft::new(Role::Assistant, None);
            draft.push(Part::text(text));
            conversation.push_joined(draft);
        }
        conversation.push_joined(Draft::new(Role::User, None));
        assert_eq!(conversation.messages.len(), 1);
        assert_eq!(conversation.messages[0].parts.len(), 2);
    }

    #[test]
    fn a_missing_file_becomes_a_notice_and_a_known_one_a_link() {
        let known = AttachmentRef {
            id: "id1".into(),
            name: "old.png".into(),
            mime: "image/png".into(),
            size: 3,
        };
        let files = HashMap::from([("h1".to_owned(), known)]);
        let part = |sha: &str| DraftPart::Attachment {
            name: "chart.png".into(),
            mime: "image/png".into(),
            sha256: Some(sha.into()),
        };
        assert!(matches!(
            resolve(part("h1"), &files),
            Part::Image { attachment } if attachment.id == "id1" && attachment.name == "chart.png"
        ));
        assert!(
            matches!(resolve(part("h2"), &files), Part::Notice { text } if text.contains("chart.png"))
        );
    }
}
