//! `ModelRequest` → Converse body.

use pizza_llm::{
    ContentPart, DocumentSource, Error, ImageSource, ModelRequest, Result, Role, ToolChoice,
};
use serde_json::{Map, Value, json};

use crate::alternating::{AlternatingTurns, content_blocks};
use crate::history::tool_input;

/// Used only when reasoning needs a `maxTokens` and the caller set none.
const DEFAULT_MAX_TOKENS: u32 = 8_192;

pub(super) fn converse_body(request: &ModelRequest) -> Result<Value> {
    let mut system: Vec<Value> = request
        .system
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| json!({"text": s}))
        .collect();
    let mut turns = AlternatingTurns::default();
    for message in &request.messages {
        if message.role == Role::System {
            let text = message.text();
            if !text.is_empty() {
                system.push(json!({"text": text}));
            }
        } else {
            turns.push(message, block)?;
        }
    }
    let mut body = Map::new();
    body.insert("messages".into(), turns.into_json());
    if !system.is_empty() {
        body.insert("system".into(), Value::Array(system));
    }
    let mut max_tokens = request.max_output_tokens;
    // Converse has no neutral reasoning switch; Claude takes Anthropic's
    // `thinking` through `additionalModelRequestFields`. Other families
    // reason (or not) on their own, and would reject the unknown field.
    if let Some(effort) = request
        .reasoning_effort
        .filter(|_| is_claude(&request.model))
    {
        let budget = effort.budget_tokens();
        // The thinking budget is part of maxTokens and must stay below it.
        max_tokens = Some(max_tokens.unwrap_or(DEFAULT_MAX_TOKENS).max(budget + 4_096));
        body.insert(
            "additionalModelRequestFields".into(),
            json!({"thinking": {"type": "enabled", "budget_tokens": budget}}),
        );
    }
    if let Some(max) = max_tokens {
        body.insert("inferenceConfig".into(), json!({"maxTokens": max}));
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({"toolSpec": {
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": {"json": t.input_schema},
                }})
            })
            .collect();
        let mut config = Map::new();
        config.insert("tools".into(), Value::Array(tools));
        let choice = match &request.tool_choice {
            Some(ToolChoice::Required) => Some(json!({"any": {}})),
            Some(ToolChoice::Tool { name }) => Some(json!({"tool": {"name": name}})),
            Some(ToolChoice::Auto) => Some(json!({"auto": {}})),
            // Converse has no "none"; leaving the choice out is the closest.
            Some(ToolChoice::None) | None => None,
        };
        if let Some(choice) = choice {
            config.insert("toolChoice".into(), choice);
        }
        body.insert("toolConfig".into(), Value::Object(config));
    }
    Ok(Value::Object(body))
}

fn is_claude(model: &str) -> bool {
    model.contains("anthropic.") || model.contains("claude")
}

fn block(part: &ContentPart) -> Result<Option<Value>> {
    Ok(Some(match part {
        ContentPart::Text { text } if text.is_empty() => return Ok(None),
        ContentPart::Text { text } => json!({"text": text}),
        ContentPart::Image { source } => {
            let ImageSource::Base64 { media_type, data } = source else {
                return Err(inline_first());
            };
            json!({"image": {"format": image_format(media_type)?, "source": {"bytes": data}}})
        }
        ContentPart::Document { source, name } => {
            let DocumentSource::Base64 { media_type, data } = source else {
                return Err(inline_first());
            };
            json!({"document": {
                "format": document_format(media_type)?,
                "name": document_name(name.as_deref()),
                "source": {"bytes": data},
            }})
        }
        // Claude rejects a turn whose replayed thinking lost its signature;
        // thinking without one came from another provider and is dropped.
        ContentPart::Reasoning {
            text,
            signature: Some(signature),
            ..
        } => json!({"reasoningContent": {"reasoningText": {"text": text, "signature": signature}}}),
        ContentPart::Reasoning {
            encrypted: Some(data),
            signature: None,
            ..
        } => json!({"reasoningContent": {"redactedContent": data}}),
        ContentPart::Reasoning { .. } => return Ok(None),
        ContentPart::ToolCall(call) => {
            let input = tool_input(call);
            json!({"toolUse": {"toolUseId": call.id, "name": call.name, "input": input}})
        }
        ContentPart::ToolResult {
            call_id,
            content,
            is_error,
        } => {
            // Tool results take text, images and documents, not nested
            // calls or reasoning.
            let inner = content_blocks(content, |part| match part {
                ContentPart::Text { .. }
                | ContentPart::Image { .. }
                | ContentPart::Document { .. } => block(part),
                _ => Ok(None),
            })?;
            let status = if *is_error { "error" } else { "success" };
            json!({"toolResult": {"toolUseId": call_id, "content": inner, "status": status}})
        }
    }))
}

fn inline_first() -> Error {
    Error::invalid_input("attachments must be inlined before a Bedrock call")
}

fn image_format(media_type: &str) -> Result<&'static str> {
    Ok(match media_type {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpeg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        other => {
            return Err(Error::invalid_input(format!(
                "Bedrock does not take `{other}` images"
            )));
        }
    })
}

fn document_format(media_type: &str) -> Result<&'static str> {
    Ok(match media_type {
        "application/pdf" => "pdf",
        "text/csv" => "csv",
        "application/msword" => "doc",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => "docx",
        "application/vnd.ms-excel" => "xls",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => "xlsx",
        "text/html" => "html",
        "text/markdown" => "md",
        "text/plain" => "txt",
        other => {
            return Err(Error::invalid_input(format!(
                "Bedrock does not take `{other}` documents"
            )));
        }
    })
}

/// Bedrock only accepts letters, digits, single spaces, hyphens, parentheses
/// and square brackets in a document name (it is shown to the model, so a
/// file name with dots or underscores would be rejected).
fn document_name(name: Option<&str>) -> String {
    let mut out = String::new();
    for c in name.unwrap_or_default().chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '-' | '(' | ')' | '[' | ']') {
            c
        } else {
            ' '
        };
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        out.push(c);
    }
    let trimmed = out.trim_end();
    if trimmed.is_empty() {
        "document".to_owned()
    } else {
        trimmed.to_owned()
    }
}
