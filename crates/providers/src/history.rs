//! What the request builders read from the conversation history the same
//! way, whatever body they build from it.

use std::collections::HashMap;

use pizza_llm::{ContentPart, Message, ModelRequest, ToolCall};
use serde_json::{Value, json};

/// Each tool call's name by its id, for the formats that answer a call by
/// name while our results carry the call id.
pub(crate) fn tool_names_by_call_id(request: &ModelRequest) -> HashMap<&str, &str> {
    request
        .messages
        .iter()
        .flat_map(pizza_llm::Message::tool_calls)
        .map(|call| (call.id.as_str(), call.name.as_str()))
        .collect()
}

/// A call's arguments as the object the format requires; anything else a
/// model produced is replayed as no arguments.
pub(crate) fn tool_input(call: &ToolCall) -> Value {
    if call.arguments.is_object() {
        call.arguments.clone()
    } else {
        json!({})
    }
}

/// A tool message's results as (call id, text), for the formats whose tool
/// messages take text only, then the images they held: those follow in one
/// user message so vision models still see them.
pub(crate) fn tool_results_as_text(message: &Message) -> (Vec<(&str, String)>, Vec<ContentPart>) {
    let mut results = Vec::new();
    let mut images = Vec::new();
    for part in &message.content {
        if let ContentPart::ToolResult {
            call_id, content, ..
        } = part
        {
            let mut text = String::new();
            for inner in content {
                match inner {
                    ContentPart::Text { text: t } => text.push_str(t),
                    ContentPart::Image { .. } => images.push(inner.clone()),
                    _ => {}
                }
            }
            results.push((call_id.as_str(), text));
        }
    }
    (results, images)
}
