//! `ModelRequest` → `/api/chat` body.

use pizza_llm::{ContentPart, ImageSource, ModelRequest, Role, ToolChoice};
use serde_json::{Map, Value, json};

use crate::history::tool_names_by_call_id;

pub(super) fn chat_body(request: &ModelRequest, vision: bool) -> Value {
    let names = tool_names_by_call_id(request);
    let mut messages = Vec::new();
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &request.messages {
        match message.role {
            Role::Tool => {
                for part in &message.content {
                    if let ContentPart::ToolResult {
                        call_id, content, ..
                    } = part
                    {
                        let (text, images) = flatten(content, vision, &request.model);
                        let mut entry = json!({"role": "tool", "content": text,
                            "tool_name": names.get(call_id.as_str()).copied().unwrap_or_default()});
                        // Ollama takes tool-returned images as a user image.
                        if !images.is_empty() {
                            messages.push(entry);
                            entry = json!({"role": "user", "content": "", "images": images});
                        }
                        messages.push(entry);
                    }
                }
            }
            role => {
                let role = match role {
                    Role::System => "system",
                    Role::Assistant => "assistant",
                    _ => "user",
                };
                let (text, images) = flatten(&message.content, vision, &request.model);
                let mut entry = Map::new();
                entry.insert("role".into(), json!(role));
                entry.insert("content".into(), json!(text));
                if !images.is_empty() {
                    entry.insert("images".into(), json!(images));
                }
                let calls: Vec<Value> = message
                    .tool_calls()
                    .map(|c| json!({"function": {"name": c.name, "arguments": c.arguments}}))
                    .collect();
                if !calls.is_empty() {
                    entry.insert("tool_calls".into(), Value::Array(calls));
                }
                messages.push(Value::Object(entry));
            }
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    let tools_allowed = !matches!(request.tool_choice, Some(ToolChoice::None));
    if !request.tools.is_empty() && tools_allowed {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {"name": t.name,
                "description": t.description, "parameters": t.input_schema}})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if request.reasoning_effort.is_some() {
        body.insert("think".into(), json!(true));
    }
    if let Some(max) = request.max_output_tokens {
        body.insert("options".into(), json!({"num_predict": max}));
    }
    Value::Object(body)
}

/// Text, plus base64 images when the model can see them; otherwise a
/// notice in their place so the model knows something was there.
fn flatten(parts: &[ContentPart], vision: bool, model: &str) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut images = Vec::new();
    for part in parts {
        match part {
            ContentPart::Text { text: t } => text.push_str(t),
            ContentPart::Image {
                source: ImageSource::Base64 { data, .. },
            } if vision => {
                images.push(data.clone());
            }
            ContentPart::Image { .. } => {
                text.push_str(&format!(
                    "\n[An image was attached here, but {model} cannot view images.]\n"
                ));
            }
            ContentPart::Document { name, .. } => {
                let name = name.as_deref().unwrap_or("document");
                text.push_str(&format!(
                    "\n[The document {name} was attached but cannot be read by {model}.]\n"
                ));
            }
            _ => {}
        }
    }
    (text, images)
}
