//! `/api/chat` NDJSON lines → neutral events.

use pizza_llm::{Result, StopReason, StreamEvent, Usage};
use serde_json::Value;

use crate::decoding::{parse_json, require_terminal};
use crate::framing::{Decoder, Frame};
use crate::transport::classify_message;

#[derive(Debug, Default)]
pub struct OllamaDecoder {
    model: String,
    next_call: u32,
    done: bool,
}

impl OllamaDecoder {
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            ..Self::default()
        }
    }
}

impl Decoder for OllamaDecoder {
    fn decode(&mut self, frame: Frame, out: &mut Vec<StreamEvent>) -> Result<()> {
        let Frame::Line(line) = frame else {
            return Ok(());
        };
        let chunk: Value = parse_json(line.as_bytes(), "line")?;
        if let Some(error) = chunk.get("error") {
            let message = error
                .as_str()
                .map_or_else(|| error.to_string(), str::to_owned);
            return Err(classify_message(None, &message, &self.model));
        }
        let message = chunk.get("message").unwrap_or(&Value::Null);
        if let Some(text) = message
            .get("thinking")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            out.push(StreamEvent::ReasoningDelta {
                text: text.to_owned(),
            });
        }
        if let Some(text) = message
            .get("content")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            out.push(StreamEvent::TextDelta {
                text: text.to_owned(),
            });
        }
        for call in message
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = self.next_call;
            self.next_call += 1;
            let function = call.get("function").unwrap_or(&Value::Null);
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("call_{index}"), str::to_owned);
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            out.push(StreamEvent::ToolCallStart { index, id, name });
            out.push(StreamEvent::ToolCallDelta {
                index,
                arguments: coerce_arguments(function.get("arguments")).to_string(),
            });
            out.push(StreamEvent::ToolCallEnd { index });
        }
        if chunk.get("done").and_then(Value::as_bool) == Some(true) {
            let n = |key: &str| chunk.get(key).and_then(Value::as_u64).unwrap_or(0);
            out.push(StreamEvent::Usage(Usage {
                input_tokens: n("prompt_eval_count"),
                output_tokens: n("eval_count"),
                ..Usage::default()
            }));
            let reason = match chunk.get("done_reason").and_then(Value::as_str) {
                Some("length") => StopReason::MaxTokens,
                _ if self.next_call > 0 => StopReason::ToolUse,
                _ => StopReason::EndTurn,
            };
            out.push(StreamEvent::Stop { reason });
            self.done = true;
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn finish(&mut self, _out: &mut Vec<StreamEvent>) -> Result<()> {
        require_terminal(self.done, "`done: true`")
    }
}

/// Some models make Ollama return arguments as a JSON *string*; decode it so
/// tools always get an object.
fn coerce_arguments(arguments: Option<&Value>) -> Value {
    match arguments {
        Some(Value::String(raw)) => {
            serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Object(serde_json::Map::new()),
    }
}
