//! `ModelRequest` → Chat Completions body.

use pizza_llm::{
    ContentPart, DocumentSource, ImageSource, Message, ModelRequest, Result, Role, ToolChoice,
};
use serde_json::{Map, Value, json};

use crate::history::tool_results_as_text;

/// Differences between OpenAI itself and compatible servers.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ChatOptions {
    /// OpenAI rejects `max_tokens` for reasoning models; most compatible
    /// servers only know `max_tokens`.
    pub max_completion_tokens: bool,
}

pub(crate) fn chat_body(request: &ModelRequest, options: ChatOptions) -> Result<Value> {
    let mut messages = Vec::new();
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &request.messages {
        push_message(message, &mut messages)?;
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.input_schema,
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = &request.tool_choice {
        let choice = tool_choice(
            choice,
            |name| json!({"type": "function", "function": {"name": name}}),
        );
        body.insert("tool_choice".into(), choice);
    }
    if let Some(max) = request.max_output_tokens {
        let key = if options.max_completion_tokens {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body.insert(key.into(), json!(max));
    }
    if let Some(effort) = request.reasoning_effort {
        body.insert("reasoning_effort".into(), json!(effort.as_str()));
    }
    Ok(Value::Object(body))
}

fn push_message(message: &Message, out: &mut Vec<Value>) -> Result<()> {
    match message.role {
        Role::System => out.push(json!({"role": "system", "content": message.text()})),
        Role::User => out.push(json!({"role": "user", "content": user_content(&message.content)?})),
        Role::Assistant => {
            let text = message.text();
            let calls: Vec<Value> = message
                .tool_calls()
                .map(|call| {
                    json!({"id": call.id, "type": "function", "function": {
                        "name": call.name,
                        "arguments": call.arguments.to_string(),
                    }})
                })
                .collect();
            let mut entry = Map::new();
            entry.insert("role".into(), json!("assistant"));
            // `null` content is how the API spells "only tool calls".
            let content = if text.is_empty() && !calls.is_empty() {
                Value::Null
            } else {
                json!(text)
            };
            entry.insert("content".into(), content);
            if !calls.is_empty() {
                entry.insert("tool_calls".into(), Value::Array(calls));
            }
            out.push(Value::Object(entry));
        }
        Role::Tool => {
            let (results, images) = tool_results_as_text(message);
            for (call_id, text) in results {
                out.push(json!({"role": "tool", "tool_call_id": call_id, "content": text}));
            }
            if !images.is_empty() {
                out.push(json!({"role": "user", "content": user_content(&images)?}));
            }
        }
    }
    Ok(())
}

fn user_content(parts: &[ContentPart]) -> Result<Value> {
    if let [ContentPart::Text { text }] = parts {
        return Ok(json!(text));
    }
    let mut out = Vec::new();
    for part in parts {
        match part {
            ContentPart::Text { text } => out.push(json!({"type": "text", "text": text})),
            ContentPart::Image { source } => {
                out.push(json!({"type": "image_url", "image_url": {"url": image_url(source)}}));
            }
            ContentPart::Document { source, name } => {
                let DocumentSource::Base64 { media_type, data } = source else {
                    return Err(pizza_llm::Error::invalid_input(
                        "documents must be inlined before an OpenAI call",
                    ));
                };
                out.push(json!({"type": "file", "file": {
                    "filename": name.as_deref().unwrap_or("document"),
                    "file_data": format!("data:{media_type};base64,{data}"),
                }}));
            }
            _ => {}
        }
    }
    Ok(Value::Array(out))
}

/// A data URL for inline images; references pass through as URLs.
/// A tool choice as both OpenAI APIs spell it; `named` builds the choice of
/// one function, which they nest differently.
pub(crate) fn tool_choice(choice: &ToolChoice, named: fn(&str) -> Value) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Tool { name } => named(name),
    }
}

pub(crate) fn image_url(source: &ImageSource) -> String {
    match source {
        ImageSource::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
        ImageSource::Reference { uri, .. } => uri.clone(),
    }
}
