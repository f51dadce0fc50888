//! Messages SSE events → neutral events.

use std::collections::HashMap;

use pizza_llm::{Result, Source, StopReason, StreamEvent, Usage};
use serde_json::Value;

use crate::decoding::{error_object, parse_json, require_terminal, string, tool_input_delta};
use crate::framing::{Decoder, Frame};

#[derive(Debug, Default)]
pub struct AnthropicDecoder {
    model: String,
    /// Content-block index → tool-call index.
    tool_blocks: HashMap<u64, u32>,
    next_call: u32,
    stop: Option<StopReason>,
    done: bool,
}

impl AnthropicDecoder {
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            ..Self::default()
        }
    }
}

fn usage(value: &Value) -> Usage {
    let n = |key: &str| value.get(key).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: n("input_tokens"),
        output_tokens: n("output_tokens"),
        cache_read_tokens: n("cache_read_input_tokens"),
        cache_write_tokens: n("cache_creation_input_tokens"),
        reasoning_tokens: 0,
    }
}

/// A citation on a text block: a web search result (`url`, `title`), or a
/// place in a document the request carried (`document_title`, else its
/// position among the documents), or a search result a tool returned.
fn citation(value: &Value) -> Option<StreamEvent> {
    let cited_text = value.get("cited_text").and_then(Value::as_str);
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let source = match text("type")? {
        "web_search_result_location" => Source::web(&string(value, "url"), text("title")),
        "search_result_location" => Source::web(&string(value, "source"), text("title")),
        "char_location" | "page_location" | "content_block_location" => {
            let index = value.get("document_index").and_then(Value::as_u64);
            let fallback = index.map(|i| format!("Document {}", i + 1));
            let title = text("document_title").or(fallback.as_deref());
            Source::web("", title)
        }
        _ => return None,
    };
    let source = source.with_cited_text(cited_text);
    (!source.is_empty()).then_some(StreamEvent::Source(source))
}

impl Decoder for AnthropicDecoder {
    fn decode(&mut self, frame: Frame, out: &mut Vec<StreamEvent>) -> Result<()> {
        let Some(data) = frame.sse_data() else {
            return Ok(());
        };
        let event: Value = parse_json(data.as_bytes(), "event")?;
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0);
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "message_start" => {
                if let Some(u) = event.pointer("/message/usage") {
                    out.push(StreamEvent::Usage(usage(u)));
                }
            }
            "content_block_start" => {
                let block = event.get("content_block").unwrap_or(&Value::Null);
                match block.get("type").and_then(Value::as_str) {
                    Some("tool_use" | "server_tool_use") => {
                        let call = self.next_call;
                        self.next_call += 1;
                        self.tool_blocks.insert(index, call);
                        out.push(StreamEvent::ToolCallStart {
                            index: call,
                            id: string(block, "id"),
                            name: string(block, "name"),
                        });
                    }
                    Some("redacted_thinking") => out.push(StreamEvent::ReasoningEncrypted {
                        data: string(block, "data"),
                    }),
                    Some("text") => {
                        let text = string(block, "text");
                        if !text.is_empty() {
                            out.push(StreamEvent::TextDelta { text });
                        }
                        let citations = block.get("citations").and_then(Value::as_array);
                        out.extend(citations.into_iter().flatten().filter_map(citation));
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => out.push(StreamEvent::TextDelta {
                        text: string(delta, "text"),
                    }),
                    Some("thinking_delta") => out.push(StreamEvent::ReasoningDelta {
                        text: string(delta, "thinking"),
                    }),
                    Some("signature_delta") => out.push(StreamEvent::ReasoningSignature {
                        signature: string(delta, "signature"),
                    }),
                    Some("citations_delta") => {
                        out.extend(delta.get("citation").and_then(citation));
                    }
                    Some("input_json_delta") => {
                        let arguments = string(delta, "partial_json");
                        tool_input_delta(&self.tool_blocks, index, arguments, out)?;
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(call) = self.tool_blocks.get(&index) {
                    out.push(StreamEvent::ToolCallEnd { index: *call });
                }
            }
            "message_delta" => {
                if let Some(u) = event.get("usage") {
                    out.push(StreamEvent::Usage(usage(u)));
                }
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop = Some(match reason {
                        "tool_use" => StopReason::ToolUse,
                        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
                        "refusal" => StopReason::ContentFilter,
                        _ => StopReason::EndTurn,
                    });
                }
            }
            "message_stop" => {
                out.push(StreamEvent::Stop {
                    reason: self.stop.unwrap_or(StopReason::EndTurn),
                });
                self.done = true;
            }
            "error" => {
                let error = event.get("error").unwrap_or(&Value::Null);
                let kind = error.get("type").and_then(Value::as_str);
                return Err(error_object(error, kind, &self.model));
            }
            // `ping` and future event types.
            _ => {}
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn finish(&mut self, _out: &mut Vec<StreamEvent>) -> Result<()> {
        require_terminal(self.done, "`message_stop`")
    }
}
