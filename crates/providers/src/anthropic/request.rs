//! `ModelRequest` → Messages body.

use pizza_llm::{
    ContentPart, DocumentSource, Error, ImageSource, ModelRequest, Result, Role, ToolChoice,
};
use serde_json::{Map, Value, json};

use crate::alternating::{AlternatingTurns, content_blocks};
use crate::history::tool_input;

const DEFAULT_MAX_TOKENS: u32 = 8_192;

pub(super) fn messages_body(request: &ModelRequest) -> Result<Value> {
    let mut system = request.system.clone().unwrap_or_default();
    let mut turns = AlternatingTurns::default();
    for message in &request.messages {
        if message.role == Role::System {
            if !system.is_empty() {
                system.push_str("\n\n");
            }
            system.push_str(&message.text());
        } else {
            turns.push(message, block)?;
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    let mut max_tokens = request.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    if let Some(effort) = request.reasoning_effort {
        let budget = effort.budget_tokens();
        // The thinking budget is part of max_tokens and must stay below it.
        max_tokens = max_tokens.max(budget + 4_096);
        body.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget}),
        );
    }
    body.insert("max_tokens".into(), json!(max_tokens));
    if !system.is_empty() {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), turns.into_json());
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = &request.tool_choice {
        let choice = match choice {
            ToolChoice::Auto => json!({"type": "auto"}),
            ToolChoice::None => json!({"type": "none"}),
            ToolChoice::Required => json!({"type": "any"}),
            ToolChoice::Tool { name } => json!({"type": "tool", "name": name}),
        };
        body.insert("tool_choice".into(), choice);
    }
    body.insert("stream".into(), json!(true));
    Ok(Value::Object(body))
}

fn block(part: &ContentPart) -> Result<Option<Value>> {
    Ok(Some(match part {
        ContentPart::Text { text } if text.is_empty() => return Ok(None),
        ContentPart::Text { text } => json!({"type": "text", "text": text}),
        ContentPart::Image { source } => {
            let source = match source {
                ImageSource::Base64 { media_type, data } => {
                    json!({"type": "base64", "media_type": media_type, "data": data})
                }
                ImageSource::Reference { uri, .. } => url_source(uri)?,
            };
            json!({"type": "image", "source": source})
        }
        ContentPart::Document { source, name } => {
            let source = match source {
                DocumentSource::Base64 { media_type, data } => {
                    json!({"type": "base64", "media_type": media_type, "data": data})
                }
                DocumentSource::Reference { uri, .. } => url_source(uri)?,
            };
            let mut document = json!({"type": "document", "source": source});
            if let Some(name) = name {
                document["title"] = json!(name);
            }
            document
        }
        // Thinking must go back verbatim with its signature, or the API
        // rejects the turn; reasoning without one came from elsewhere.
        ContentPart::Reasoning {
            text,
            signature: Some(signature),
            ..
        } => json!({"type": "thinking", "thinking": text, "signature": signature}),
        ContentPart::Reasoning {
            encrypted: Some(data),
            signature: None,
            ..
        } => json!({"type": "redacted_thinking", "data": data}),
        ContentPart::Reasoning { .. } => return Ok(None),
        ContentPart::ToolCall(call) => {
            let input = tool_input(call);
            json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input})
        }
        ContentPart::ToolResult {
            call_id,
            content,
            is_error,
        } => {
            let inner = content_blocks(content, block)?;
            json!({"type": "tool_result", "tool_use_id": call_id, "content": inner, "is_error": is_error})
        }
    }))
}

fn url_source(uri: &str) -> Result<Value> {
    if uri.starts_with("https://") || uri.starts_with("http://") {
        Ok(json!({"type": "url", "url": uri}))
    } else {
        Err(Error::invalid_input(
            "attachments must be inlined before an Anthropic call",
        ))
    }
}
