//! What the agent lends a tool that calls other tools from inside one call
//! (`eval`): the run's approval gate, and its delegation when it has skills.
//! The tool never sees the agent, the store or the skills themselves.

use std::fmt::Debug;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::tool::Tool;

/// What the run's approval policy makes of one call made from inside a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NestedGate {
    Run,
    /// The call would wait for the person's decision.
    Ask,
    /// The person does not allow the tool.
    Refuse,
}

/// The run's side of calls made from inside a tool call.
#[async_trait::async_trait]
pub trait NestedCalls: Send + Sync + Debug {
    /// The agent invocation the call belongs to (a run's orchestrator, or
    /// one subagent): what a tool keeps per invocation is keyed by it.
    fn invocation(&self) -> &str;
    /// What the run's policy makes of calling `tool` with `args` now.
    fn gate(&self, tool: &dyn Tool, args: &Value) -> NestedGate;
    /// The skills `task` may route to; empty inside a subagent, which
    /// cannot delegate.
    fn skills(&self) -> Vec<String>;
    /// Runs `skill`'s subagent on `ask` to its report (`Err`: a sentence
    /// saying why there is none).
    async fn task(
        &self,
        skill: &str,
        ask: &str,
        cancel: CancellationToken,
    ) -> Result<String, String>;
}

/// For a tool called without a run around it (tests, a bare registry):
/// each tool's own default decides, and an asking call is refused since
/// nobody can answer it; no skills.
#[derive(Debug, Clone)]
pub struct Unattended {
    key: String,
}

impl Unattended {
    pub fn new(key: impl Into<String>) -> Self {
        Self { key: key.into() }
    }
}

#[async_trait::async_trait]
impl NestedCalls for Unattended {
    fn invocation(&self) -> &str {
        &self.key
    }

    fn gate(&self, tool: &dyn Tool, args: &Value) -> NestedGate {
        if tool.must_ask(args) || tool.asks_by_default(args) {
            NestedGate::Ask
        } else {
            NestedGate::Run
        }
    }

    fn skills(&self) -> Vec<String> {
        Vec::new()
    }

    async fn task(&self, skill: &str, _ask: &str, _: CancellationToken) -> Result<String, String> {
        Err(format!("no skill named `{skill}` is ready"))
    }
}
