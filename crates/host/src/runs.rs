//! The run commands: `run_start`, `run_cancel`, `run_respond`, `run_resume`,
//! `run_discard`, `thread_subscribe` and `thread_viewing`.
//!
//! A run is driven on its own task by the agent; its events go through the
//! [`RunRegistry`](registry::RunRegistry) to subscribers. Nothing here is tied
//! to a window: closing one never cancels a run.

mod maintenance;
mod model;
pub(crate) mod recovery;
pub(crate) mod registry;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use pizza_agent::{Agent, EventSink, RunInput, RunProfile};
use pizza_protocol::{
    ApiError, InterruptResponse, RunCancelParams, RunCancelResponse, RunEvent, RunEventFrame,
    RunRespondParams, RunStartParams, RunStartResponse, ThreadId, ThreadIdParams,
    ThreadSubscribeParams, ThreadSubscribeResponse, ThreadUnsubscribeParams, ThreadViewingParams,
};
use pizza_store as store;
use tokio::sync::mpsc;

use crate::{Host, HostError};
use model::ResolvedModel;
use registry::{RunHandle, RunRegistry};

/// Settings keys the agent is configured from (absent: the defaults).
const MAX_TOOL_CALLS_KEY: &str = "agent.max_tool_calls";
const REQUIRE_APPROVAL_KEY: &str = "agent.require_approval";
const PERSONA_KEY: &str = "agent.persona";

fn store_err(err: store::Error) -> ApiError {
    HostError::from(err).into()
}

/// The host's run state.
#[derive(Debug)]
pub(crate) struct Runs {
    pub(crate) registry: RunRegistry,
    agent: Agent,
    /// Granted folders and the memory folder, for each run's profile.
    mounts: Arc<dyn pizza_tools::MountSource>,
    /// The thread the user is looking at (`thread_viewing`).
    viewing: Mutex<Option<ThreadId>>,
    /// Run-end maintenance is serialized per thread.
    maintenance: Mutex<HashMap<ThreadId, Arc<tokio::sync::Mutex<()>>>>,
    /// Serialises edits of the resumable set.
    resumable: tokio::sync::Mutex<()>,
    /// Every spawned run, so quitting can wait for them to record their end.
    pub(crate) tasks: tokio_util::task::TaskTracker,
    /// False while the main window is hidden: nobody is looking at any thread.
    window_shown: AtomicBool,
}

impl Runs {
    pub(crate) fn new(agent: Agent, mounts: Arc<dyn pizza_tools::MountSource>) -> Self {
        Self {
            registry: RunRegistry::default(),
            agent,
            mounts,
            viewing: Mutex::default(),
            maintenance: Mutex::default(),
            resumable: tokio::sync::Mutex::new(()),
            tasks: tokio_util::task::TaskTracker::new(),
            window_shown: AtomicBool::new(true),
        }
    }
}

/// One run's profile from the settings as they are now; a missing or
/// unreadable value keeps its default.
pub(crate) async fn run_profile(
    store: &store::Store,
    mounts: Arc<dyn pizza_tools::MountSource>,
) -> RunProfile {
    let mut config = RunProfile {
        mounts: Some(mounts),
        ..RunProfile::default()
    };
    if let Ok(Some(max)) = store.setting_opt::<i64>(MAX_TOOL_CALLS_KEY).await {
        config.max_tool_calls = max;
    }
    if let Ok(Some(tools)) = store.setting_opt(REQUIRE_APPROVAL_KEY).await {
        config.require_approval = Some(tools);
    }
    if let Ok(Some(persona)) = store.setting_opt::<String>(PERSONA_KEY).await {
        config.persona = Some(persona);
    }
    config
}

/// How a spawned run begins.
enum Begin {
    /// Commit this user message first.
    Message(String),
    /// Continue from the last checkpoint.
    Checkpoint,
}

impl Host {
    fn runs(&self) -> &Runs {
        &self.inner.runs
    }

    pub async fn run_start(&self, params: RunStartParams) -> Result<RunStartResponse, ApiError> {
        let text = params.text.trim();
        if text.is_empty() {
            return Err(ApiError::invalid_input("A message needs some text."));
        }
        let (thread_id, reservation, model) = match &params.thread_id {
            Some(id) => {
                let thread = self.store().thread(id).await.map_err(store_err)?;
                // Busy first: the composer queues on CONFLICT without waiting.
                let reservation = self.runs().registry.reserve(&thread.id)?;
                let model = self
                    .resolve_model(params.model.as_deref(), thread.model.as_deref())
                    .await?;
                (thread.id, reservation, model)
            }
            None => {
                let model = self.resolve_model(params.model.as_deref(), None).await?;
                let thread = self
                    .store()
                    .create_thread(store::NewThread {
                        model: Some(model.key.clone()),
                        source: Some(store::ThreadSource::User),
                        ..store::NewThread::default()
                    })
                    .await
                    .map_err(store_err)?;
                let reservation = self.runs().registry.reserve(&thread.id)?;
                (thread.id, reservation, model)
            }
        };
        let run = self
            .store()
            .create_run(&thread_id, store::RunSource::User)
            .await
            .map_err(store_err)?;
        let handle = reservation.bind(run.id.clone());
        self.spawn_run(handle, &thread_id, model, Begin::Message(text.to_owned()));
        self.threads_changed(Some(&thread_id));
        Ok(RunStartResponse {
            thread_id,
            run_id: run.id,
        })
    }

    pub async fn run_cancel(&self, params: RunCancelParams) -> Result<RunCancelResponse, ApiError> {
        let cancelled = self
            .runs()
            .registry
            .cancel(&params.thread_id, &params.run_id);
        Ok(RunCancelResponse { cancelled })
    }

    pub async fn run_respond(
        &self,
        params: RunRespondParams,
    ) -> Result<RunStartResponse, ApiError> {
        let thread = self
            .store()
            .thread(&params.thread_id)
            .await
            .map_err(store_err)?;
        let reservation = self.runs().registry.reserve(&thread.id)?;
        let model = self.resolve_model(None, thread.model.as_deref()).await?;
        // Counters belong to the run that paused; the next run resets them.
        let paused_run = self
            .store()
            .thread_runs(&thread.id, 1)
            .await
            .map_err(store_err)?
            .into_iter()
            .next()
            .map(|r| r.id)
            .unwrap_or_default();
        let response = InterruptResponse {
            interrupt_id: params.interrupt_id,
            decisions: params.decisions,
        };
        let tools = pizza_tools::ToolRegistry::with_builtins();
        let committed = self
            .runs()
            .agent
            .accept_decisions(&thread.id, &paused_run, response, &tools)
            .await
            .map_err(|e| e.to_api_error())?;
        let run = self
            .store()
            .create_run(&thread.id, store::RunSource::User)
            .await
            .map_err(store_err)?;
        let handle = reservation.bind(run.id.clone());
        handle.announce_after_start(committed);
        self.clear_awaiting_action(&thread.id).await?;
        self.spawn_run(handle, &thread.id, model, Begin::Checkpoint);
        Ok(RunStartResponse {
            thread_id: thread.id,
            run_id: run.id,
        })
    }

    /// Streams the thread's frames: the buffered ones after `since`, then
    /// live. Dropping the receiver unsubscribes. A subscriber that falls
    /// behind gets a `lagged` frame and its stream ends.
    pub async fn thread_subscribe(
        &self,
        params: ThreadSubscribeParams,
    ) -> Result<(ThreadSubscribeResponse, mpsc::Receiver<RunEventFrame>), ApiError> {
        // An unknown thread is a mistake worth reporting, not an empty stream.
        self.store()
            .thread(&params.thread_id)
            .await
            .map_err(store_err)?;
        let subscription = self
            .runs()
            .registry
            .subscribe(&params.thread_id, params.since);
        Ok((
            ThreadSubscribeResponse {
                subscription_id: subscription.id,
                live_run_id: subscription.live_run_id,
            },
            subscription.frames,
        ))
    }

    pub async fn thread_unsubscribe(
        &self,
        params: ThreadUnsubscribeParams,
    ) -> Result<(), ApiError> {
        self.runs()
            .registry
            .unsubscribe(&params.thread_id, params.subscription_id);
        Ok(())
    }

    pub async fn thread_viewing(&self, params: ThreadViewingParams) -> Result<(), ApiError> {
        *self
            .runs()
            .viewing
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = params.thread_id;
        Ok(())
    }

    /// The thread's live run, if any.
    pub fn live_run(&self, thread_id: &str) -> Option<String> {
        self.runs().registry.live_run(thread_id)
    }

    /// Whether the main window is on screen. While it is hidden, no thread
    /// counts as viewed, so finished work lands in Unread.
    pub fn set_window_shown(&self, shown: bool) {
        self.runs().window_shown.store(shown, Ordering::Relaxed);
    }

    pub(crate) fn viewing(&self) -> Option<ThreadId> {
        if !self.runs().window_shown.load(Ordering::Relaxed) {
            return None;
        }
        self.runs()
            .viewing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    async fn clear_awaiting_action(&self, thread_id: &str) -> Result<(), ApiError> {
        self.store()
            .update_thread(
                thread_id,
                store::ThreadUpdate {
                    awaiting_action: Some(false),
                    ..store::ThreadUpdate::default()
                },
            )
            .await
            .map_err(store_err)?;
        self.threads_changed(Some(thread_id));
        Ok(())
    }

    fn spawn_run(
        &self,
        handle: Arc<RunHandle>,
        thread_id: &str,
        model: ResolvedModel,
        begin: Begin,
    ) {
        let host = self.clone();
        let thread_id = thread_id.to_owned();
        self.runs()
            .tasks
            .spawn(async move { host.drive(handle, thread_id, model, begin).await });
    }

    async fn drive(
        &self,
        handle: Arc<RunHandle>,
        thread_id: ThreadId,
        model: ResolvedModel,
        begin: Begin,
    ) {
        let run_id = handle.run_id().clone();
        let (new_user_text, resume) = match begin {
            Begin::Message(text) => (Some(text), false),
            Begin::Checkpoint => (None, true),
        };
        let input = RunInput {
            thread_id: thread_id.clone(),
            run_id: run_id.clone(),
            model: Arc::clone(&model.client),
            model_id: model.model_id.clone(),
            context_window: model.context_window,
            new_user_text,
            profile: Arc::new(run_profile(self.store(), Arc::clone(&self.runs().mounts)).await),
        };
        let sink: Arc<dyn EventSink> = handle.clone();
        let agent = &self.runs().agent;
        let outcome = if resume {
            agent.resume(input, sink, handle.cancel_token()).await
        } else {
            agent.run(input, sink, handle.cancel_token()).await
        };
        if let Err(error) = self.store().finish_run(&run_id, outcome.to_store()).await {
            tracing::warn!(%error, run_id, "could not record the end of a run");
        }
        handle.finish(RunEvent::RunFinished {
            status: outcome.status,
            error: outcome.error.clone(),
        });
        self.after_run(&thread_id, &run_id, &outcome, &model).await;
    }
}

/// Settings key of the threads whose run the app's restart interrupted.
const RESUMABLE_KEY: &str = "runs.resumable";

impl Host {
    async fn resumable_set(&self) -> Result<BTreeMap<ThreadId, String>, ApiError> {
        self.store().setting(RESUMABLE_KEY).await.map_err(store_err)
    }

    /// Whether the thread offers Resume / Discard.
    pub(crate) async fn is_resumable(&self, thread_id: &str) -> Result<bool, ApiError> {
        Ok(self.resumable_set().await?.contains_key(thread_id))
    }

    pub async fn run_resume(&self, params: ThreadIdParams) -> Result<RunStartResponse, ApiError> {
        let thread = self
            .store()
            .thread(&params.thread_id)
            .await
            .map_err(store_err)?;
        if !self.is_resumable(&thread.id).await? {
            return Err(ApiError::new(
                pizza_protocol::ErrorCode::Conflict,
                "This thread has no interrupted run to resume.",
            ));
        }
        let reservation = self.runs().registry.reserve(&thread.id)?;
        let model = self.resolve_model(None, thread.model.as_deref()).await?;
        let run = self
            .store()
            .create_run(&thread.id, store::RunSource::User)
            .await
            .map_err(store_err)?;
        let handle = reservation.bind(run.id.clone());
        self.forget_resumable(&thread.id).await?;
        self.spawn_run(handle, &thread.id, model, Begin::Checkpoint);
        Ok(RunStartResponse {
            thread_id: thread.id,
            run_id: run.id,
        })
    }

    pub async fn run_discard(&self, params: ThreadIdParams) -> Result<(), ApiError> {
        self.store()
            .thread(&params.thread_id)
            .await
            .map_err(store_err)?;
        self.forget_resumable(&params.thread_id).await
    }

    async fn forget_resumable(&self, thread_id: &str) -> Result<(), ApiError> {
        {
            let _edit = self.runs().resumable.lock().await;
            let mut set = self.resumable_set().await?;
            if set.remove(thread_id).is_some() {
                self.store()
                    .set_setting(RESUMABLE_KEY, &set)
                    .await
                    .map_err(store_err)?;
            }
        }
        self.clear_awaiting_action(thread_id).await
    }
}

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod tests_hitl;
