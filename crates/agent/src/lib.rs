#![doc = include_str!("../README.md")]

mod agent;
mod attachments;
mod error;
mod meta;
mod profile;
mod run;
mod sink;
mod summarize;
mod task;
mod transcript;
mod turn;

pub use agent::{Agent, DecisionsAccepted, PreparedDecisions, RunInput, RunOutcome};
pub use error::{Error, Result};
pub use profile::{
    BASE_PROMPT, DEFAULT_MAX_MODEL_CALLS, DEFAULT_MAX_SUBAGENT_TOOL_CALLS, DEFAULT_MAX_TOOL_CALLS,
    DEFAULT_SUMMARIZE_AT, FixedClock, LocalClock, PERSONA_MAX_CHARS, RunProfile, SystemClock,
    clock_line, refused_by_policy,
};
pub use sink::{ChannelSink, EventSink, NullSink};
pub use task::{SUBAGENT_MAX_MODEL_CALLS, Subagent, TASK_TOOL, UnavailableSkill, task_spec};
pub use turn::{AWAITING_DECISION, OpenedTurn};

/// How full the context was at a thread's last model call, from its head
/// checkpoint's metadata (`None` before any call with a known window).
pub fn stored_context(metadata: Option<&serde_json::Value>) -> Option<pizza_protocol::ContextUse> {
    meta::StepMeta::stored_context(metadata)
}

/// Re-exported so hosts need not depend on tokio-util.
pub use pizza_llm::CancellationToken;
