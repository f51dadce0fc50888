//! One delegation: a subagent's loop over its own transcript (kept by the
//! store apart from the thread's), on the thread's files, under the skill's
//! tools and gates. It reports back to the orchestrator; a call it must ask
//! about pauses it, and the orchestrator raises one interrupt for all.

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::Engine as _;
use pizza_protocol::{ApprovalPolicy, ApprovalRequest, RunStatus};
use pizza_store::{Message as StoredMessage, Role};
use pizza_tools::{FileSystem, ToolOutput};
use serde_json::Value;

use super::{SUBAGENT_MAX_MODEL_CALLS, Subagent};
use crate::agent::RunInput;
use crate::meta::{Answered, Approved, AskedAgainst, StepMeta};
use crate::profile::RunProfile;
use crate::run::{RunLoop, Stop};
use crate::transcript::{PendingCall, pending_calls, tool_result_message, user_message};

/// Where a skill's sibling files appear in the thread's files.
pub(crate) const SKILL_FILES_ROOT: &str = "/skills";

/// Said to a subagent on its last model call, which has no tools.
pub(crate) const LAST_CALL_NOTE: &str = "You have no tool calls left: answer now with what you \
verified, and say plainly what you could not cover.";

const NO_REPORT: &str = "The skill ended without a report.";

/// What a subagent's loop works on.
#[derive(Debug, Clone)]
pub(crate) struct TaskScope {
    /// The `task` call's id.
    pub(crate) task_id: String,
    pub(crate) skill: Arc<Subagent>,
    pub(crate) ask: String,
    /// The person's decisions on its paused calls, kept by the orchestrator.
    pub(crate) approved: BTreeMap<String, Approved>,
    pub(crate) answered: BTreeMap<String, Answered>,
}

/// How a delegation ended, for the orchestrator.
#[derive(Debug)]
pub(crate) enum TaskEnd {
    /// The report: the `task` call's result, verbatim.
    Report(ToolOutput),
    /// Calls of the subagent wait for the person.
    Paused {
        requests: Vec<ApprovalRequest>,
        asked_against: BTreeMap<String, AskedAgainst>,
    },
    Cancelled,
}

impl TaskEnd {
    pub(crate) fn status(&self) -> RunStatus {
        match self {
            Self::Report(output) if output.is_error => RunStatus::Failed,
            Self::Report(_) => RunStatus::Succeeded,
            Self::Paused { .. } => RunStatus::Interrupted,
            Self::Cancelled => RunStatus::Cancelled,
        }
    }
}

/// The skill and ask of a `task` call, or the error the model is told.
pub(crate) fn task_target(
    profile: &RunProfile,
    arguments: &Value,
) -> Result<(Arc<Subagent>, String), String> {
    let skill = arguments.get("skill").and_then(Value::as_str).unwrap_or("");
    let ask = arguments.get("ask").and_then(Value::as_str).unwrap_or("");
    let names = || {
        profile
            .subagents
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(found) = profile.subagents.iter().find(|s| s.name == skill) else {
        return Err(format!(
            "Error: task: no skill named `{skill}`; choose one of: {}",
            names()
        ));
    };
    if ask.trim().is_empty() {
        return Err("Error: task: `ask` is empty; pass the user's request".to_owned());
    }
    Ok((Arc::clone(found), ask.to_owned()))
}

/// A subagent's profile: the skill's prompt and tools, the subagent limits,
/// its gates on top of the person's policies ("never" still wins), the
/// orchestrator's clock and mounts, and no delegation of its own.
fn subagent_profile(parent: &RunProfile, skill: &Subagent, task_id: &str) -> RunProfile {
    let mut approval_policies = parent.approval_policies.clone();
    for tool in skill.interrupt_on.keys() {
        if approval_policies.get(tool) != Some(&ApprovalPolicy::Never) {
            approval_policies.insert(tool.clone(), ApprovalPolicy::Ask);
        }
    }
    let mut namespace = parent.namespace.clone();
    namespace.push(task_id.to_owned());
    RunProfile {
        tools: skill.tools.clone(),
        max_model_calls: SUBAGENT_MAX_MODEL_CALLS,
        max_tool_calls: parent.max_subagent_tool_calls,
        approval_policies,
        allowed_decisions: skill.interrupt_on.clone(),
        namespace,
        last_call_tool_free: true,
        persona: None,
        base_prompt: skill.system_prompt.clone(),
        clock: Arc::clone(&parent.clock),
        summarize_at: parent.summarize_at,
        keep_recent: parent.keep_recent,
        max_output_tokens: parent.max_output_tokens,
        mounts: parent.mounts.clone(),
        subagents: Vec::new(),
        unavailable_skills: Vec::new(),
        max_subagent_tool_calls: parent.max_subagent_tool_calls,
    }
}

/// What a subagent loop starts from besides its skill and ask: the
/// parent's run, files, view and allowances.
pub(crate) struct TaskParent<'p> {
    pub(crate) input: &'p RunInput,
    pub(crate) sink: &'p Arc<dyn crate::sink::EventSink>,
    pub(crate) files: &'p pizza_tools::ThreadFiles,
    pub(crate) fs: &'p Arc<dyn FileSystem>,
    pub(crate) allowed_in_thread: &'p std::collections::BTreeSet<String>,
}

impl TaskParent<'_> {
    /// The subagent loop for `scope`, under the parent run's profile.
    pub(crate) fn subagent<'a>(
        &self,
        agent: &'a crate::agent::Agent,
        scope: TaskScope,
        cancel: pizza_llm::CancellationToken,
    ) -> RunLoop<'a> {
        let profile = Arc::new(subagent_profile(
            &self.input.profile,
            &scope.skill,
            &scope.task_id,
        ));
        let input = RunInput {
            profile,
            new_user_text: None,
            ..self.input.clone()
        };
        let mut sub = RunLoop::new(agent, input, Arc::clone(self.sink), cancel);
        sub.files = self.files.clone();
        sub.fs = Arc::clone(self.fs);
        sub.allowed_in_thread = self.allowed_in_thread.clone();
        sub.task = Some(scope);
        sub
    }
}

impl<'a> RunLoop<'a> {
    pub(crate) fn as_task_parent(&self) -> TaskParent<'_> {
        TaskParent {
            input: &self.input,
            sink: &self.sink,
            files: &self.files,
            fs: &self.fs,
            allowed_in_thread: &self.allowed_in_thread,
        }
    }

    /// The subagent loop for the `task` call `call`, sharing this run's
    /// files, view and allowances, with the person's decisions on its
    /// paused calls.
    pub(crate) fn delegate(
        &self,
        call: &PendingCall,
        skill: Arc<Subagent>,
        ask: String,
        cancel: pizza_llm::CancellationToken,
    ) -> RunLoop<'a> {
        let mine = |id: &String| self.meta.task_calls.get(id) == Some(&call.id);
        let scope = TaskScope {
            task_id: call.id.clone(),
            skill,
            ask,
            approved: (self.meta.approved.iter())
                .filter(|(id, _)| mine(id))
                .map(|(id, a)| (id.clone(), a.clone()))
                .collect(),
            answered: (self.meta.answered.iter())
                .filter(|(id, _)| mine(id))
                .map(|(id, a)| (id.clone(), a.clone()))
                .collect(),
        };
        self.as_task_parent().subagent(self.agent, scope, cancel)
    }

    /// Runs the subagent to its report, its pause or a cancel. A failure is
    /// reported to the orchestrator as the call's error.
    pub(crate) async fn run_task(mut self) -> (TaskEnd, pizza_llm::Usage) {
        let end = match self.drive_inner().await {
            Ok(outcome) => match outcome.interrupt {
                Some(interrupt) => {
                    let asked_against = interrupt
                        .requests
                        .iter()
                        .filter_map(|r| {
                            let asked = self.meta.asked_against.get(&r.call_id)?;
                            Some((r.call_id.clone(), asked.clone()))
                        })
                        .collect();
                    TaskEnd::Paused {
                        requests: interrupt.requests,
                        asked_against,
                    }
                }
                None => TaskEnd::Report(ToolOutput::text(report_of(&self.messages))),
            },
            Err(Stop::Cancelled) => TaskEnd::Cancelled,
            Err(Stop::Failed(e)) => {
                let name = self.task.as_ref().map_or("", |t| t.skill.name.as_str());
                tracing::warn!(skill = name, error = %e, "subagent failed");
                TaskEnd::Report(ToolOutput {
                    is_error: true,
                    ..ToolOutput::text(format!("Error: the skill {name} failed: {e}"))
                })
            }
        };
        self.end_invocation();
        (end, self.usage)
    }

    /// A subagent's state: its stored transcript, or a fresh one with the
    /// ask (and the skill's files seeded); then the person's decisions on
    /// its paused calls.
    pub(crate) async fn load_task(&mut self, task: TaskScope) -> Result<(), Stop> {
        let run_id = self.input.run_id.clone();
        let stored = (self.agent.store)
            .task(&self.input.thread_id, &task.task_id)
            .await?;
        match stored {
            Some(state) => {
                self.meta = StepMeta::load(Some(&state.metadata), &run_id);
                self.messages = state.messages;
            }
            None => {
                self.meta = StepMeta::load(None, &run_id);
                self.seed_files(&task.skill).await;
                self.commit(vec![user_message(&task.ask, &[])], None)
                    .await?;
            }
        }
        let mut answers = Vec::new();
        for call in pending_calls(&self.messages)? {
            self.meta.asked_against.remove(&call.id);
            if let Some(approved) = task.approved.get(&call.id) {
                self.meta.approved.insert(call.id.clone(), approved.clone());
            } else if let Some(answer) = task.answered.get(&call.id) {
                answers.push(tool_result_message(&call.id, &answer.text, answer.is_error));
            }
        }
        if !answers.is_empty() {
            self.commit(answers, None).await?;
        }
        Ok(())
    }

    /// The skill's sibling files under `/skills/<name>/` (binary ones as
    /// base64 text, `<file>.base64`), from the compiled bundle, never the
    /// host disk.
    async fn seed_files(&self, skill: &Subagent) {
        for (path, bytes) in &skill.files {
            let base = format!("{SKILL_FILES_ROOT}/{}/{path}", skill.name);
            let (target, text) = match std::str::from_utf8(bytes) {
                Ok(text) => (base, text.to_owned()),
                Err(_) => (
                    format!("{base}.base64"),
                    base64::engine::general_purpose::STANDARD.encode(bytes),
                ),
            };
            if let Err(error) = self.files.write(&target, text).await {
                tracing::warn!(%target, %error, "could not seed a skill file");
            }
        }
    }
}

/// The subagent's report: its last answer after the ask.
fn report_of(messages: &[StoredMessage]) -> String {
    messages
        .iter()
        .rev()
        .take_while(|m| m.role != Role::User)
        .find(|m| m.role == Role::Assistant && !m.text.trim().is_empty())
        .map_or_else(|| NO_REPORT.to_owned(), |m| m.text.clone())
}
