//! `ModelRequest` → `GenerateContentRequest`.

use pizza_llm::{
    ContentPart, DocumentSource, Error, ImageSource, ModelRequest, Result, Role, ToolChoice,
};
use serde_json::{Map, Value, json};

use crate::history::tool_names_by_call_id;

pub(super) fn generate_body(request: &ModelRequest) -> Result<Value> {
    // Gemini answers a call by function *name*; our results carry the call id.
    let names = tool_names_by_call_id(request);
    let mut system = request.system.clone().unwrap_or_default();
    let mut contents: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in &request.messages {
        let role = match message.role {
            Role::System => {
                system.push_str(&message.text());
                continue;
            }
            Role::User | Role::Tool => "user",
            Role::Assistant => "model",
        };
        let mut parts = Vec::new();
        let mut pending_signature: Option<&str> = None;
        for part in &message.content {
            match part {
                ContentPart::Text { text } if !text.is_empty() => parts.push(json!({"text": text})),
                ContentPart::Image { source } => {
                    parts.push(inline(source_parts_image(source)?));
                }
                ContentPart::Document { source, .. } => {
                    parts.push(inline(source_parts_doc(source)?));
                }
                // Thought text is a summary; only the signature matters on replay,
                // and it belongs on the part that follows the thought.
                ContentPart::Reasoning {
                    signature: Some(sig),
                    ..
                } => pending_signature = Some(sig),
                ContentPart::ToolCall(call) => {
                    let mut part =
                        json!({"functionCall": {"name": call.name, "args": call.arguments}});
                    if let Some(sig) = pending_signature.take() {
                        part["thoughtSignature"] = json!(sig);
                    }
                    parts.push(part);
                }
                ContentPart::ToolResult {
                    call_id,
                    content,
                    is_error,
                } => {
                    let name = names
                        .get(call_id.as_str())
                        .copied()
                        .unwrap_or(call_id.as_str());
                    let text: String = content
                        .iter()
                        .filter_map(|p| match p {
                            ContentPart::Text { text } => Some(text.as_str()),
                            _ => None,
                        })
                        .collect();
                    let key = if *is_error { "error" } else { "content" };
                    parts
                        .push(json!({"functionResponse": {"name": name, "response": {key: text}}}));
                }
                _ => {}
            }
        }
        if parts.is_empty() {
            continue;
        }
        match contents.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(parts),
            _ => contents.push((role, parts)),
        }
    }
    let mut body = Map::new();
    let contents: Vec<Value> = contents
        .into_iter()
        .map(|(role, parts)| json!({"role": role, "parts": parts}))
        .collect();
    body.insert("contents".into(), Value::Array(contents));
    if !system.is_empty() {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system}]}),
        );
    }
    if !request.tools.is_empty() {
        let declarations: Vec<Value> = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "parameters": t.input_schema}))
            .collect();
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": declarations}]),
        );
    }
    if let Some(choice) = &request.tool_choice {
        let config = match choice {
            ToolChoice::Auto => json!({"mode": "AUTO"}),
            ToolChoice::None => json!({"mode": "NONE"}),
            ToolChoice::Required => json!({"mode": "ANY"}),
            ToolChoice::Tool { name } => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
        };
        body.insert(
            "toolConfig".into(),
            json!({"functionCallingConfig": config}),
        );
    }
    let mut generation = Map::new();
    if let Some(max) = request.max_output_tokens {
        generation.insert("maxOutputTokens".into(), json!(max));
    }
    if let Some(effort) = request.reasoning_effort {
        generation.insert(
            "thinkingConfig".into(),
            json!({"thinkingBudget": effort.budget_tokens(), "includeThoughts": true}),
        );
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Ok(Value::Object(body))
}

fn inline((mime, data): (&str, &str)) -> Value {
    json!({"inlineData": {"mimeType": mime, "data": data}})
}

fn source_parts_image(source: &ImageSource) -> Result<(&str, &str)> {
    match source {
        ImageSource::Base64 { media_type, data } => Ok((media_type, data)),
        ImageSource::Reference { .. } => Err(Error::invalid_input(
            "images must be inlined before a Gemini call",
        )),
    }
}

fn source_parts_doc(source: &DocumentSource) -> Result<(&str, &str)> {
    match source {
        DocumentSource::Base64 { media_type, data } => Ok((media_type, data)),
        DocumentSource::Reference { .. } => Err(Error::invalid_input(
            "documents must be inlined before a Gemini call",
        )),
    }
}
