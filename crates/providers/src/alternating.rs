//! The turns of the APIs that want user and assistant roles to alternate:
//! Anthropic's Messages, and Bedrock's Converse that fronts it for Claude.

use pizza_llm::{ContentPart, Message, Result, Role};
use serde_json::{Value, json};

/// The conversation as those APIs take it; system text goes elsewhere.
#[derive(Debug, Default)]
pub(crate) struct AlternatingTurns(Vec<(&'static str, Vec<Value>)>);

impl AlternatingTurns {
    /// Adds a user, tool or assistant message, each part as the content
    /// block `block` makes of it (`None`: the format leaves it out). A
    /// message of the same role as the one before joins it, so tool results
    /// and the next user text travel in one user message; one with no
    /// blocks adds nothing.
    pub(crate) fn push(
        &mut self,
        message: &Message,
        block: impl Fn(&ContentPart) -> Result<Option<Value>>,
    ) -> Result<()> {
        let role = match message.role {
            Role::Assistant => "assistant",
            Role::User | Role::Tool | Role::System => "user",
        };
        let blocks = content_blocks(&message.content, block)?;
        if blocks.is_empty() {
            return Ok(());
        }
        match self.0.last_mut() {
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => self.0.push((role, blocks)),
        }
        Ok(())
    }

    /// The `messages` array.
    pub(crate) fn into_json(self) -> Value {
        self.0
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect()
    }
}

/// The content blocks `block` makes of `parts`, leaving out those it makes
/// none of (a tool result's content is built the same way as a message's).
pub(crate) fn content_blocks(
    parts: &[ContentPart],
    block: impl Fn(&ContentPart) -> Result<Option<Value>>,
) -> Result<Vec<Value>> {
    let mut blocks = Vec::new();
    for part in parts {
        if let Some(block) = block(part)? {
            blocks.push(block);
        }
    }
    Ok(blocks)
}
