//! ConverseStream event-stream messages → neutral events.
//!
//! `metadata` (the usage) follows `messageStop`, so the stream is only done
//! once both arrived; a body that ends after `messageStop` without metadata
//! still completes, one without `messageStop` was cut.

use std::collections::HashMap;

use pizza_llm::{Result, StopReason, StreamEvent, Usage};
use serde_json::Value;

use crate::decoding::{parse_json, require_terminal, string, tool_input_delta};
use crate::framing::{Decoder, Frame};
use crate::transport::classify_aws;

#[derive(Debug, Default)]
pub struct BedrockDecoder {
    model: String,
    /// `contentBlockIndex` → tool-call index.
    tool_blocks: HashMap<u64, u32>,
    next_call: u32,
    stop: Option<StopReason>,
    saw_metadata: bool,
    done: bool,
}

impl BedrockDecoder {
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            ..Self::default()
        }
    }

    fn stop(&mut self, out: &mut Vec<StreamEvent>) {
        if let Some(reason) = self.stop {
            out.push(StreamEvent::Stop { reason });
            self.done = true;
        }
    }
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "tool_use" => StopReason::ToolUse,
        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
        "content_filtered" | "guardrail_intervened" => StopReason::ContentFilter,
        _ => StopReason::EndTurn,
    }
}

impl Decoder for BedrockDecoder {
    fn decode(&mut self, frame: Frame, out: &mut Vec<StreamEvent>) -> Result<()> {
        let Frame::Binary {
            event_type,
            message_type,
            payload,
        } = frame
        else {
            return Ok(());
        };
        let event: Value = if payload.is_empty() {
            Value::Null
        } else {
            parse_json(&payload, "event")?
        };
        if message_type != "event" {
            // `exception` (modelled errors) and `error` (protocol errors).
            let message = event
                .get("message")
                .or_else(|| event.get("Message"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            return Err(classify_aws(None, &event_type, message, &self.model, None));
        }
        let index = event
            .get("contentBlockIndex")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        match event_type.as_str() {
            "contentBlockStart" => {
                if let Some(tool) = event.pointer("/start/toolUse") {
                    let call = self.next_call;
                    self.next_call += 1;
                    self.tool_blocks.insert(index, call);
                    out.push(StreamEvent::ToolCallStart {
                        index: call,
                        id: string(tool, "toolUseId"),
                        name: string(tool, "name"),
                    });
                }
            }
            "contentBlockDelta" => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                if let Some(text) = delta.get("text").and_then(Value::as_str) {
                    if !text.is_empty() {
                        out.push(StreamEvent::TextDelta {
                            text: text.to_owned(),
                        });
                    }
                } else if let Some(tool) = delta.get("toolUse") {
                    let arguments = string(tool, "input");
                    tool_input_delta(&self.tool_blocks, index, arguments, out)?;
                } else if let Some(reasoning) = delta.get("reasoningContent") {
                    if let Some(text) = reasoning.get("text").and_then(Value::as_str) {
                        out.push(StreamEvent::ReasoningDelta {
                            text: text.to_owned(),
                        });
                    }
                    if let Some(signature) = reasoning.get("signature").and_then(Value::as_str) {
                        out.push(StreamEvent::ReasoningSignature {
                            signature: signature.to_owned(),
                        });
                    }
                    if let Some(data) = reasoning.get("redactedContent").and_then(Value::as_str) {
                        out.push(StreamEvent::ReasoningEncrypted {
                            data: data.to_owned(),
                        });
                    }
                }
            }
            "contentBlockStop" => {
                if let Some(call) = self.tool_blocks.get(&index) {
                    out.push(StreamEvent::ToolCallEnd { index: *call });
                }
            }
            "messageStop" => {
                self.stop = Some(stop_reason(&string(&event, "stopReason")));
                if self.saw_metadata {
                    self.stop(out);
                }
            }
            "metadata" => {
                if let Some(usage) = event.get("usage") {
                    let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                    out.push(StreamEvent::Usage(Usage {
                        input_tokens: n("inputTokens"),
                        output_tokens: n("outputTokens"),
                        cache_read_tokens: n("cacheReadInputTokens"),
                        cache_write_tokens: n("cacheWriteInputTokens"),
                        reasoning_tokens: 0,
                    }));
                }
                self.saw_metadata = true;
                self.stop(out);
            }
            // `messageStart` carries only the role; future event types.
            _ => {}
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<()> {
        if !self.done && self.stop.is_some() {
            self.stop(out);
        }
        require_terminal(self.done, "`messageStop`")
    }
}
