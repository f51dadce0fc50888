//! What the agent keeps in each checkpoint's metadata and carries forward
//! from step to step: the run's counters, the stored summary, and approved
//! calls not yet run. Only the head checkpoint is read back, so every commit
//! writes the whole value.

use std::collections::BTreeMap;

use pizza_protocol::ContextUse;
use pizza_tools::FileState;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct StepMeta {
    /// The run that last committed a step. Counters are not reset when it
    /// changes: a run that continues after a decision or a restart is the
    /// same work for its limits. They start from zero with each new user
    /// message ([`StepMeta::new_turn`]).
    pub(crate) run_id: Option<String>,
    pub(crate) model_calls: u32,
    pub(crate) tool_calls: u32,
    /// Calls of the current step already charged to `tool_calls`, so a step
    /// resumed after a crash is not charged twice.
    pub(crate) counted: Vec<String>,
    /// Older turns replaced by a summary in what the model is sent.
    pub(crate) summary: Option<Summary>,
    /// The context at the last model call of the thread, so a thread
    /// opened later shows how full it is without a new call.
    pub(crate) context: Option<ContextUse>,
    /// Gated calls the user approved (with possibly edited arguments),
    /// by call id, until they have run.
    pub(crate) approved: BTreeMap<String, Approved>,
    /// The target file's state when each pending gated call asked, by call
    /// id: the approved call runs only if the file is still so.
    pub(crate) asked_against: BTreeMap<String, AskedAgainst>,
    /// Set when the tool-call limit refused calls: the turn ends with this
    /// notice once the step's calls are answered.
    pub(crate) end_notice: Option<String>,
    /// A subagent's tool calls ran out: its next model call is its last,
    /// made without tools, so it reports what it verified.
    pub(crate) tool_free_next: bool,
    /// Calls of paused subagents that are part of the pending interrupt
    /// (or were), by call id: the `task` call (= task id) they belong to.
    pub(crate) task_calls: BTreeMap<String, String>,
    /// Rejected or answered calls of paused subagents, by call id: the
    /// result the subagent commits when it continues.
    pub(crate) answered: BTreeMap<String, Answered>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Answered {
    pub(crate) text: String,
    pub(crate) is_error: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Summary {
    /// Messages with `seq <= upto_seq` are covered by `text`.
    pub(crate) upto_seq: i64,
    pub(crate) text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Approved {
    pub(crate) arguments: Value,
    pub(crate) edited: bool,
    /// What the person saw when they approved: the call runs only while
    /// its file is still in this state.
    #[serde(default)]
    pub(crate) guard: Option<AskedAgainst>,
}

/// A gated call's target file as it was when the call asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AskedAgainst {
    pub(crate) path: String,
    pub(crate) state: FileState,
}

impl StepMeta {
    /// The metadata at the head. Unreadable metadata (from an older app, or
    /// the host's own state edits) reads as empty: the worst case is one
    /// recomputed summary.
    pub(crate) fn load(metadata: Option<&Value>, run_id: &str) -> Self {
        let mut meta = Self::read(metadata);
        meta.run_id = Some(run_id.to_owned());
        meta
    }

    /// The metadata at the head as it is, for a step no run commits yet.
    pub(crate) fn read(metadata: Option<&Value>) -> Self {
        metadata
            .and_then(|m| serde_json::from_value(m.clone()).ok())
            .unwrap_or_default()
    }

    /// How full the context was at the thread's last model call, as the
    /// head checkpoint's metadata recorded it.
    pub(crate) fn stored_context(metadata: Option<&Value>) -> Option<ContextUse> {
        Self::read(metadata).context
    }

    /// A new user message: a fresh budget, and nothing left of the last
    /// turn's approvals or end notice.
    pub(crate) fn new_turn(&mut self) {
        self.model_calls = 0;
        self.tool_calls = 0;
        self.counted.clear();
        self.approved.clear();
        self.asked_against.clear();
        self.end_notice = None;
        self.tool_free_next = false;
        self.task_calls.clear();
        self.answered.clear();
    }

    /// Forgets the decisions kept for a delegation that has ended.
    pub(crate) fn forget_task(&mut self, task_id: &str) {
        let calls: Vec<String> = self
            .task_calls
            .iter()
            .filter(|(_, task)| *task == task_id)
            .map(|(call, _)| call.clone())
            .collect();
        for call in calls {
            self.task_calls.remove(&call);
            self.approved.remove(&call);
            self.answered.remove(&call);
        }
    }

    pub(crate) fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
