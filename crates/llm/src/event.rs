//! What a streaming model call yields.

use serde::{Deserialize, Serialize};

/// Token counts. In a stream each `Usage` event carries the totals known so
/// far; a later non-zero field replaces an earlier one (see [`Usage::merge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    pub reasoning_tokens: u64,
}

impl Usage {
    /// Field-wise: a non-zero value in `later` wins. Providers report input
    /// and output in different events (Anthropic) or all at the end (OpenAI).
    pub fn merge(&mut self, later: &Usage) {
        fn pick(slot: &mut u64, later: u64) {
            if later != 0 {
                *slot = later;
            }
        }
        pick(&mut self.input_tokens, later.input_tokens);
        pick(&mut self.output_tokens, later.output_tokens);
        pick(&mut self.cache_read_tokens, later.cache_read_tokens);
        pick(&mut self.cache_write_tokens, later.cache_write_tokens);
        pick(&mut self.reasoning_tokens, later.reasoning_tokens);
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    #[serde(rename = "end")]
    EndTurn,
    ToolUse,
    MaxTokens,
    ContentFilter,
}

/// Something the model cited for its answer: a web page it searched, or a
/// document it was given. Sources are shown with the answer, never sent back
/// to a model (no wire format accepts them as input).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Source {
    /// The page's address; `None` for a cited document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The passage the answer leans on, when the provider says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_text: Option<String>,
}

impl Source {
    /// A web page; empty strings count as absent.
    pub fn web(url: &str, title: Option<&str>) -> Self {
        Self {
            url: non_empty(url),
            title: title.and_then(non_empty),
            cited_text: None,
        }
    }

    pub fn with_cited_text(mut self, text: Option<&str>) -> Self {
        self.cited_text = text.and_then(non_empty);
        self
    }

    /// What tells two citations of the same source apart: the address, or
    /// for a document its title.
    fn key(&self) -> Option<&str> {
        self.url.as_deref().or(self.title.as_deref())
    }

    /// Whether `other` names the same page or document.
    pub fn same_as(&self, other: &Source) -> bool {
        self.key().is_some() && self.key() == other.key()
    }

    /// Neither an address nor a title: nothing to show.
    pub fn is_empty(&self) -> bool {
        self.key().is_none()
    }
}

fn non_empty(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// One event of a model stream. A well-formed stream ends with exactly one
/// `Stop`; providers turn a stream that ends without one into an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    TextDelta {
        text: String,
    },
    ReasoningDelta {
        text: String,
    },
    /// Closes the current reasoning block with its signature.
    ReasoningSignature {
        signature: String,
    },
    /// A reasoning block whose content is opaque (redacted / encrypted).
    ReasoningEncrypted {
        data: String,
    },
    /// `index` is the call's position in this response; deltas refer to it.
    ToolCallStart {
        index: u32,
        id: String,
        name: String,
    },
    ToolCallDelta {
        index: u32,
        arguments: String,
    },
    ToolCallEnd {
        index: u32,
    },
    /// A source the answer cites; the same source may come more than once.
    Source(Source),
    Usage(Usage),
    Stop {
        reason: StopReason,
    },
}
