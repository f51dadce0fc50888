//! ChatGPT's data export, `conversations.json`: each conversation is a tree
//! of nodes (`mapping`) whose branches are the edits and regenerations; the
//! one the person last saw ends at `current_node`.

use std::collections::{HashMap, HashSet};

use pizza_protocol::Role;
use pizza_store::Part;
use serde::Deserialize;
use serde_json::Value;

use super::draft::{Conversation, Draft};

#[derive(Deserialize)]
pub(super) struct GptConversation {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    create_time: Option<f64>,
    #[serde(default)]
    update_time: Option<f64>,
    mapping: HashMap<String, Node>,
    #[serde(default)]
    current_node: Option<String>,
}

#[derive(Deserialize)]
struct Node {
    #[serde(default)]
    message: Option<Message>,
    #[serde(default)]
    parent: Option<String>,
    #[serde(default)]
    children: Vec<String>,
}

#[derive(Deserialize)]
struct Message {
    author: Author,
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    create_time: Option<f64>,
    #[serde(default)]
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
struct Author {
    role: String,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    content_type: String,
    #[serde(default)]
    parts: Vec<Value>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    thoughts: Vec<Thought>,
}

#[derive(Deserialize)]
struct Thought {
    #[serde(default)]
    content: String,
}

#[derive(Deserialize, Default)]
struct Metadata {
    #[serde(default)]
    is_visually_hidden_from_conversation: bool,
}

/// Seconds (with a fraction) to milliseconds; `None` for what is no time.
fn ms(seconds: Option<f64>) -> Option<i64> {
    let seconds = seconds.filter(|s| s.is_finite() && *s > 0.0 && *s < 1e11)?;
    // In range by the filter: at most 1e14 ms.
    #[allow(clippy::cast_possible_truncation)]
    Some((seconds * 1000.0).round() as i64)
}

impl GptConversation {
    pub(super) fn into_conversation(self) -> Conversation {
        let mut conversation = Conversation {
            title: self.title.clone(),
            created_at: ms(self.create_time),
            updated_at: ms(self.update_time),
            messages: Vec::new(),
        };
        for id in self.branch() {
            let Some(message) = self.mapping.get(&id).and_then(|n| n.message.as_ref()) else {
                continue;
            };
            if let Some(draft) = draft(message) {
                conversation.push_joined(draft);
            }
        }
        conversation
    }

    /// The node ids from the root to `current_node` (or, without one, to
    /// the newest leaf), in order.
    fn branch(&self) -> Vec<String> {
        let end = self
            .current_node
            .clone()
            .filter(|id| self.mapping.contains_key(id))
            .or_else(|| self.newest_leaf());
        let mut path = Vec::new();
        let mut seen = HashSet::new();
        let mut at = end;
        // `seen` stops a damaged file whose parents loop.
        while let Some(id) = at {
            if !seen.insert(id.clone()) {
                break;
            }
            at = self.mapping.get(&id).and_then(|n| n.parent.clone());
            path.push(id);
        }
        path.reverse();
        path
    }

    fn newest_leaf(&self) -> Option<String> {
        self.mapping
            .iter()
            .filter(|(_, node)| node.children.is_empty())
            .max_by(|(a_id, a), (b_id, b)| {
                let time = |n: &Node| n.message.as_ref().and_then(|m| m.create_time);
                time(a)
                    .partial_cmp(&time(b))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| a_id.cmp(b_id))
            })
            .map(|(id, _)| id.clone())
    }
}

/// The message as the person saw it, or `None` for what ChatGPT does not
/// show: system and tool messages, hidden context, empty turns.
fn draft(message: &Message) -> Option<Draft> {
    let role = match message.author.role.as_str() {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        _ => return None,
    };
    let hidden = message
        .metadata
        .as_ref()
        .is_some_and(|m| m.is_visually_hidden_from_conversation);
    if hidden {
        return None;
    }
    let content = message.content.as_ref()?;
    let mut draft = Draft::new(role, ms(message.create_time));
    match content.content_type.as_str() {
        "thoughts" => {
            let text = joined(content.thoughts.iter().map(|t| t.content.as_str()));
            if !text.is_empty() {
                draft.push(Part::Reasoning {
                    text,
                    signature: None,
                    encrypted: None,
                });
            }
        }
        "code" => {
            let code = content.text.as_deref().unwrap_or_default().trim_end();
            if !code.trim().is_empty() {
                let language = content
                    .language
                    .as_deref()
                    .filter(|l| *l != "unknown")
                    .unwrap_or_default();
                draft.push(Part::text(format!("```{language}\n{code}\n```")));
            }
        }
        // Context the person set up (custom instructions, memory), and the
        // "Thought for 5 seconds" line: not part of the conversation.
        "user_editable_context" | "model_editable_context" | "reasoning_recap" => return None,
        _ => {
            let mut images = 0;
            let mut texts = Vec::new();
            for part in &content.parts {
                match part {
                    Value::String(text) => texts.push(text.as_str()),
                    Value::Object(object)
                        if object
                            .get("content_type")
                            .and_then(Value::as_str)
                            .is_some_and(|t| t.contains("image")) =>
                    {
                        images += 1;
                    }
                    _ => {}
                }
            }
            if texts.is_empty()
                && let Some(text) = &content.text
            {
                texts.push(text);
            }
            let text = joined(texts.into_iter());
            if !text.is_empty() {
                draft.push(Part::text(text));
            }
            if images > 0 {
                draft.push(Part::notice(match images {
                    1 => "An image was not imported: ChatGPT's export does not carry it here."
                        .to_owned(),
                    n => format!(
                        "{n} images were not imported: ChatGPT's export does not carry them here."
                    ),
                }));
            }
        }
    }
    (!draft.parts.is_empty()).then_some(draft)
}

/// The non-empty pieces, one paragraph each.
fn joined<'a>(pieces: impl Iterator<Item = &'a str>) -> String {
    pieces
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}
