//! Delegation: the ready skills of a run, compiled into subagents behind one
//! `task` tool. The orchestrator routes the person's ask to a skill; the
//! subagent works in isolation (its own transcript, the thread's files) and
//! its report comes back verbatim as the `task` call's result.

mod prompt;
mod run;

use std::collections::BTreeMap;

use pizza_protocol::DecisionKind;
use pizza_tools::ToolRegistry;

pub use prompt::{TASK_TOOL, task_spec};
pub(crate) use prompt::{delegation_prompt, unavailable_prompt};
pub(crate) use run::{LAST_CALL_NOTE, TaskEnd, TaskParent, TaskScope, task_target};

/// Model calls one subagent invocation may make.
pub const SUBAGENT_MAX_MODEL_CALLS: u32 = 40;

/// One ready, enabled skill, compiled for a run.
#[derive(Debug, Clone)]
pub struct Subagent {
    /// The skill's name: what the `task` tool's `skill` argument names.
    pub name: String,
    /// What the orchestrator sees of the skill (its only routing text).
    pub description: String,
    /// The `SKILL.md` body: the subagent's system prompt, before the clock,
    /// memory and grants lines.
    pub system_prompt: String,
    /// The filesystem tools plus the skill's declared refs.
    pub tools: ToolRegistry,
    /// Tools that ask before they run inside this subagent, with the
    /// decisions the person may make.
    pub interrupt_on: BTreeMap<String, Vec<DecisionKind>>,
    /// The bundle's sibling files, seeded into the thread's files under
    /// `/skills/<name>/` when the skill is used: `(relative path, bytes)`.
    pub files: Vec<(String, Vec<u8>)>,
}

/// A skill the orchestrator cannot use now, named in its prompt so it can
/// tell the person why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnavailableSkill {
    pub name: String,
    pub reasons: Vec<String>,
}
