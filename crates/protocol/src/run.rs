//! Runs: the event stream of one agent execution and the human-in-the-loop
//! (HITL) interrupt and decisions that pause and resume it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::approval::{ChangePreview, RememberScope};
use crate::error::ApiError;
use crate::thread::{MessageView, ThreadId};

pub type RunId = String;

/// Where a run is. Mirrors the store's run status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Succeeded,
    Failed,
    /// Paused for the user's decision, or stopped by an app restart.
    Interrupted,
    Cancelled,
    TimedOut,
}

/// One event of a run as the UI receives it. `seq` is assigned by the host
/// (monotonic per host) so a subscriber can replay what it missed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEventFrame {
    pub seq: u64,
    pub run_id: RunId,
    pub thread_id: ThreadId,
    /// Empty for the orchestrator; a subagent's task id path otherwise.
    pub namespace: Vec<String>,
    pub event: RunEvent,
}

/// What happened in a run. Deltas are transport only; what lasts is in the
/// store and is announced by `message_completed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunEvent {
    RunStarted {
        model: String,
    },
    TextDelta {
        text: String,
    },
    ReasoningDelta {
        text: String,
    },
    /// A message was committed to the thread.
    MessageCompleted {
        message: MessageView,
    },
    ToolStarted {
        call_id: String,
        name: String,
        arguments: serde_json::Value,
    },
    ToolFinished {
        call_id: String,
        name: String,
        result: String,
        is_error: bool,
    },
    /// The orchestrator delegated `ask` to the skill `skill`; the
    /// subagent's own events follow under the namespace `[task_id]` (its
    /// text is not the run's answer). `task_id` is the `task` call's id.
    SubagentStarted {
        task_id: String,
        skill: String,
        ask: String,
    },
    /// The subagent ended: `succeeded` (its report is the `task` call's
    /// result), `interrupted` (a call of its waits for a decision),
    /// `cancelled` or `failed`.
    SubagentFinished {
        task_id: String,
        status: RunStatus,
    },
    /// The run paused; it continues once every request has a decision.
    Interrupt {
        interrupt: Interrupt,
    },
    Usage {
        input_tokens: u64,
        output_tokens: u64,
        context_window: Option<u32>,
        /// Older turns were replaced by a summary in this call's request.
        #[serde(default)]
        summarized: bool,
    },
    RunFinished {
        status: RunStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ApiError>,
    },
    /// Not from the run: this subscription fell behind and was closed. The
    /// frame's `seq` is the last one delivered; subscribe again with it as
    /// `since` (and re-read the thread if the gap is no longer buffered).
    Lagged,
}

/// How the user may answer one approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    Approve,
    Edit,
    Reject,
    Respond,
}

impl DecisionKind {
    pub const ALL: [DecisionKind; 4] = [Self::Approve, Self::Edit, Self::Reject, Self::Respond];
}

/// A pending run's question to the user: the gated tool calls of one model
/// step, decided together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interrupt {
    pub interrupt_id: String,
    pub requests: Vec<ApprovalRequest>,
}

/// One gated tool call awaiting a decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    pub call_id: String,
    pub tool: String,
    pub arguments: serde_json::Value,
    /// One sentence for the confirmation card.
    pub description: String,
    pub allowed: Vec<DecisionKind>,
    /// What the call will change, for a file change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<ChangePreview>,
    /// The call was approved, but its file changed between the request and
    /// the approval: it was not run and asks again, with a fresh preview.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub changed_since_request: bool,
    /// Set when a skill's subagent made the call: the card names the skill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
}

/// The user's answer to one approval request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Decision {
    /// Run the call as the model asked; with `remember`, later calls of
    /// the tool (in this thread, or everywhere) run without asking.
    Approve {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        remember: Option<RememberScope>,
    },
    /// Run the call with these arguments instead (validated like the model's).
    Edit { arguments: serde_json::Value },
    /// Do not run it; the model is told the user rejected it.
    Reject {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// Do not run it; the model gets `text` as the call's result.
    Respond { text: String },
}

impl Decision {
    /// Approve this call only.
    pub const APPROVE: Decision = Decision::Approve { remember: None };

    pub fn kind(&self) -> DecisionKind {
        match self {
            Self::Approve { .. } => DecisionKind::Approve,
            Self::Edit { .. } => DecisionKind::Edit,
            Self::Reject { .. } => DecisionKind::Reject,
            Self::Respond { .. } => DecisionKind::Respond,
        }
    }
}

/// Decisions for one interrupt, keyed by `call_id`; every request needs one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterruptResponse {
    pub interrupt_id: String,
    pub decisions: BTreeMap<String, Decision>,
    /// Where the person decided. The host sets it from the path the
    /// decisions came by (`run_respond` is always the window).
    #[serde(default, skip_serializing_if = "DecidedFrom::is_window")]
    pub decided_from: DecidedFrom,
}

/// Where a person answered an interrupt; the thread says so when it was not
/// the window's approval card.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedFrom {
    /// The approval card in a window.
    #[default]
    Window,
    /// The Approve or Deny button of the "Action required" notification.
    Notification,
}

impl DecidedFrom {
    pub fn is_window(&self) -> bool {
        *self == Self::Window
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn events_are_tagged_snake_case() {
        let event = RunEvent::ToolFinished {
            call_id: "c1".into(),
            name: "ls".into(),
            result: "/a".into(),
            is_error: false,
        };
        assert_eq!(
            serde_json::to_value(&event).unwrap(),
            json!({"type": "tool_finished", "call_id": "c1", "name": "ls", "result": "/a", "is_error": false})
        );
        let done = RunEvent::RunFinished {
            status: RunStatus::TimedOut,
            error: None,
        };
        assert_eq!(
            serde_json::to_value(&done).unwrap(),
            json!({"type": "run_finished", "status": "timed_out"})
        );
    }

    #[test]
    fn decisions_round_trip() {
        let response: InterruptResponse = serde_json::from_value(json!({
            "interrupt_id": "i1",
            "decisions": {
                "a": {"type": "approve"},
                "e": {"type": "approve", "remember": "always"},
                "b": {"type": "edit", "arguments": {"path": "/x"}},
                "c": {"type": "reject"},
                "d": {"type": "respond", "text": "no need"}
            }
        }))
        .unwrap();
        assert_eq!(response.decisions["a"], Decision::APPROVE);
        assert_eq!(
            response.decisions["e"],
            Decision::Approve {
                remember: Some(RememberScope::Always)
            }
        );
        assert_eq!(response.decisions["c"], Decision::Reject { message: None });
        assert_eq!(response.decisions["d"].kind(), DecisionKind::Respond);
        let back: InterruptResponse =
            serde_json::from_value(serde_json::to_value(&response).unwrap()).unwrap();
        assert_eq!(back, response);
    }
}
