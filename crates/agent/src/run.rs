//! One run's loop: model call → tool calls → results → repeat.

pub(crate) mod model_call;
mod nested;
mod tool_calls;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use pizza_llm::{CancellationToken, Usage};
use pizza_protocol::{ApprovalRequest, RunEvent, RunStatus};
use pizza_store::{FileChange, Message as StoredMessage, NewMessage, StepCommit, TaskStep};
use pizza_tools::{CompositeFs, FileSystem, ThreadFiles};
use serde_json::Value;

use crate::agent::{Agent, RunInput, RunOutcome};
use crate::error::{Error, Result, model_api_error};
use crate::meta::StepMeta;
use crate::profile::RunProfile;
use crate::sink::EventSink;
use crate::task::TaskScope;
use crate::transcript::{notice_message, pending_calls, turn_is_over};
use crate::turn::turn_messages;

pub(crate) const MODEL_LIMIT_NOTICE: &str = "This run reached its limit of model calls and \
stopped. Send a message to continue.";

/// Why the loop stopped early.
#[derive(Debug)]
pub(crate) enum Stop {
    Cancelled,
    Failed(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        match e {
            Error::Model(pizza_llm::Error::Cancelled) => Self::Cancelled,
            other => Self::Failed(other),
        }
    }
}

impl From<pizza_store::Error> for Stop {
    fn from(e: pizza_store::Error) -> Self {
        Self::Failed(e.into())
    }
}

/// What a step of the loop decided.
#[derive(Debug)]
pub(crate) enum Next {
    Continue,
    Done(RunOutcome),
}

pub(crate) struct RunLoop<'a> {
    pub(crate) agent: &'a Agent,
    pub(crate) input: RunInput,
    /// The run's profile (shared with `input`), for short paths.
    pub(crate) profile: Arc<RunProfile>,
    pub(crate) sink: Arc<dyn EventSink>,
    pub(crate) cancel: CancellationToken,
    pub(crate) meta: StepMeta,
    /// The committed transcript, kept in step with each commit.
    pub(crate) messages: Vec<StoredMessage>,
    pub(crate) files: ThreadFiles,
    /// What every tool call of the run works through: `files`, plus the
    /// granted folders and memories when the agent has mounts.
    pub(crate) fs: Arc<dyn FileSystem>,
    pub(crate) usage: Usage,
    /// The text of the model call streaming now, kept if the person stops it.
    pub(crate) streamed: String,
    /// The tools the person allowed in this thread ("allow for this
    /// thread"), read when the run starts.
    pub(crate) allowed_in_thread: BTreeSet<String>,
    /// Set when this loop is a subagent's: what it was asked, by which skill.
    pub(crate) task: Option<TaskScope>,
    /// Requests of subagents that paused during this step, raised with the
    /// step's own gated calls as one interrupt.
    pub(crate) paused: Vec<ApprovalRequest>,
}

impl<'a> RunLoop<'a> {
    pub(crate) fn new(
        agent: &'a Agent,
        input: RunInput,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            agent,
            meta: StepMeta::default(),
            profile: Arc::clone(&input.profile),
            input,
            sink,
            cancel,
            messages: Vec::new(),
            files: ThreadFiles::default(),
            fs: Arc::new(ThreadFiles::default()),
            usage: Usage::default(),
            streamed: String::new(),
            allowed_in_thread: BTreeSet::new(),
            task: None,
            paused: Vec::new(),
        }
    }

    pub(crate) async fn drive(&mut self) -> RunOutcome {
        let mut outcome = match self.drive_inner().await {
            Ok(outcome) => outcome,
            Err(Stop::Cancelled) => RunOutcome::new(RunStatus::Cancelled),
            Err(Stop::Failed(e)) => {
                tracing::warn!(thread = %self.input.thread_id, run = %self.input.run_id, error = %e, "run failed");
                // A provider that stopped answering in time is its own ending:
                // the person may simply try again.
                let status = match &e {
                    Error::Model(m) if m.kind() == pizza_llm::ErrorKind::Timeout => {
                        RunStatus::TimedOut
                    }
                    _ => RunStatus::Failed,
                };
                let mut outcome = RunOutcome::new(status);
                outcome.error = Some(match &e {
                    Error::Model(m) => model_api_error(m),
                    other => other.to_api_error(),
                });
                outcome
            }
        };
        outcome.usage = self.usage;
        self.end_invocation();
        outcome
    }

    pub(crate) async fn drive_inner(&mut self) -> Result<RunOutcome, Stop> {
        match self.task.clone() {
            Some(task) => self.load_task(task).await?,
            None => self.load().await?,
        }
        if let Some(text) = self.input.new_user_text.clone() {
            self.start_turn(&text).await?;
        }
        loop {
            if self.cancel.is_cancelled() {
                return Err(Stop::Cancelled);
            }
            let pending = pending_calls(&self.messages)?;
            let next = if pending.is_empty() {
                if turn_is_over(&self.messages) {
                    return Ok(RunOutcome::new(RunStatus::Succeeded));
                }
                if self.meta.model_calls >= self.profile.max_model_calls {
                    self.commit(vec![notice_message(MODEL_LIMIT_NOTICE)], None)
                        .await?;
                    return Ok(RunOutcome::new(RunStatus::Succeeded));
                }
                self.model_turn().await?
            } else {
                self.run_tool_calls(pending).await?
            };
            if let Next::Done(outcome) = next {
                return Ok(outcome);
            }
        }
    }

    /// Reads the thread's head state into the loop.
    async fn load(&mut self) -> Result<(), Stop> {
        let state = self.agent.store.state(&self.input.thread_id, None).await?;
        self.meta = StepMeta::load(
            state.checkpoint.as_ref().map(|c| &c.metadata),
            &self.input.run_id,
        );
        if self.input.new_user_text.is_some() && state.interrupt.is_some() {
            return Err(Stop::Failed(Error::conflict(
                "the thread is waiting for a decision on a tool call; answer it first",
            )));
        }
        if self.input.new_user_text.is_none() && state.interrupt.is_some() {
            return Err(Stop::Failed(Error::conflict(
                "the thread is waiting for a decision on a tool call; resume it by answering",
            )));
        }
        self.files = ThreadFiles::new(
            state
                .files
                .into_iter()
                .map(|(path, file)| (path, file.content))
                .collect::<BTreeMap<_, _>>(),
        );
        self.fs = match &self.profile.mounts {
            Some(mounts) => Arc::new(CompositeFs::new(self.files.clone(), Arc::clone(mounts))),
            None => Arc::new(self.files.clone()),
        };
        self.messages = state.messages;
        self.allowed_in_thread = self
            .agent
            .store
            .thread_tool_allowances(&self.input.thread_id)
            .await?;
        Ok(())
    }

    /// Commits the user's message, closing any calls a stopped run left
    /// unanswered (providers refuse a transcript with an unanswered call).
    async fn start_turn(&mut self, text: &str) -> Result<(), Stop> {
        let messages = turn_messages(&self.messages, text, &[])?;
        self.meta.new_turn();
        self.commit(messages, None).await
    }

    /// Commits one step: `messages`, the files changed since the last commit,
    /// the carried metadata and `interrupt`; announces each message.
    pub(crate) async fn commit(
        &mut self,
        messages: Vec<NewMessage>,
        interrupt: Option<Value>,
    ) -> Result<(), Stop> {
        let files = self
            .files
            .take_changes()
            .into_iter()
            .map(|(path, content)| FileChange { path, content })
            .collect();
        let committed = match &self.task {
            // A subagent never raises the interrupt itself: the orchestrator
            // asks once for every paused call of the step.
            Some(task) => {
                let step = TaskStep {
                    task_id: task.task_id.clone(),
                    skill: task.skill.name.clone(),
                    ask: task.ask.clone(),
                    messages,
                    files,
                    metadata: self.meta.to_value(),
                };
                (self.agent.store)
                    .commit_task_step(&self.input.thread_id, step)
                    .await?
            }
            None => self.commit_thread_step(messages, files, interrupt).await?,
        };
        for message in committed {
            self.sink.emit(
                &self.profile.namespace,
                RunEvent::MessageCompleted {
                    message: pizza_store::transcript::view(&message),
                },
            );
            self.messages.push(message);
        }
        Ok(())
    }

    async fn commit_thread_step(
        &self,
        messages: Vec<NewMessage>,
        files: Vec<FileChange>,
        interrupt: Option<Value>,
    ) -> Result<Vec<StoredMessage>, Stop> {
        let committed = self
            .agent
            .store
            .commit_step(
                &self.input.thread_id,
                StepCommit {
                    messages,
                    files,
                    interrupt,
                    metadata: self.meta.to_value(),
                },
            )
            .await?;
        Ok(committed.messages)
    }
}
