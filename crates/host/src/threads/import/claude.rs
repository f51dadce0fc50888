//! Claude.ai's data export, `conversations.json`: each conversation is a
//! flat list of messages from the human and the assistant.

use pizza_protocol::Role;
use pizza_store::Part;
use serde::Deserialize;

use super::draft::{Conversation, Draft};

#[derive(Deserialize)]
pub(super) struct ClaudeConversation {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
    chat_messages: Vec<Message>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    sender: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    content: Vec<Block>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    attachments: Vec<File>,
    #[serde(default)]
    files: Vec<File>,
}

#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    file_name: Option<String>,
}

/// An RFC 3339 time in milliseconds; `None` for what is no time (the
/// conversation's or the file's other times stand in).
fn ms(time: Option<&str>) -> Option<i64> {
    time?
        .parse::<jiff::Timestamp>()
        .ok()
        .map(jiff::Timestamp::as_millisecond)
}

impl ClaudeConversation {
    pub(super) fn into_conversation(self) -> Conversation {
        let mut conversation = Conversation {
            title: self.name,
            created_at: ms(self.created_at.as_deref()),
            updated_at: ms(self.updated_at.as_deref()),
            messages: Vec::new(),
        };
        for message in self.chat_messages {
            if let Some(draft) = draft(message) {
                conversation.push_joined(draft);
            }
        }
        conversation
    }
}

fn draft(message: Message) -> Option<Draft> {
    let role = match message.sender.as_str() {
        "human" => Role::User,
        "assistant" => Role::Assistant,
        _ => return None,
    };
    let mut draft = Draft::new(role, ms(message.created_at.as_deref()));
    let mut has_text = false;
    for block in message.content {
        match (block.kind.as_str(), block.text, block.thinking) {
            ("text", Some(text), _) if !text.trim().is_empty() => {
                has_text = true;
                draft.push(Part::text(text));
            }
            ("thinking", _, Some(thinking)) if !thinking.trim().is_empty() => {
                draft.push(Part::Reasoning {
                    text: thinking,
                    signature: None,
                    encrypted: None,
                });
            }
            // Tool use and results have no pairs to keep here.
            _ => {}
        }
    }
    // Older exports have only the flat `text`.
    if !has_text && let Some(text) = message.text.filter(|t| !t.trim().is_empty()) {
        draft.push(Part::text(text));
    }
    let names: Vec<String> = message
        .attachments
        .into_iter()
        .chain(message.files)
        .filter_map(|f| f.file_name)
        .filter(|n| !n.trim().is_empty())
        .collect();
    if !names.is_empty() {
        draft.push(Part::notice(format!(
            "📎 {} not imported: Claude's export does not carry the files.",
            names.join(", ")
        )));
    }
    (!draft.parts.is_empty()).then_some(draft)
}
