//! The one way a run starts. `run_start`, `run_respond`, `run_resume`, the
//! host queue and (next) the trigger scheduler all call [`RunService::start`]:
//! reserve the thread → resolve the model → create the run row → spawn.

use std::sync::Arc;

use pizza_protocol::{
    ApiError, ErrorCode, FolderId, InterruptResponse, QueuedMessage, RunEvent, RunId, ThreadId,
    ThreadSource,
};
use pizza_store as store;

pub use pizza_store::RunSource;

use super::RunService;
use super::agent_runtime::{Begin, RunAgent};
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
    /// attachments (none can be sent yet).
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
        } = request;
        let begin = match begin {
            RunBegin::Message { text, attachments } => {
                let text = text.trim();
                if text.is_empty() {
                    return Err(ApiError::invalid_input("A message needs some text."));
                }
                if !attachments.is_empty() {
                    return Err(ApiError::invalid_input(
                        "Attachments cannot be sent yet; send the message without them.",
                    ));
                }
                RunBegin::Message {
                    text: text.to_owned(),
                    attachments,
                }
            }
            other => other,
        };
        let queue_text = match (&begin, when_busy) {
            (RunBegin::Message { text, .. }, WhenBusy::Queue) => Some(text.clone()),
            _ => None,
        };
        let (thread_id, reservation, model) = match target {
            StartTarget::Thread(id) => {
                let thread = self.store.thread(&id).await.map_err(store_err)?;
                if let Some(text) = &queue_text
                    && self.must_wait(&thread.id).await?
                {
                    return self.enqueue(&thread.id, text, model.as_deref()).await;
                }
                // Busy first: the composer queues on CONFLICT without waiting.
                let reservation = match self.registry.reserve(&thread.id) {
                    Ok(reservation) => reservation,
                    Err(busy) if busy.code == ErrorCode::Conflict => match &queue_text {
                        Some(text) => {
                            return self.enqueue(&thread.id, text, model.as_deref()).await;
                        }
                        None => return Err(busy),
                    },
                    Err(error) => return Err(error),
                };
                let model = self
                    .resolve_model(model.as_deref(), thread.model.as_deref())
                    .await?;
                (thread.id, reservation, model)
            }
            StartTarget::NewThread {
                source: thread_source,
                folder_id,
                title,
            } => {
                // Resolved first, so a missing model leaves no empty thread.
                let model = self.resolve_model(model.as_deref(), None).await?;
                let thread = self
                    .store
                    .create_thread(store::NewThread {
                        title,
                        folder_id,
                        model: Some(model.key.clone()),
                        source: Some(thread_source.into()),
                    })
                    .await
                    .map_err(store_err)?;
                let reservation = self.registry.reserve(&thread.id)?;
                (thread.id, reservation, model)
            }
        };
        let agent = self.agent.for_run().await;
        let (drive_begin, committed) = match begin {
            RunBegin::Message { text, .. } => (Begin::Message(text), Vec::new()),
            RunBegin::Decisions(response) => {
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
                let committed = agent
                    .accept_decisions(&thread_id, &paused_run, response)
                    .await?;
                (Begin::Checkpoint, committed)
            }
            RunBegin::Continue => (Begin::Checkpoint, Vec::new()),
        };
        let run = self
            .store
            .create_run(&thread_id, source)
            .await
            .map_err(store_err)?;
        let handle = reservation.bind(run.id.clone());
        handle.announce_after_start(committed);
        if drive_begin == Begin::Checkpoint {
            // The decision (or the Resume offer) is answered.
            self.clear_awaiting_action(&thread_id).await?;
        } else {
            self.threads.threads_changed(Some(&thread_id));
        }
        self.spawn_run(handle, agent, &thread_id, model, drive_begin);
        Ok(Started::Run {
            thread_id,
            run_id: run.id,
        })
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
        let run = match store
            .create_run_from_queue(thread_id, &next.id, RunSource::User)
            .await
        {
            Ok(run) => run,
            // Removed meanwhile: nothing to send.
            Err(store::Error::NotFound { .. }) => return Ok(None),
            Err(error) => return Err(store_err(error)),
        };
        self.launch(reservation, agent, thread_id, &run.id, model, next.text);
        self.queue_changed(thread_id).await;
        self.threads.threads_changed(Some(thread_id));
        Ok(Some((next.id, run.id)))
    }

    fn launch(
        self: &Arc<Self>,
        reservation: Reservation,
        agent: RunAgent,
        thread_id: &str,
        run_id: &RunId,
        model: ResolvedModel,
        text: String,
    ) {
        let handle = reservation.bind(run_id.clone());
        self.spawn_run(handle, agent, thread_id, model, Begin::Message(text));
    }

    fn spawn_run(
        self: &Arc<Self>,
        handle: Arc<RunHandle>,
        agent: RunAgent,
        thread_id: &str,
        model: ResolvedModel,
        begin: Begin,
    ) {
        let runs = Arc::clone(self);
        let thread_id = thread_id.to_owned();
        self.tasks.spawn(async move {
            runs.drive(handle, agent, thread_id, model, begin).await;
        });
    }

    async fn drive(
        self: &Arc<Self>,
        handle: Arc<RunHandle>,
        agent: RunAgent,
        thread_id: ThreadId,
        model: ResolvedModel,
        begin: Begin,
    ) {
        let run_id = handle.run_id().clone();
        let sink: Arc<dyn pizza_agent::EventSink> = handle.clone();
        let outcome = agent
            .drive(
                &thread_id,
                &run_id,
                &model,
                begin,
                sink,
                handle.cancel_token(),
            )
            .await;
        if let Err(error) = self.store.finish_run(&run_id, outcome.to_store()).await {
            tracing::warn!(%error, run_id, "could not record the end of a run");
        }
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
