//! Chat Completions SSE chunks → events.

use std::collections::BTreeMap;

use pizza_llm::{Result, StopReason, StreamEvent, Usage};
use serde::Deserialize;

use crate::decoding::{parse_json, require_terminal};
use crate::framing::{Decoder, Frame};
use crate::transport::classify_message;

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<ChatUsage>,
    error: Option<ChunkError>,
}

#[derive(Deserialize)]
struct ChunkError {
    message: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    code: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Delta {
    content: Option<String>,
    /// DeepSeek, vLLM.
    reasoning_content: Option<String>,
    /// OpenRouter, Ollama's compat layer.
    reasoning: Option<String>,
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Deserialize)]
struct ToolCallDelta {
    index: Option<u32>,
    id: Option<String>,
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
struct FunctionDelta {
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct ChatUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    prompt_tokens_details: Option<PromptDetails>,
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: u64,
}

#[derive(Deserialize)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: u64,
}

/// State of one Chat Completions stream.
#[derive(Debug, Default)]
pub struct ChatDecoder {
    model: String,
    /// Server index → (our index, id). Some servers repeat id and name in
    /// every chunk; only the first sighting starts a call.
    calls: BTreeMap<u32, String>,
    open: Vec<u32>,
    finish: Option<StopReason>,
    done: bool,
}

impl ChatDecoder {
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            ..Self::default()
        }
    }

    fn tool_delta(&mut self, delta: ToolCallDelta, out: &mut Vec<StreamEvent>) {
        let index = match (delta.index, &delta.id) {
            (Some(index), _) => index,
            // Servers without `index`: a new id is a new call.
            (None, Some(id)) => match self.calls.iter().find(|(_, known)| *known == id) {
                Some((index, _)) => *index,
                None => u32::try_from(self.calls.len()).unwrap_or(u32::MAX),
            },
            (None, None) => self.open.last().copied().unwrap_or(0),
        };
        let function = delta.function;
        if let std::collections::btree_map::Entry::Vacant(slot) = self.calls.entry(index) {
            let id = delta
                .id
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| format!("call_{index}"));
            let name = function
                .as_ref()
                .and_then(|f| f.name.clone())
                .unwrap_or_default();
            slot.insert(id.clone());
            self.open.push(index);
            out.push(StreamEvent::ToolCallStart { index, id, name });
        }
        if let Some(arguments) = function.and_then(|f| f.arguments).filter(|a| !a.is_empty()) {
            out.push(StreamEvent::ToolCallDelta { index, arguments });
        }
    }

    fn close_calls(&mut self, out: &mut Vec<StreamEvent>) {
        for index in self.open.drain(..) {
            out.push(StreamEvent::ToolCallEnd { index });
        }
    }

    fn stop(&mut self, out: &mut Vec<StreamEvent>) {
        self.close_calls(out);
        let reason = self.finish.unwrap_or(StopReason::EndTurn);
        out.push(StreamEvent::Stop { reason });
        self.done = true;
    }
}

fn finish_reason(reason: &str) -> StopReason {
    match reason {
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "length" => StopReason::MaxTokens,
        "content_filter" => StopReason::ContentFilter,
        _ => StopReason::EndTurn,
    }
}

impl Decoder for ChatDecoder {
    fn decode(&mut self, frame: Frame, out: &mut Vec<StreamEvent>) -> Result<()> {
        let Some(data) = frame.sse_data() else {
            return Ok(());
        };
        let data = data.trim();
        if data == "[DONE]" {
            self.stop(out);
            return Ok(());
        }
        let chunk: Chunk = parse_json(data.as_bytes(), "chunk")?;
        if let Some(error) = chunk.error {
            let kind = error.kind.or_else(|| {
                error
                    .code
                    .map(|c| c.to_string().trim_matches('"').to_owned())
            });
            let message = error.message.unwrap_or_default();
            return Err(classify_message(kind.as_deref(), &message, &self.model));
        }
        for choice in chunk.choices {
            if let Some(delta) = choice.delta {
                if let Some(text) = delta
                    .reasoning_content
                    .or(delta.reasoning)
                    .filter(|t| !t.is_empty())
                {
                    out.push(StreamEvent::ReasoningDelta { text });
                }
                if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                    out.push(StreamEvent::TextDelta { text });
                }
                for call in delta.tool_calls.unwrap_or_default() {
                    self.tool_delta(call, out);
                }
            }
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.finish = Some(finish_reason(&reason));
                self.close_calls(out);
            }
        }
        if let Some(usage) = chunk.usage {
            out.push(StreamEvent::Usage(Usage {
                input_tokens: usage.prompt_tokens,
                output_tokens: usage.completion_tokens,
                cache_read_tokens: usage.prompt_tokens_details.map_or(0, |d| d.cached_tokens),
                cache_write_tokens: 0,
                reasoning_tokens: usage
                    .completion_tokens_details
                    .map_or(0, |d| d.reasoning_tokens),
            }));
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<()> {
        // Some compatible servers omit `[DONE]`; a finish_reason proves the
        // answer is complete. Without either, the stream was cut.
        if !self.done && self.finish.is_some() {
            self.stop(out);
        }
        require_terminal(self.done, "the model finished")
    }
}
