//! Folding a stream of events into one assistant message.

use std::collections::HashMap;

use futures::StreamExt;
use serde_json::Value;

use crate::client::EventStream;
use crate::error::{Error, Result};
use crate::event::{Source, StopReason, StreamEvent, Usage};
use crate::message::{ContentPart, Message, Role, ToolCall};

/// A finished model call.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub message: Message,
    pub usage: Usage,
    pub stop_reason: StopReason,
    /// What the answer cites, each source once, in the order first cited.
    /// Kept apart from the message: it is shown, never sent to a model.
    pub sources: Vec<Source>,
}

/// Accumulates events; [`StreamCollector::finish`] yields the [`Completion`].
/// Parts keep the order in which they started, so a replayed message shows
/// reasoning, text and tool calls as the model produced them.
#[derive(Debug, Default)]
pub struct StreamCollector {
    parts: Vec<ContentPart>,
    /// Tool-call index → (position in `parts`, raw argument text).
    calls: HashMap<u32, (usize, String)>,
    usage: Usage,
    stop: Option<StopReason>,
    sources: Vec<Source>,
}

impl StreamCollector {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::TextDelta { text } => match self.parts.last_mut() {
                Some(ContentPart::Text { text: last }) => last.push_str(&text),
                _ => self.parts.push(ContentPart::Text { text }),
            },
            StreamEvent::ReasoningDelta { text } => match self.open_reasoning() {
                Some(last) => last.push_str(&text),
                None => self.parts.push(ContentPart::Reasoning {
                    text,
                    signature: None,
                    encrypted: None,
                }),
            },
            StreamEvent::ReasoningSignature { signature } => match self.parts.last_mut() {
                Some(ContentPart::Reasoning {
                    signature: slot, ..
                }) if slot.is_none() => {
                    *slot = Some(signature);
                }
                _ => self.parts.push(ContentPart::Reasoning {
                    text: String::new(),
                    signature: Some(signature),
                    encrypted: None,
                }),
            },
            StreamEvent::ReasoningEncrypted { data } => match self.parts.last_mut() {
                // OpenAI sends the encrypted payload after the summary text of
                // the same reasoning item.
                Some(ContentPart::Reasoning {
                    encrypted: slot, ..
                }) if slot.is_none() => {
                    *slot = Some(data);
                }
                _ => self.parts.push(ContentPart::Reasoning {
                    text: String::new(),
                    signature: None,
                    encrypted: Some(data),
                }),
            },
            StreamEvent::ToolCallStart { index, id, name } => {
                self.calls.insert(index, (self.parts.len(), String::new()));
                self.parts.push(ContentPart::ToolCall(ToolCall {
                    id,
                    name,
                    arguments: Value::Null,
                }));
            }
            StreamEvent::ToolCallDelta { index, arguments } => {
                if let Some((_, raw)) = self.calls.get_mut(&index) {
                    raw.push_str(&arguments);
                }
            }
            StreamEvent::ToolCallEnd { .. } => {}
            StreamEvent::Source(source) => self.add_source(source),
            StreamEvent::Usage(usage) => self.usage.merge(&usage),
            StreamEvent::Stop { reason } => self.stop = Some(reason),
        }
    }

    /// A source cited again keeps its first place; what the first citation
    /// lacked (a title, the quoted text) the later one may fill in.
    fn add_source(&mut self, source: Source) {
        if source.is_empty() {
            return;
        }
        match self.sources.iter_mut().find(|known| known.same_as(&source)) {
            Some(known) => {
                if known.title.is_none() {
                    known.title = source.title;
                }
                if known.cited_text.is_none() {
                    known.cited_text = source.cited_text;
                }
            }
            None => self.sources.push(source),
        }
    }

    fn open_reasoning(&mut self) -> Option<&mut String> {
        match self.parts.last_mut() {
            Some(ContentPart::Reasoning {
                text,
                signature: None,
                encrypted: None,
            }) => Some(text),
            _ => None,
        }
    }

    /// The completion; an error if no `Stop` arrived (a truncated stream must
    /// never look like a short answer).
    pub fn finish(mut self) -> Result<Completion> {
        let stop_reason = self
            .stop
            .ok_or_else(|| Error::stream("the stream ended without a stop event"))?;
        for (position, raw) in self.calls.into_values() {
            if let Some(ContentPart::ToolCall(call)) = self.parts.get_mut(position) {
                call.arguments = parse_arguments(&raw);
            }
        }
        Ok(Completion {
            message: Message::new(Role::Assistant, self.parts),
            usage: self.usage,
            stop_reason,
            sources: self.sources,
        })
    }
}

/// Empty arguments mean "no arguments"; text that is not JSON is kept as a
/// string so the tool layer can report the model's mistake back to it.
fn parse_arguments(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))
}

/// Drains `stream` into a [`Completion`], stopping at the first error.
pub async fn collect_stream(mut stream: EventStream) -> Result<Completion> {
    let mut collector = StreamCollector::new();
    while let Some(event) = stream.next().await {
        collector.push(event?);
    }
    collector.finish()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    #[test]
    fn folds_text_reasoning_and_parallel_tool_calls() {
        let mut c = StreamCollector::new();
        for event in [
            StreamEvent::ReasoningDelta { text: "th".into() },
            StreamEvent::ReasoningDelta { text: "ink".into() },
            StreamEvent::ReasoningSignature {
                signature: "sig".into(),
            },
            StreamEvent::TextDelta { text: "Hel".into() },
            StreamEvent::TextDelta { text: "lo".into() },
            StreamEvent::ToolCallStart {
                index: 0,
                id: "a".into(),
                name: "ls".into(),
            },
            StreamEvent::ToolCallStart {
                index: 1,
                id: "b".into(),
                name: "grep".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 1,
                arguments: "{\"q\":".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: String::new(),
            },
            StreamEvent::ToolCallDelta {
                index: 1,
                arguments: "1}".into(),
            },
            StreamEvent::Usage(Usage {
                input_tokens: 10,
                ..Usage::default()
            }),
            StreamEvent::Usage(Usage {
                output_tokens: 5,
                ..Usage::default()
            }),
            StreamEvent::Stop {
                reason: StopReason::ToolUse,
            },
        ] {
            c.push(event);
        }
        let done = c.finish().unwrap();
        assert_eq!(
            done.message.content,
            vec![
                ContentPart::Reasoning {
                    text: "think".into(),
                    signature: Some("sig".into()),
                    encrypted: None
                },
                ContentPart::text("Hello"),
                ContentPart::ToolCall(ToolCall {
                    id: "a".into(),
                    name: "ls".into(),
                    arguments: json!({})
                }),
                ContentPart::ToolCall(ToolCall {
                    id: "b".into(),
                    name: "grep".into(),
                    arguments: json!({"q": 1})
                }),
            ]
        );
        assert_eq!(done.usage.input_tokens, 10);
        assert_eq!(done.usage.output_tokens, 5);
        assert_eq!(done.stop_reason, StopReason::ToolUse);
    }

    #[test]
    fn sources_are_kept_once_in_the_order_first_cited() {
        let mut c = StreamCollector::new();
        for event in [
            StreamEvent::TextDelta {
                text: "Rome was founded".into(),
            },
            StreamEvent::Source(Source::web("https://a.example/rome", None)),
            StreamEvent::Source(Source::web("https://b.example/", Some("B"))),
            StreamEvent::Source(
                Source::web("https://a.example/rome", Some("Rome")).with_cited_text(Some("753 BC")),
            ),
            StreamEvent::Source(Source::web("", Some(" "))),
            StreamEvent::Stop {
                reason: StopReason::EndTurn,
            },
        ] {
            c.push(event);
        }
        let done = c.finish().unwrap();
        assert_eq!(
            done.message.content,
            vec![ContentPart::text("Rome was founded")]
        );
        assert_eq!(
            done.sources,
            vec![
                Source {
                    url: Some("https://a.example/rome".into()),
                    title: Some("Rome".into()),
                    cited_text: Some("753 BC".into()),
                },
                Source::web("https://b.example/", Some("B")),
            ]
        );
    }

    #[test]
    fn missing_stop_is_a_stream_error() {
        let mut c = StreamCollector::new();
        c.push(StreamEvent::TextDelta {
            text: "partial".into(),
        });
        assert_eq!(c.finish().unwrap_err().code(), "STREAM_ERROR");
    }
}
