//! `GenerateContentResponse` chunks → neutral events. Gemini has no terminal
//! event: the chunk with a `finishReason` is the last, so a body that ends
//! without one was cut.

use pizza_llm::{Error, Result, Source, StopReason, StreamEvent, Usage};
use serde_json::Value;

use crate::decoding::parse_json;
use crate::framing::{Decoder, Frame};
use crate::transport::classify_message;

#[derive(Debug, Default)]
pub struct GeminiDecoder {
    model: String,
    next_call: u32,
    finish: Option<StopReason>,
    done: bool,
}

impl GeminiDecoder {
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            ..Self::default()
        }
    }
}

/// A page Google Search grounded the answer in (`web`), or a retrieved
/// document (`retrievedContext`). The `uri` of a web chunk is a redirect
/// through Google that leads to the page; its `title` is the page's domain.
fn grounding_chunk(value: &Value) -> Option<StreamEvent> {
    let found = value.get("web").or_else(|| value.get("retrievedContext"))?;
    let uri = found.get("uri").and_then(Value::as_str).unwrap_or_default();
    let title = found.get("title").and_then(Value::as_str);
    let source = Source::web(uri, title);
    (!source.is_empty()).then_some(StreamEvent::Source(source))
}

impl Decoder for GeminiDecoder {
    fn decode(&mut self, frame: Frame, out: &mut Vec<StreamEvent>) -> Result<()> {
        let Some(data) = frame.sse_data() else {
            return Ok(());
        };
        let chunk: Value = parse_json(data.as_bytes(), "chunk")?;
        if let Some(error) = chunk.get("error") {
            let status = error.get("status").and_then(Value::as_str);
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            return Err(classify_message(status, message, &self.model));
        }
        let candidate = chunk.pointer("/candidates/0").unwrap_or(&Value::Null);
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            let signature = part.get("thoughtSignature").and_then(Value::as_str);
            if let Some(call) = part.get("functionCall") {
                if let Some(signature) = signature {
                    out.push(StreamEvent::ReasoningSignature {
                        signature: signature.to_owned(),
                    });
                }
                let index = self.next_call;
                self.next_call += 1;
                let id = call
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("call_{index}"), str::to_owned);
                let name = call
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                out.push(StreamEvent::ToolCallStart { index, id, name });
                let args = call
                    .get("args")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Default::default()));
                out.push(StreamEvent::ToolCallDelta {
                    index,
                    arguments: args.to_string(),
                });
                out.push(StreamEvent::ToolCallEnd { index });
            } else if let Some(text) = part.get("text").and_then(Value::as_str) {
                if part.get("thought").and_then(Value::as_bool) == Some(true) {
                    out.push(StreamEvent::ReasoningDelta {
                        text: text.to_owned(),
                    });
                    if let Some(signature) = signature {
                        out.push(StreamEvent::ReasoningSignature {
                            signature: signature.to_owned(),
                        });
                    }
                } else if !text.is_empty() {
                    out.push(StreamEvent::TextDelta {
                        text: text.to_owned(),
                    });
                }
            }
        }
        let chunks = candidate
            .pointer("/groundingMetadata/groundingChunks")
            .and_then(Value::as_array);
        out.extend(chunks.into_iter().flatten().filter_map(grounding_chunk));
        if let Some(usage) = chunk.get("usageMetadata") {
            let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
            out.push(StreamEvent::Usage(Usage {
                input_tokens: n("promptTokenCount"),
                output_tokens: n("candidatesTokenCount") + n("thoughtsTokenCount"),
                cache_read_tokens: n("cachedContentTokenCount"),
                cache_write_tokens: 0,
                reasoning_tokens: n("thoughtsTokenCount"),
            }));
        }
        if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str) {
            self.finish = Some(match reason {
                "MAX_TOKENS" => StopReason::MaxTokens,
                "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" => {
                    StopReason::ContentFilter
                }
                _ if self.next_call > 0 => StopReason::ToolUse,
                _ => StopReason::EndTurn,
            });
        }
        if chunk.pointer("/promptFeedback/blockReason").is_some() {
            self.finish = Some(StopReason::ContentFilter);
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<()> {
        match self.finish {
            Some(reason) => {
                out.push(StreamEvent::Stop { reason });
                self.done = true;
                Ok(())
            }
            None => Err(Error::stream("the stream ended without a finishReason")),
        }
    }
}
