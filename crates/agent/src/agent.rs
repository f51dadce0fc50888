//! The agent and its entry points: run, resume, and accepting decisions.

use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use pizza_llm::{AttachmentSupport, CancellationToken, ModelClient, Usage};
use pizza_protocol::{
    ApiError, DecidedFrom, Decision, DecisionKind, Interrupt, InterruptResponse, MessageView,
    RememberScope, RunEvent, RunStatus,
};
use pizza_store::{StepCommit, Store};
use pizza_tools::ToolRegistry;

use crate::error::{Error, Result};
use crate::meta::{Answered, Approved, StepMeta};
use crate::profile::RunProfile;
use crate::run::RunLoop;
use crate::sink::EventSink;
use crate::transcript::{notice_message, pending_calls, tool_result_message};

/// One run to drive.
#[derive(Debug, Clone)]
pub struct RunInput {
    pub thread_id: String,
    /// The run's id (from `Store::create_run`); counters and events carry it.
    pub run_id: String,
    pub model: Arc<dyn ModelClient>,
    /// The provider's model id sent in each request.
    pub model_id: String,
    /// The model's context window in tokens, if known; summarization needs it.
    pub context_window: Option<u32>,
    /// What the model can be sent of the thread's attachments.
    pub attachments: AttachmentSupport,
    /// A new user message to commit first; `None` continues from the last checkpoint.
    pub new_user_text: Option<String>,
    /// What this run works with, built by the host when the run starts.
    pub profile: Arc<RunProfile>,
}

/// What accepted decisions committed, and what they ask the host to remember.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecisionsAccepted {
    /// The tool results the decisions themselves committed (reject,
    /// respond), for the host to announce.
    pub messages: Vec<MessageView>,
    /// Tools approved with "allow for this thread" or "always allow", in
    /// request order: the host records these policies.
    pub remember: Vec<(String, RememberScope)>,
}

/// Decisions validated and ready to commit: see [`Agent::prepare_decisions`].
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedDecisions {
    /// Answers the interrupt: the results of rejected or answered calls,
    /// the approvals in its metadata.
    pub step: StepCommit,
    /// The head checkpoint (the one with the interrupt) it answers.
    pub head: Option<String>,
    /// As in [`DecisionsAccepted::remember`].
    pub remember: Vec<(String, RememberScope)>,
}

/// How a run ended. The host records it with [`RunOutcome::to_store`].
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub status: RunStatus,
    pub error: Option<ApiError>,
    /// Summed over the run's model calls.
    pub usage: Usage,
    /// Set when the run paused for the user's decision.
    pub interrupt: Option<Interrupt>,
}

impl RunOutcome {
    pub(crate) fn new(status: RunStatus) -> Self {
        Self {
            status,
            error: None,
            usage: Usage::default(),
            interrupt: None,
        }
    }

    /// The outcome as `Store::finish_run` takes it.
    pub fn to_store(&self) -> pizza_store::RunOutcome {
        pizza_store::RunOutcome {
            status: self.status.into(),
            error: self.error.as_ref().map(|e| pizza_store::RunError {
                code: e.code.as_str().to_owned(),
                message: e.message.clone(),
            }),
            usage: serde_json::to_value(self.usage).ok(),
        }
    }
}

/// The orchestrator runtime. Cheap to share (`Arc<Agent>`); holds nothing
/// per run but the claims that make a decision apply exactly once: what a
/// run works with comes in its [`RunInput::profile`].
#[derive(Debug)]
pub struct Agent {
    pub(crate) store: Store,
    /// Interrupt ids whose decisions are being applied right now.
    claims: Mutex<HashSet<String>>,
}

impl Agent {
    pub fn new(store: Store) -> Self {
        Self {
            store,
            claims: Mutex::new(HashSet::new()),
        }
    }

    /// Drives a run until a final answer, a limit, an interrupt, a cancel or
    /// an error, committing every step. Emits `run_started` first; the end
    /// is the returned outcome, which the host records and then announces
    /// as `run_finished` (it owns that event: only it knows when the run row
    /// is final).
    pub async fn run(
        &self,
        input: RunInput,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> RunOutcome {
        sink.emit(
            &input.profile.namespace,
            RunEvent::RunStarted {
                model: input.model_id.clone(),
            },
        );
        let mut run = RunLoop::new(self, input, sink, cancel);
        run.drive().await
    }

    /// Continues from the last checkpoint (after a crash, a restart, or
    /// accepted decisions): a pending model call is made again; tool calls
    /// whose results were committed are not run again.
    pub async fn resume(
        &self,
        mut input: RunInput,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> RunOutcome {
        input.new_user_text = None;
        self.run(input, sink, cancel).await
    }

    /// Validates the decisions for the pending interrupt and commits them,
    /// clearing the interrupt, in one step; the host then answers the person
    /// and continues with [`Agent::resume`]. `Conflict` when there is no such
    /// pending interrupt (including a second decision for one already
    /// answered); `InvalidInput` for a missing, disallowed or invalid
    /// decision, which leaves the interrupt pending. `tools` validates edited
    /// arguments. Returns what the decisions committed and the policies
    /// the approvals asked to remember.
    pub async fn accept_decisions(
        &self,
        thread_id: &str,
        run_id: &str,
        response: InterruptResponse,
        tools: &ToolRegistry,
    ) -> Result<DecisionsAccepted> {
        let id = response.interrupt_id.clone();
        if !self.lock_claims().insert(id.clone()) {
            return Err(Error::conflict(format!(
                "interrupt {id} is already being answered"
            )));
        }
        let result = self
            .apply_decisions(thread_id, run_id, response, tools)
            .await;
        self.lock_claims().remove(&id);
        result
    }

    fn lock_claims(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        // The set is only inserted into and removed from; always consistent.
        self.claims.lock().unwrap_or_else(PoisonError::into_inner)
    }

    async fn apply_decisions(
        &self,
        thread_id: &str,
        run_id: &str,
        response: InterruptResponse,
        tools: &ToolRegistry,
    ) -> Result<DecisionsAccepted> {
        let prepared = self
            .prepare_decisions(thread_id, run_id, response, tools)
            .await?;
        let committed = self.store.commit_step(thread_id, prepared.step).await?;
        Ok(DecisionsAccepted {
            messages: committed
                .messages
                .iter()
                .map(pizza_store::transcript::view)
                .collect(),
            remember: prepared.remember,
        })
    }

    /// Validates the decisions for the pending interrupt (as
    /// [`Agent::accept_decisions`] does) and prepares the step that answers
    /// it, without committing: the host commits it with the run that
    /// continues ([`pizza_store::Store::start_turn`] with
    /// `answers_interrupt`), from `head`, so a decision is recorded exactly
    /// when its run exists.
    pub async fn prepare_decisions(
        &self,
        thread_id: &str,
        run_id: &str,
        mut response: InterruptResponse,
        tools: &ToolRegistry,
    ) -> Result<PreparedDecisions> {
        let state = self.store.state(thread_id, None).await?;
        let pending: Interrupt = match &state.interrupt {
            None => {
                return Err(Error::conflict(format!(
                    "interrupt {} is not pending on this thread (already answered, or never raised)",
                    response.interrupt_id
                )));
            }
            Some(value) => serde_json::from_value(value.clone())
                .map_err(|e| Error::Corrupt(format!("pending interrupt: {e}")))?,
        };
        if pending.interrupt_id != response.interrupt_id {
            return Err(Error::conflict(format!(
                "interrupt {} is not pending on this thread; {} is",
                response.interrupt_id, pending.interrupt_id
            )));
        }
        if let Some(extra) = response
            .decisions
            .keys()
            .find(|id| !pending.requests.iter().any(|r| &r.call_id == *id))
        {
            return Err(Error::invalid(format!(
                "call {extra} is not part of interrupt {}",
                pending.interrupt_id
            )));
        }
        let mut meta = StepMeta::load(state.checkpoint.as_ref().map(|c| &c.metadata), run_id);
        let mut still_pending: HashSet<String> = pending_calls(&state.messages)?
            .into_iter()
            .map(|c| c.id)
            .collect();
        // Calls of paused subagents are pending in their own transcripts.
        let tasks: BTreeSet<&String> = pending
            .requests
            .iter()
            .filter_map(|r| meta.task_calls.get(&r.call_id))
            .collect();
        for task_id in tasks {
            if let Some(task) = self.store.task(thread_id, task_id).await? {
                still_pending.extend(pending_calls(&task.messages)?.into_iter().map(|c| c.id));
            }
        }
        let mut messages = Vec::new();
        let mut remember = Vec::new();
        // Said in the same step as the decisions, so it is never lost or doubled.
        if let Some(notice) = decided_notice(&response) {
            messages.push(notice_message(notice));
        }
        for request in &pending.requests {
            let decision = response.decisions.remove(&request.call_id).ok_or_else(|| {
                Error::invalid(format!(
                    "no decision for call {} ({}); every request needs one",
                    request.call_id, request.tool
                ))
            })?;
            if !request.allowed.contains(&decision.kind()) {
                return Err(Error::invalid(format!(
                    "{:?} is not allowed for call {}",
                    decision.kind(),
                    request.call_id
                )));
            }
            if !still_pending.contains(&request.call_id) {
                continue;
            }
            match decision {
                Decision::Approve { remember: scope } => {
                    let guard = meta.asked_against.remove(&request.call_id);
                    meta.approved.insert(
                        request.call_id.clone(),
                        Approved {
                            arguments: request.arguments.clone(),
                            edited: false,
                            guard,
                        },
                    );
                    if let Some(scope) = scope {
                        remember.push((request.tool.clone(), scope));
                    }
                }
                Decision::Edit { arguments } => {
                    tools
                        .validate(&request.tool, &arguments)
                        .map_err(|e| Error::invalid(e.to_string()))?;
                    // The guard holds while the edit still targets the file
                    // whose state the person saw.
                    let guard = meta.asked_against.remove(&request.call_id).filter(|asked| {
                        tools
                            .get(&request.tool)
                            .and_then(|tool| tool.change_target(&arguments))
                            .is_some_and(|path| path == asked.path)
                    });
                    meta.approved.insert(
                        request.call_id.clone(),
                        Approved {
                            arguments,
                            edited: true,
                            guard,
                        },
                    );
                }
                Decision::Reject { message } => {
                    let mut text = format!(
                        "The user rejected this {} call; it was not run.",
                        request.tool
                    );
                    if let Some(message) = message.filter(|m| !m.trim().is_empty()) {
                        text.push_str(" The user said: ");
                        text.push_str(&message);
                    }
                    answer(&mut meta, &mut messages, &request.call_id, text, true);
                }
                Decision::Respond { text } => {
                    answer(&mut meta, &mut messages, &request.call_id, text, false);
                }
            }
        }
        // Every request has its decision: nothing is asked against any more.
        meta.asked_against.clear();
        Ok(PreparedDecisions {
            step: StepCommit {
                messages,
                files: Vec::new(),
                interrupt: None,
                metadata: meta.to_value(),
            },
            head: state.checkpoint.map(|c| c.id),
            remember,
        })
    }
}

/// The result of a rejected or answered call: the thread's own calls get it
/// now; a subagent's call gets it when the subagent continues.
fn answer(
    meta: &mut StepMeta,
    messages: &mut Vec<pizza_store::NewMessage>,
    call_id: &str,
    text: String,
    is_error: bool,
) {
    if meta.task_calls.contains_key(call_id) {
        (meta.answered).insert(call_id.to_owned(), Answered { text, is_error });
    } else {
        messages.push(tool_result_message(call_id, &text, is_error));
    }
}

/// What the thread says about decisions made outside the approval card.
fn decided_notice(response: &InterruptResponse) -> Option<&'static str> {
    match response.decided_from {
        DecidedFrom::Window => None,
        DecidedFrom::Notification => {
            let kinds: HashSet<DecisionKind> =
                response.decisions.values().map(Decision::kind).collect();
            Some(match kinds.iter().collect::<Vec<_>>().as_slice() {
                [DecisionKind::Approve] => "Approved from the notification.",
                [DecisionKind::Reject] => "Denied from the notification.",
                _ => "Decided from the notification.",
            })
        }
    }
}
