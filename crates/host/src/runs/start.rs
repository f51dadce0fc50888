//! The one way a run starts. `run_start`, `run_respond`, `run_resume`, the
//! host queue and (next) the trigger scheduler all call [`RunService::start`]:
//! reserve the thread → resolve the model → create the run row → spawn.

use std::sync::Arc;

use pizza_agent::OpenedTurn;
use pizza_protocol::{
    ApiError, ErrorCode, FolderId, InterruptResponse, MESSAGE_TEXT_MAX_BYTES, QueuedMessage,
    RunEvent, RunId, ThreadId, ThreadSource,
};
use pizza_store as store;

pub use pizza_store::RunSource;

use super::RunService;
use super::agent_runtime::{RunAgent, awaiting_decision};
use super::model::ResolvedModel;
use super::registry::{Reservation, RunHandle};
use super::store_err;

/// Which thread a run goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartTarget {
    /// An existing thread.
    Thread(ThreadId),
    /// A thread made for this run.
    NewThread {
        source: ThreadSource,
        folder_id: Option<FolderId>,
        /// `None`: the run's first success names it.
        title: Option<String>,
    },
}

/// What begins the run.
#[derive(Debug, Clone, PartialEq)]
pub enum RunBegin {
    /// A user message (trimmed; it must say something) with the ids of its
    /// attachments (from `attachment_add`, in order).
    Message {
        text: String,
        attachments: Vec<String>,
    },
    /// The user's decisions for the thread's pending interrupt.
    Decisions(InterruptResponse),
    /// Continue from the thread's last checkpoint.
    Continue,
}

/// What to do when the thread already has a live run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenBusy {
    /// Refuse with `CONFLICT`.
    Refuse,
    /// Keep a message in the host's queue until the thread is free (also
    /// while a decision or a Resume offer is pending, and behind messages
    /// queued earlier). Decisions and Continue are refused as with `Refuse`.
    Queue,
}

/// A run to start.
#[derive(Debug, Clone, PartialEq)]
pub struct RunStart {
    pub target: StartTarget,
    pub begin: RunBegin,
    pub source: RunSource,
    /// `provider:model`; `None`: the thread's model, else the default.
    pub model: Option<String>,
    pub when_busy: WhenBusy,
    /// The trigger occurrence this run carries out: marked running with the
    /// run's id in the run row's own transaction. Messages are then never
    /// queued, and Continue makes no turn.
    pub occurrence: Option<store::OccurrenceLaunch>,
}

/// What became of a [`RunStart`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Started {
    Run {
        thread_id: ThreadId,
        run_id: RunId,
    },
    Queued {
        thread_id: ThreadId,
        queued: QueuedMessage,
    },
}

impl RunService {
    /// Starts a run (or queues its message, per [`WhenBusy`]). Answers as
    /// soon as the run row exists; the run goes on on its own task, tied to
    /// no window.
    pub(crate) async fn start(self: &Arc<Self>, request: RunStart) -> Result<Started, ApiError> {
        let RunStart {
            target,
            begin,
            source,
            model,
            when_busy,
            occurrence,
        } = request;
        let begin = checked(begin)?;
        let queue_text = match (&begin, when_busy) {
            (RunBegin::Message { text, attachments }, WhenBusy::Queue) if occurrence.is_none() => {
                Some((text.clone(), attachments.clone()))
            }
            _ => None,
        };
        let (thread, reservation) = match target {
            StartTarget::Thread(id) => {
                let thread = self.store.thread(&id).await.map_err(store_err)?;
                if let Some((text, attachments)) = &queue_text
                    && self.must_wait(&thread.id).await?
                {
                    return self
                        .enqueue(&thread.id, text, attachments, model.as_deref())
                        .await;
                }
                // Busy first: the composer queues on CONFLICT without waiting.
                let reservation = match self.registry.reserve(&thread.id) {
                    Ok(reservation) => reservation,
                    Err(busy) if busy.code == ErrorCode::Conflict => match &queue_text {
                        Some((text, attachments)) => {
                            return self
                                .enqueue(&thread.id, text, attachments, model.as_deref())
                                .await;
                        }
                        None => return Err(busy),
                    },
                    Err(error) => return Err(error),
                };
                (ThreadFor::Existing(thread), Some(reservation))
            }
            StartTarget::NewThread {
                source,
                folder_id,
                title,
            } => (
                ThreadFor::New(store::NewThread {
                    title,
                    folder_id,
                    model: None,
                    source: Some(source.into()),
                }),
                None,
            ),
        };
        // Resolved before anything is written, so a missing model leaves no
        // empty thread and no run.
        let model = self.resolve_model(model.as_deref(), thread.model()).await?;
        let agent = self.agent.for_run().await;
        let row = RunRow { source, occurrence };
        match begin {
            RunBegin::Message { text, attachments } => {
                let refs = crate::attachments::message_attachments(
                    &self.store,
                    &attachments,
                    &model.attachments,
                )
                .await?;
                let message = TurnMessage { text, refs };
                self.start_turn(thread, reservation, agent, model, row, message)
                    .await
            }
            other => {
                let (ThreadFor::Existing(thread), Some(reservation)) = (thread, reservation) else {
                    return Err(ApiError::invalid_input(
                        "A new thread begins with a message.",
                    ));
                };
                self.continue_thread(thread.id, reservation, agent, model, row, other)
                    .await
            }
        }
    }

    /// Begins a turn with the person's message: the message and the run row
    /// are written in one transaction before the caller hears of the run.
    async fn start_turn(
        self: &Arc<Self>,
        thread: ThreadFor,
        reservation: Option<Reservation>,
        agent: RunAgent,
        model: ResolvedModel,
        row: RunRow,
        message: TurnMessage,
    ) -> Result<Started, ApiError> {
        let TurnMessage { text, refs } = message;
        let (turn_thread, opened) = match thread {
            ThreadFor::Existing(thread) => {
                let opened = agent.open_turn(&thread.id, &text, &refs).await?;
                (store::TurnThread::Existing(thread.id), opened)
            }
            ThreadFor::New(mut new) => {
                new.model = Some(model.key.clone());
                let opened = OpenedTurn::first(&text, &refs).map_err(|e| e.to_api_error())?;
                (store::TurnThread::New(new), opened)
            }
        };
        let started = self
            .store
            .start_turn(store::TurnStart {
                thread: turn_thread,
                source: row.source,
                step: opened.step,
                expected_head: opened.head,
                queued_id: None,
                answers_interrupt: false,
                occurrence: row.occurrence,
                attachments: refs.iter().map(|r| r.id.clone()).collect(),
            })
            .await
            .map_err(|e| match e {
                // Raced by a decision being asked for: the backstop of the check above.
                store::Error::Conflict(_) if reservation.is_some() => awaiting_decision(),
                other => store_err(other),
            })?;
        // Nobody else knows a new thread's id yet: only quitting can refuse it
        // (and then the run is offered for Resume at the next start).
        let reservation = match reservation {
            Some(reservation) => reservation,
            None => self.registry.reserve(&started.thread_id)?,
        };
        Ok(self.launch(reservation, agent, started, model))
    }

    /// Continues the thread with the person's decisions, or from where a
    /// stopped run left off.
    async fn continue_thread(
        self: &Arc<Self>,
        thread_id: ThreadId,
        reservation: Reservation,
        agent: RunAgent,
        model: ResolvedModel,
        row: RunRow,
        begin: RunBegin,
    ) -> Result<Started, ApiError> {
        if let RunBegin::Decisions(response) = begin {
            return self
                .answer(thread_id, reservation, agent, model, row.source, response)
                .await;
        }
        let run = self
            .store
            .create_run_for(&thread_id, row.source, row.occurrence.as_ref())
            .await
            .map_err(store_err)?;
        let handle = reservation.bind(run.id.clone());
        // The Resume offer is answered.
        self.clear_awaiting_action(&thread_id).await?;
        self.spawn_run(handle, agent, &thread_id, model);
        Ok(Started::Run {
            thread_id,
            run_id: run.id,
        })
    }

    /// Continues with the person's decisions: they are committed with the
    /// run row in one transaction, answering the interrupt exactly once.
    async fn answer(
        self: &Arc<Self>,
        thread_id: ThreadId,
        reservation: Reservation,
        agent: RunAgent,
        model: ResolvedModel,
        source: RunSource,
        response: InterruptResponse,
    ) -> Result<Started, ApiError> {
        // The decisions are recorded against the run that paused; the agent keeps
        // its budget across them (it resets only with a new user message).
        let paused_run = self
            .store
            .thread_runs(&thread_id, 1)
            .await
            .map_err(store_err)?
            .into_iter()
            .next()
            .map(|r| r.id)
            .unwrap_or_default();
        let prepared = agent
            .prepare_decisions(&thread_id, &paused_run, response)
            .await?;
        let started = self
            .store
            .start_turn(store::TurnStart {
                thread: store::TurnThread::Existing(thread_id.clone()),
                source,
                step: prepared.step,
                expected_head: prepared.head,
                queued_id: None,
                answers_interrupt: true,
                occurrence: None,
                attachments: Vec::new(),
            })
            .await
            .map_err(|e| match e {
                store::Error::Conflict(_) => ApiError::new(
                    ErrorCode::Conflict,
                    "This decision was already made; the thread has moved on.",
                ),
                other => store_err(other),
            })?;
        agent.remember(&thread_id, prepared.remember).await;
        Ok(self.launch(reservation, agent, started, model))
    }

    /// Starts the thread's oldest queued message if the thread is free and
    /// nothing waits for the user. Returns the message's id and its run.
    pub(crate) async fn start_queued(
        self: &Arc<Self>,
        thread_id: &str,
    ) -> Result<Option<(String, RunId)>, ApiError> {
        let store = &self.store;
        let queue = store.queued_messages(thread_id).await.map_err(store_err)?;
        let Some(next) = queue.into_iter().next() else {
            return Ok(None);
        };
        if self.waits_for_user(thread_id).await? {
            return Ok(None);
        }
        // Busy (or quitting): the live run's end starts it.
        let Ok(reservation) = self.registry.reserve(thread_id) else {
            return Ok(None);
        };
        let thread = store.thread(thread_id).await.map_err(store_err)?;
        let model = self
            .resolve_model(next.model.as_deref(), thread.model.as_deref())
            .await?;
        let agent = self.agent.for_run().await;
        let ids: Vec<String> = next.attachments.iter().map(|a| a.id.clone()).collect();
        let refs = crate::attachments::message_attachments(store, &ids, &model.attachments).await?;
        let opened = agent.open_turn(thread_id, &next.text, &refs).await?;
        let started = match store
            .start_turn(store::TurnStart {
                thread: store::TurnThread::Existing(thread_id.to_owned()),
                source: RunSource::User,
                step: opened.step,
                expected_head: opened.head,
                queued_id: Some(next.id.clone()),
                answers_interrupt: false,
                occurrence: None,
                attachments: ids,
            })
            .await
        {
            Ok(started) => started,
            // Removed meanwhile: nothing to send.
            Err(store::Error::NotFound { .. }) => return Ok(None),
            Err(error) => return Err(store_err(error)),
        };
        let Started::Run { run_id, .. } = self.launch(reservation, agent, started, model) else {
            return Ok(None);
        };
        self.queue_changed(thread_id).await;
        Ok(Some((next.id, run_id)))
    }

    /// Binds the reservation to the run that was just written, announces its
    /// opening messages once it has started, and drives it.
    fn launch(
        self: &Arc<Self>,
        reservation: Reservation,
        agent: RunAgent,
        started: store::TurnStarted,
        model: ResolvedModel,
    ) -> Started {
        let handle = reservation.bind(started.run.id.clone());
        handle.announce_after_start(
            started
                .step
                .messages
                .iter()
                .map(store::transcript::view)
                .collect(),
        );
        self.threads.threads_changed(Some(&started.thread_id));
        self.spawn_run(handle, agent, &started.thread_id, model);
        Started::Run {
            thread_id: started.thread_id,
            run_id: started.run.id,
        }
    }

    fn spawn_run(
        self: &Arc<Self>,
        handle: Arc<RunHandle>,
        agent: RunAgent,
        thread_id: &str,
        model: ResolvedModel,
    ) {
        let runs = Arc::clone(self);
        let thread_id = thread_id.to_owned();
        self.tasks.spawn(async move {
            runs.drive(handle, agent, thread_id, model).await;
        });
    }

    async fn drive(
        self: &Arc<Self>,
        handle: Arc<RunHandle>,
        agent: RunAgent,
        thread_id: ThreadId,
        model: ResolvedModel,
    ) {
        let run_id = handle.run_id().clone();
        let sink: Arc<dyn pizza_agent::EventSink> = handle.clone();
        let outcome = agent
            .drive(&thread_id, &run_id, &model, sink, handle.cancel_token())
            .await;
        if let Err(error) = self.store.finish_run(&run_id, outcome.to_store()).await {
            tracing::warn!(%error, run_id, "could not record the end of a run");
        }
        self.tell_scheduler(&run_id, &outcome).await;
        handle.finish(RunEvent::RunFinished {
            status: outcome.status,
            error: outcome.error.clone(),
        });
        self.after_run(&thread_id, &run_id, &outcome, &model).await;
        // A run that paused for a decision keeps the queue waiting.
        if outcome.interrupt.is_none() {
            self.start_next_queued(&thread_id).await;
        }
    }
}

/// The person's message as the turn opens with it.
struct TurnMessage {
    text: String,
    refs: Vec<store::AttachmentRef>,
}

/// What the run row records besides its thread.
struct RunRow {
    source: RunSource,
    occurrence: Option<store::OccurrenceLaunch>,
}

/// The thread a run goes to, once read (or to be made with the run).
enum ThreadFor {
    Existing(store::Thread),
    New(store::NewThread),
}

impl ThreadFor {
    fn model(&self) -> Option<&str> {
        match self {
            Self::Existing(thread) => thread.model.as_deref(),
            Self::New(_) => None,
        }
    }
}

/// `begin` as a run may take it: a message says something (trimmed), at
/// most [`MESSAGE_TEXT_MAX_BYTES`], with at most
/// [`ATTACHMENTS_PER_MESSAGE_MAX`](pizza_protocol::ATTACHMENTS_PER_MESSAGE_MAX) attachments.
fn checked(begin: RunBegin) -> Result<RunBegin, ApiError> {
    let RunBegin::Message { text, attachments } = begin else {
        return Ok(begin);
    };
    let text = text.trim();
    if text.is_empty() && attachments.is_empty() {
        return Err(ApiError::invalid_input(
            "A message needs some text or an attachment.",
        ));
    }
    if text.len() > MESSAGE_TEXT_MAX_BYTES {
        return Err(ApiError::invalid_input(format!(
            "The message is {} KiB; the limit is {} KiB. Attach long text as a file instead.",
            text.len().div_ceil(1024),
            MESSAGE_TEXT_MAX_BYTES / 1024
        )));
    }
    crate::attachments::check_count(attachments.len())?;
    Ok(RunBegin::Message {
        text: text.to_owned(),
        attachments,
    })
}
