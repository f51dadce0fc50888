//! `ModelRequest` → Responses body.

use pizza_llm::{ContentPart, DocumentSource, Error, Message, ModelRequest, Result, Role};
use serde_json::{Map, Value, json};

use crate::history::tool_results_as_text;
use crate::openai_chat::{image_url, tool_choice};

pub(crate) fn responses_body(request: &ModelRequest) -> Result<Value> {
    let mut input = Vec::new();
    let mut replays_reasoning = false;
    for message in &request.messages {
        replays_reasoning |= push_message(message, &mut input)?;
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        body.insert("instructions".into(), json!(system));
    }
    body.insert("input".into(), Value::Array(input));
    body.insert("stream".into(), json!(true));
    body.insert("store".into(), json!(false));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "name": tool.name, "description": tool.description,
                    "parameters": tool.input_schema})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = &request.tool_choice {
        let choice = tool_choice(choice, |name| json!({"type": "function", "name": name}));
        body.insert("tool_choice".into(), choice);
    }
    if let Some(max) = request.max_output_tokens {
        body.insert("max_output_tokens".into(), json!(max));
    }
    if let Some(effort) = request.reasoning_effort {
        body.insert(
            "reasoning".into(),
            json!({"effort": effort.as_str(), "summary": "auto"}),
        );
    }
    if request.reasoning_effort.is_some() || replays_reasoning {
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    }
    Ok(Value::Object(body))
}

/// Appends `message`'s items; true if it replays encrypted reasoning.
fn push_message(message: &Message, input: &mut Vec<Value>) -> Result<bool> {
    let mut replays = false;
    match message.role {
        Role::System => input.push(json!({"role": "system", "content": message.text()})),
        Role::User => input.push(json!({"role": "user", "content": user_parts(&message.content)?})),
        Role::Assistant => {
            for part in &message.content {
                match part {
                    ContentPart::Text { text } if !text.is_empty() => input.push(json!({
                        "role": "assistant", "content": [{"type": "output_text", "text": text}]
                    })),
                    ContentPart::Reasoning {
                        text,
                        signature: Some(id),
                        encrypted: Some(encrypted),
                    } => {
                        replays = true;
                        let summary: Vec<Value> = if text.is_empty() {
                            Vec::new()
                        } else {
                            vec![json!({"type": "summary_text", "text": text})]
                        };
                        input.push(json!({"type": "reasoning", "id": id, "summary": summary,
                            "encrypted_content": encrypted}));
                    }
                    ContentPart::ToolCall(call) => input.push(json!({
                        "type": "function_call", "call_id": call.id, "name": call.name,
                        "arguments": call.arguments.to_string(),
                    })),
                    // Reasoning from another provider cannot be replayed here.
                    _ => {}
                }
            }
        }
        Role::Tool => {
            let (results, images) = tool_results_as_text(message);
            for (call_id, text) in results {
                input.push(
                    json!({"type": "function_call_output", "call_id": call_id, "output": text}),
                );
            }
            if !images.is_empty() {
                input.push(json!({"role": "user", "content": user_parts(&images)?}));
            }
        }
    }
    Ok(replays)
}

fn user_parts(parts: &[ContentPart]) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    for part in parts {
        match part {
            ContentPart::Text { text } => out.push(json!({"type": "input_text", "text": text})),
            ContentPart::Image { source } => {
                out.push(json!({"type": "input_image", "image_url": image_url(source)}));
            }
            ContentPart::Document { source, name } => {
                let DocumentSource::Base64 { media_type, data } = source else {
                    return Err(Error::invalid_input(
                        "documents must be inlined before an OpenAI call",
                    ));
                };
                out.push(json!({"type": "input_file",
                    "filename": name.as_deref().unwrap_or("document"),
                    "file_data": format!("data:{media_type};base64,{data}")}));
            }
            _ => {}
        }
    }
    Ok(out)
}
