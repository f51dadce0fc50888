//! The run commands: `run_start`, `run_cancel`, `run_respond`, `run_resume`,
//! `run_discard`, `queue_add`, `queue_remove`, `thread_subscribe` and
//! `thread_viewing`.
//!
//! Every run starts through [`RunService::start`] (`start.rs`; public as
//! [`Host::start`]) and is driven on its own task by the agent
//! (`agent_runtime.rs`, the one place that calls it); its events go through
//! the [`RunRegistry`](registry::RunRegistry) to subscribers. Nothing here is tied to a window: closing one never cancels
//! a run, and queued messages wait in the store.

mod agent_runtime;
mod maintenance;
mod model;
mod queue;
pub(crate) mod recovery;
pub(crate) mod registry;
mod start;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pizza_protocol::{
    ApiError, DecidedFrom, InterruptResponse, QueueAddParams, QueueAddResponse, QueueRemoveParams,
    RunCancelParams, RunCancelResponse, RunEventFrame, RunRespondParams, RunStartParams,
    RunStartResponse, ThreadId, ThreadIdParams, ThreadSource, ThreadSubscribeParams,
    ThreadSubscribeResponse, ThreadUnsubscribeParams, ThreadViewingParams,
};
use pizza_store as store;
use tokio::sync::mpsc;

use crate::events::AppEvents;
use crate::notify::Notifications;
use crate::presence::WindowPresence;
use crate::providers::ProviderService;
use crate::threads::ThreadService;
use crate::{Host, HostError};
pub(crate) use agent_runtime::AgentRuntime;
use registry::{Reservation, RunRegistry};
pub use start::{RunBegin, RunSource, RunStart, StartTarget, Started, WhenBusy};

/// The owner of subscriptions opened without a window (tests, the host's
/// own callers); no window label is empty.
const HOST_OWNER: &str = "";

fn store_err(err: store::Error) -> ApiError {
    HostError::from(err).into()
}

/// The services runs need: models come from the providers, run-end
/// maintenance tells the threads, the window and the notifications.
#[derive(Debug)]
pub(crate) struct RunDeps {
    pub(crate) store: store::Store,
    pub(crate) events: AppEvents,
    pub(crate) presence: Arc<WindowPresence>,
    pub(crate) providers: Arc<ProviderService>,
    pub(crate) notifications: Arc<Notifications>,
    pub(crate) threads: Arc<ThreadService>,
}

/// Runs: starting, driving, queueing, cancelling and subscribing, and the
/// maintenance after each run's end.
#[derive(Debug)]
pub(crate) struct RunService {
    store: store::Store,
    events: AppEvents,
    presence: Arc<WindowPresence>,
    providers: Arc<ProviderService>,
    notifications: Arc<Notifications>,
    threads: Arc<ThreadService>,
    pub(crate) registry: Arc<RunRegistry>,
    agent: AgentRuntime,
    /// Run-end maintenance is serialized per thread.
    maintenance: Mutex<HashMap<ThreadId, Arc<tokio::sync::Mutex<()>>>>,
    /// Every spawned run, so quitting can wait for them to record their end.
    pub(crate) tasks: tokio_util::task::TaskTracker,
    /// The trigger runtime, told how each run ended (for its occurrence).
    scheduler: std::sync::OnceLock<pizza_scheduler::Scheduler>,
}

impl RunService {
    pub(crate) fn new(deps: RunDeps, agent: AgentRuntime, registry: Arc<RunRegistry>) -> Self {
        let RunDeps {
            store,
            events,
            presence,
            providers,
            notifications,
            threads,
        } = deps;
        Self {
            store,
            events,
            presence,
            providers,
            notifications,
            threads,
            registry,
            agent,
            maintenance: Mutex::default(),
            tasks: tokio_util::task::TaskTracker::new(),
            scheduler: std::sync::OnceLock::new(),
        }
    }

    pub(crate) fn set_scheduler(&self, scheduler: pizza_scheduler::Scheduler) {
        let _ = self.scheduler.set(scheduler);
    }

    /// The thread's id if it still exists.
    pub(crate) async fn thread_exists(&self, thread_id: &str) -> Option<ThreadId> {
        self.store.thread(thread_id).await.ok().map(|t| t.id)
    }

    /// Tells the trigger runtime how a run ended; a run of no trigger is
    /// looked up and left alone.
    async fn tell_scheduler(&self, run_id: &str, outcome: &pizza_agent::RunOutcome) {
        let Some(scheduler) = self.scheduler.get() else {
            return;
        };
        if let Some(ended) =
            crate::automations::occurrence_outcome(outcome, self.registry.is_closed())
        {
            scheduler.run_ended(run_id, ended).await;
        }
    }
}

/// A started run as the run commands answer it.
fn run_response(started: Started) -> Result<RunStartResponse, ApiError> {
    match started {
        Started::Run { thread_id, run_id } => Ok(RunStartResponse { thread_id, run_id }),
        // Only `WhenBusy::Queue` queues, and these commands refuse instead.
        Started::Queued { .. } => Err(ApiError::general(
            "The message was queued instead of sent; it is sent when the thread is free.",
        )),
    }
}

impl RunService {
    pub(crate) async fn run_start(
        self: &Arc<Self>,
        params: RunStartParams,
    ) -> Result<RunStartResponse, ApiError> {
        let target = match params.thread_id {
            Some(id) => StartTarget::Thread(id),
            None => StartTarget::NewThread {
                source: ThreadSource::User,
                folder_id: None,
                title: None,
            },
        };
        run_response(
            self.start(RunStart {
                target,
                begin: RunBegin::Message {
                    text: params.text,
                    attachments: params.attachments,
                },
                source: RunSource::User,
                model: params.model,
                when_busy: WhenBusy::Refuse,
                occurrence: None,
            })
            .await?,
        )
    }

    pub(crate) async fn run_cancel(
        &self,
        params: RunCancelParams,
    ) -> Result<RunCancelResponse, ApiError> {
        let cancelled = self.registry.cancel(&params.thread_id, &params.run_id);
        Ok(RunCancelResponse { cancelled })
    }

    pub(crate) async fn run_respond(
        self: &Arc<Self>,
        params: RunRespondParams,
    ) -> Result<RunStartResponse, ApiError> {
        run_response(
            self.start(RunStart {
                target: StartTarget::Thread(params.thread_id),
                begin: RunBegin::Decisions(InterruptResponse {
                    interrupt_id: params.interrupt_id,
                    decisions: params.decisions,
                    decided_from: DecidedFrom::Window,
                }),
                source: RunSource::User,
                model: None,
                when_busy: WhenBusy::Refuse,
                occurrence: None,
            })
            .await?,
        )
    }

    /// Holds the thread free of runs (stopping a live one and waiting for
    /// its end) until the returned claim is dropped.
    pub(crate) async fn hold_stopping(&self, thread_id: &str) -> Result<Reservation, ApiError> {
        self.registry.reserve_stopping(thread_id).await
    }

    /// Holds the thread free of runs until the claim is dropped; `CONFLICT`
    /// while one is live.
    pub(crate) fn hold_idle(&self, thread_id: &str) -> Result<Reservation, ApiError> {
        self.registry.reserve(thread_id).map_err(|mut busy| {
            if busy.code == pizza_protocol::ErrorCode::Conflict {
                busy.message =
                    "This thread is still working; stop it or wait for it to finish, then fork."
                        .to_owned();
            }
            busy
        })
    }

    /// Whether the thread offers Resume / Discard.
    pub(crate) async fn is_resumable(&self, thread_id: &str) -> Result<bool, ApiError> {
        self.store
            .thread_resumable(thread_id)
            .await
            .map_err(store_err)
    }

    pub(crate) async fn run_resume(
        self: &Arc<Self>,
        params: ThreadIdParams,
    ) -> Result<RunStartResponse, ApiError> {
        let thread = self
            .store
            .thread(&params.thread_id)
            .await
            .map_err(store_err)?;
        if !self.is_resumable(&thread.id).await? {
            return Err(ApiError::new(
                pizza_protocol::ErrorCode::Conflict,
                "This thread has no interrupted run to resume.",
            ));
        }
        // The new run row ends the offer, in its own transaction.
        run_response(
            self.start(RunStart {
                target: StartTarget::Thread(thread.id),
                begin: RunBegin::Continue,
                source: RunSource::User,
                model: None,
                when_busy: WhenBusy::Refuse,
                occurrence: None,
            })
            .await?,
        )
    }

    pub(crate) async fn run_discard(
        self: &Arc<Self>,
        params: ThreadIdParams,
    ) -> Result<(), ApiError> {
        self.store
            .thread(&params.thread_id)
            .await
            .map_err(store_err)?;
        self.store
            .clear_resumable(&params.thread_id)
            .await
            .map_err(store_err)?;
        self.clear_awaiting_action(&params.thread_id).await?;
        // What was queued behind the offer goes now.
        self.start_next_queued(&params.thread_id).await;
        Ok(())
    }

    /// Streams the thread's frames: the buffered ones after `since`, then
    /// live. Dropping the receiver unsubscribes. A subscriber that falls
    /// behind gets a `lagged` frame and its stream ends.
    pub(crate) async fn thread_subscribe(
        &self,
        owner: &str,
        params: ThreadSubscribeParams,
    ) -> Result<(ThreadSubscribeResponse, mpsc::Receiver<RunEventFrame>), ApiError> {
        // Registered at the call, before any wait: a run started just before
        // cannot end unseen while the thread is looked up.
        let subscription = self
            .registry
            .subscribe(&params.thread_id, params.since, owner);
        // An unknown thread is a mistake worth reporting, not an empty stream.
        if let Err(error) = self.store.thread(&params.thread_id).await {
            self.registry
                .unsubscribe(&params.thread_id, &subscription.id, owner);
            return Err(store_err(error));
        }
        Ok((
            ThreadSubscribeResponse {
                subscription_id: subscription.id,
                live_run_id: subscription.live_run_id,
            },
            subscription.frames,
        ))
    }

    pub(crate) async fn thread_unsubscribe(
        &self,
        owner: &str,
        params: ThreadUnsubscribeParams,
    ) -> Result<(), ApiError> {
        self.registry
            .unsubscribe(&params.thread_id, &params.subscription_id, owner);
        Ok(())
    }

    /// The thread's live run, if any.
    pub(crate) fn live_run(&self, thread_id: &str) -> Option<String> {
        self.registry.live_run(thread_id)
    }

    async fn clear_awaiting_action(&self, thread_id: &str) -> Result<(), ApiError> {
        self.store
            .update_thread(
                thread_id,
                store::ThreadUpdate {
                    awaiting_action: Some(false),
                    ..store::ThreadUpdate::default()
                },
            )
            .await
            .map_err(store_err)?;
        self.threads.threads_changed(Some(thread_id));
        Ok(())
    }
}

/// The run commands: thin calls of the service.
impl Host {
    pub(crate) fn runs(&self) -> &Arc<RunService> {
        &self.inner.runs
    }

    pub async fn run_start(&self, params: RunStartParams) -> Result<RunStartResponse, ApiError> {
        self.runs().run_start(params).await
    }

    pub async fn run_cancel(&self, params: RunCancelParams) -> Result<RunCancelResponse, ApiError> {
        self.runs().run_cancel(params).await
    }

    pub async fn run_respond(
        &self,
        params: RunRespondParams,
    ) -> Result<RunStartResponse, ApiError> {
        self.runs().run_respond(params).await
    }

    pub async fn run_resume(&self, params: ThreadIdParams) -> Result<RunStartResponse, ApiError> {
        self.runs().run_resume(params).await
    }

    pub async fn run_discard(&self, params: ThreadIdParams) -> Result<(), ApiError> {
        self.runs().run_discard(params).await
    }

    /// Streams the thread's frames: the buffered ones after `since`, then
    /// live. Dropping the receiver unsubscribes. A subscriber that falls
    /// behind gets a `lagged` frame and its stream ends.
    pub async fn thread_subscribe(
        &self,
        params: ThreadSubscribeParams,
    ) -> Result<(ThreadSubscribeResponse, mpsc::Receiver<RunEventFrame>), ApiError> {
        self.runs().thread_subscribe(HOST_OWNER, params).await
    }

    /// [`thread_subscribe`](Self::thread_subscribe) for a window: only
    /// `window` (its label) can end the subscription.
    pub async fn thread_subscribe_from(
        &self,
        window: &str,
        params: ThreadSubscribeParams,
    ) -> Result<(ThreadSubscribeResponse, mpsc::Receiver<RunEventFrame>), ApiError> {
        self.runs().thread_subscribe(window, params).await
    }

    /// Ends a subscription opened with [`thread_subscribe`](Self::thread_subscribe).
    pub async fn thread_unsubscribe(
        &self,
        params: ThreadUnsubscribeParams,
    ) -> Result<(), ApiError> {
        self.runs().thread_unsubscribe(HOST_OWNER, params).await
    }

    /// Ends `window`'s subscription; another window's with that id (or an
    /// unknown id) is left alone, and is not an error either.
    pub async fn thread_unsubscribe_from(
        &self,
        window: &str,
        params: ThreadUnsubscribeParams,
    ) -> Result<(), ApiError> {
        self.runs().thread_unsubscribe(window, params).await
    }

    pub async fn thread_viewing(&self, params: ThreadViewingParams) -> Result<(), ApiError> {
        self.inner.presence.set_viewing(params.thread_id);
        Ok(())
    }

    /// The thread's live run, if any.
    pub fn live_run(&self, thread_id: &str) -> Option<String> {
        self.runs().live_run(thread_id)
    }

    /// Whether the main window is on screen. While it is hidden, no thread
    /// counts as viewed, so finished work lands in Unread.
    pub fn set_window_shown(&self, shown: bool) {
        self.inner.presence.set_shown(shown);
    }

    /// Starts a run (or queues its message, per [`WhenBusy`]). Answers as
    /// soon as the run row exists; the run goes on on its own task, tied to
    /// no window.
    pub async fn start(&self, request: RunStart) -> Result<Started, ApiError> {
        self.runs().start(request).await
    }

    /// Sends the message now if the thread is free, else queues it.
    pub async fn queue_add(&self, params: QueueAddParams) -> Result<QueueAddResponse, ApiError> {
        self.runs().queue_add(params).await
    }

    pub async fn queue_remove(&self, params: QueueRemoveParams) -> Result<(), ApiError> {
        self.runs().queue_remove(params).await
    }

    /// Starts the oldest queued message of every thread that holds some and
    /// waits for nobody. The app calls it once its models can be resolved.
    pub async fn start_queued_messages(&self) {
        self.runs().start_queued_messages().await;
    }
}

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod tests_context;
#[cfg(test)]
mod tests_hitl;
#[cfg(test)]
mod tests_queue;
#[cfg(test)]
mod tests_trust;
#[cfg(test)]
mod tests_windows;
