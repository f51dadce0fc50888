//! Responses SSE events → neutral events.

use std::collections::HashMap;

use pizza_llm::{Error, Result, Source, StopReason, StreamEvent, Usage};
use serde_json::Value;

use crate::decoding::{error_object, parse_json, require_terminal, string};
use crate::framing::{Decoder, Frame};

#[derive(Debug, Default)]
pub struct ResponsesDecoder {
    model: String,
    /// `output_index` → our tool-call index.
    calls: HashMap<u64, u32>,
    next_call: u32,
    done: bool,
}

impl ResponsesDecoder {
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            ..Self::default()
        }
    }

    fn finish_response(&mut self, response: &Value, out: &mut Vec<StreamEvent>) {
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
            out.push(StreamEvent::Usage(Usage {
                input_tokens: n(usage.get("input_tokens")),
                output_tokens: n(usage.get("output_tokens")),
                cache_read_tokens: n(usage.pointer("/input_tokens_details/cached_tokens")),
                cache_write_tokens: 0,
                reasoning_tokens: n(usage.pointer("/output_tokens_details/reasoning_tokens")),
            }));
        }
        let reason = match response
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str)
        {
            Some("max_output_tokens") => StopReason::MaxTokens,
            Some("content_filter") => StopReason::ContentFilter,
            _ if self.next_call > 0 => StopReason::ToolUse,
            _ => StopReason::EndTurn,
        };
        out.push(StreamEvent::Stop { reason });
        self.done = true;
    }
}

/// An `output_text` annotation: a web page (`url_citation`) or a file the
/// model searched (`file_citation`, by its name).
fn annotation(value: &Value) -> Option<StreamEvent> {
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let source = match text("type")? {
        "url_citation" => Source::web(&string(value, "url"), text("title")),
        "file_citation" | "container_file_citation" => {
            Source::web("", text("filename").or(text("file_id")))
        }
        _ => return None,
    };
    (!source.is_empty()).then_some(StreamEvent::Source(source))
}

impl Decoder for ResponsesDecoder {
    fn decode(&mut self, frame: Frame, out: &mut Vec<StreamEvent>) -> Result<()> {
        let Some(data) = frame.sse_data().filter(|data| data.trim() != "[DONE]") else {
            return Ok(());
        };
        let event: Value = parse_json(data.as_bytes(), "event")?;
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let output_index = event.get("output_index").and_then(Value::as_u64);
        match kind {
            "response.output_text.delta" | "response.refusal.delta" => {
                let delta = string(&event, "delta");
                if !delta.is_empty() {
                    out.push(StreamEvent::TextDelta { text: delta });
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                let delta = string(&event, "delta");
                if !delta.is_empty() {
                    out.push(StreamEvent::ReasoningDelta { text: delta });
                }
            }
            "response.output_text.annotation.added" => {
                out.extend(event.get("annotation").and_then(annotation));
            }
            "response.output_item.added" => {
                let item = event.get("item").unwrap_or(&Value::Null);
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    let index = self.next_call;
                    self.next_call += 1;
                    self.calls
                        .insert(output_index.unwrap_or(u64::from(index)), index);
                    out.push(StreamEvent::ToolCallStart {
                        index,
                        id: string(item, "call_id"),
                        name: string(item, "name"),
                    });
                    let arguments = string(item, "arguments");
                    if !arguments.is_empty() {
                        out.push(StreamEvent::ToolCallDelta { index, arguments });
                    }
                }
            }
            "response.function_call_arguments.delta" => {
                let index = output_index.and_then(|at| self.calls.get(&at).copied());
                let Some(index) = index else {
                    return Err(Error::stream("arguments for an unknown function call"));
                };
                out.push(StreamEvent::ToolCallDelta {
                    index,
                    arguments: string(&event, "delta"),
                });
            }
            "response.output_item.done" => {
                let item = event.get("item").unwrap_or(&Value::Null);
                match item.get("type").and_then(Value::as_str) {
                    Some("function_call") => {
                        if let Some(index) = output_index.and_then(|at| self.calls.get(&at)) {
                            out.push(StreamEvent::ToolCallEnd { index: *index });
                        }
                    }
                    // The finished message repeats its annotations: a stream
                    // that sent no `annotation.added` still has them here
                    // (the collector keeps each source once).
                    Some("message") => {
                        let content = item.get("content").and_then(Value::as_array);
                        let annotations = content
                            .into_iter()
                            .flatten()
                            .filter_map(|part| part.get("annotations").and_then(Value::as_array))
                            .flatten();
                        out.extend(annotations.filter_map(annotation));
                    }
                    Some("reasoning") => {
                        let id = string(item, "id");
                        if !id.is_empty() {
                            out.push(StreamEvent::ReasoningSignature { signature: id });
                        }
                        let encrypted = string(item, "encrypted_content");
                        if !encrypted.is_empty() {
                            out.push(StreamEvent::ReasoningEncrypted { data: encrypted });
                        }
                    }
                    _ => {}
                }
            }
            "response.completed" | "response.incomplete" => {
                let response = event.get("response").unwrap_or(&Value::Null);
                self.finish_response(response, out);
            }
            "response.failed" => {
                let error = event.pointer("/response/error").unwrap_or(&Value::Null);
                let code = error.get("code").and_then(Value::as_str);
                return Err(error_object(error, code, &self.model));
            }
            "error" => {
                let error = event.get("error").unwrap_or(&event);
                let code = error
                    .get("code")
                    .or_else(|| error.get("type"))
                    .and_then(Value::as_str);
                return Err(error_object(error, code, &self.model));
            }
            _ => {}
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn finish(&mut self, _out: &mut Vec<StreamEvent>) -> Result<()> {
        require_terminal(self.done, "`response.completed`")
    }
}
