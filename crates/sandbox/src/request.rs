//! What a caller hands the sandbox and what it gets back.

use std::time::Duration;

/// The budgets of one sandbox. The time limit can be overridden per call.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall clock per call, including awaited bridge work.
    pub timeout: Duration,
    /// The guest's heap; the worker caps its own address space with it.
    pub memory_bytes: u64,
    pub max_result_chars: usize,
    /// Captured `console.*` output; the rest is counted, not kept.
    pub max_log_chars: usize,
    pub max_bridge_calls: u32,
    /// An interpreter unused this long is disposed.
    pub idle_after: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(120),
            memory_bytes: 256 * 1024 * 1024,
            max_result_chars: 8_000,
            max_log_chars: 4_000,
            max_bridge_calls: 10_000,
            idle_after: Duration::from_secs(600),
        }
    }
}

#[derive(Debug, Clone)]
pub struct EvalRequest {
    pub code: String,
    /// camelCase names installed as async functions on a global frozen
    /// `tools` object. Each takes one argument (converted to JSON) and
    /// returns a Promise.
    pub bridges: Vec<String>,
    /// Whether a global async `task(skill, ask)` exists.
    pub task: bool,
    /// Per-call wall-clock limit; overrides `Limits::timeout` when set.
    pub timeout: Option<Duration>,
}

impl EvalRequest {
    /// A request with no bridges, no `task` and the sandbox's timeout.
    pub fn new(code: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            bridges: Vec::new(),
            task: false,
            timeout: None,
        }
    }
}

/// What the guest asked the host to do (sent so on the worker's wire).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BridgeCall {
    Tool {
        name: String,
        args: serde_json::Value,
    },
    Task {
        skill: String,
        ask: String,
    },
}

/// The host side of the bridges; implemented by the tools crate.
#[async_trait::async_trait]
pub trait Bridge: Send + Sync {
    /// `Ok(value)` resolves the guest's promise with the JSON value
    /// converted to JS (a JSON string becomes a JS string); `Err(message)`
    /// rejects it with an `Error` whose message is `message`.
    async fn call(&self, call: BridgeCall) -> Result<serde_json::Value, String>;
}

#[derive(Debug, Clone, PartialEq)]
pub struct EvalOutcome {
    /// The program's result as text: a string as is, `undefined` as
    /// "undefined", anything else as `JSON.stringify(v, null, 2)` or, when
    /// JSON cannot represent it, `String(v)`. Cut at `max_result_chars`.
    pub result: String,
    /// Set when the result was cut: its full length in chars.
    pub result_chars_total: Option<usize>,
    /// `console.*` output, one line per call, capped at `max_log_chars`
    /// with a final line saying how much was left out.
    pub logs: String,
    pub bridge_calls: u32,
}
