//! A thread's live run: the `thread_subscribe` stream, the run's state while
//! it streams (text deltas batched per animation frame), and the commands
//! that start, stop, resume or discard runs and queue messages behind them.

use super::delegation::Delegation;
use super::live::ToolCard;
use super::state::Inbox;
use super::streamed::StreamedText;
use crate::ipc::{EventStream, invoke};
use leptos::prelude::*;
use pizza_protocol::{
    ApiError, ContextUse, ErrorReason, Interrupt, MessageView, QueueAddParams, QueueRemoveParams,
    QueuedMessage, Role, RunCancelParams, RunEvent, RunEventFrame, RunId, RunStartParams, ThreadId,
    ThreadIdParams, ThreadSubscribeParams, cmd,
};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Deltas received since the last animation frame.
#[derive(Default)]
struct Pending {
    text: String,
    reasoning: String,
    scheduled: bool,
}

/// Everything the pane shows about the thread's runs.
#[derive(Clone, Copy)]
pub(crate) struct RunState {
    pub(crate) inbox: Inbox,
    pub(crate) thread_id: StoredValue<ThreadId>,
    pub(crate) messages: RwSignal<Vec<MessageView>>,
    pub(crate) live_run: RwSignal<Option<RunId>>,
    /// The answer streaming in.
    pub(crate) text: StreamedText,
    pub(crate) reasoning: RwSignal<String>,
    pub(crate) tools: RwSignal<Vec<ToolCard>>,
    /// What each `task` call's subagent did, keyed by the call's id.
    pub(crate) delegations: RwSignal<BTreeMap<String, Delegation>>,
    pub(crate) interrupt: RwSignal<Option<Interrupt>>,
    pub(crate) error: RwSignal<Option<ApiError>>,
    pub(crate) resumable: RwSignal<bool>,
    pub(crate) model: RwSignal<Option<String>>,
    pub(crate) draft: RwSignal<String>,
    pending: StoredValue<Pending, LocalStorage>,
    last_seq: StoredValue<Option<u64>>,
    alive: StoredValue<Rc<Cell<bool>>, LocalStorage>,
    /// Counts subscribe calls, so a stream replaced while its call was in
    /// flight delivers nothing and is ended when its answer comes.
    attempt: StoredValue<u64>,
    stream: StoredValue<Option<EventStream>, LocalStorage>,
    /// The host's id for the open subscription, to end it when leaving.
    subscription: StoredValue<Option<String>>,
    /// The last run seen to finish: its `run_finished` can arrive before
    /// the `run_start` answer, which must then not mark it live again.
    finished: StoredValue<Option<RunId>>,
}

impl RunState {
    pub(crate) fn new(
        inbox: Inbox,
        thread_id: ThreadId,
        messages: RwSignal<Vec<MessageView>>,
    ) -> Self {
        let state = Self {
            inbox,
            thread_id: StoredValue::new(thread_id),
            messages,
            live_run: RwSignal::new(None),
            text: StreamedText::new(),
            reasoning: RwSignal::new(String::new()),
            tools: RwSignal::new(Vec::new()),
            delegations: RwSignal::new(BTreeMap::new()),
            interrupt: RwSignal::new(None),
            error: RwSignal::new(None),
            resumable: RwSignal::new(false),
            model: RwSignal::new(None),
            draft: RwSignal::new(String::new()),
            pending: StoredValue::new_local(Pending::default()),
            last_seq: StoredValue::new(None),
            alive: StoredValue::new_local(Rc::new(Cell::new(true))),
            attempt: StoredValue::new(0),
            stream: StoredValue::new_local(None),
            subscription: StoredValue::new(None),
            finished: StoredValue::new(None),
        };
        inbox.context.set(None);
        // The feed's delegation cards read the run's subagents from here.
        provide_context(state);
        on_cleanup(move || {
            state.alive.with_value(|alive| alive.set(false));
            drop(state.stream.try_update_value(Option::take));
            if let (Some(thread_id), Some(Some(subscription_id))) = (
                state.thread_id.try_get_value(),
                state.subscription.try_get_value(),
            ) {
                unsubscribe(thread_id, subscription_id);
            }
        });
        state
    }

    fn id(self) -> ThreadId {
        self.thread_id.get_value()
    }

    pub(crate) fn running(self) -> bool {
        self.live_run.with(Option::is_some)
    }

    /// A tool call waits for the person: a message now is queued behind the
    /// decision, never a run of its own.
    pub(crate) fn awaiting_decision(self) -> bool {
        self.interrupt.with(Option::is_some)
    }

    /// The messages the host holds for this thread's next runs, oldest first.
    pub(crate) fn queued(self) -> Vec<QueuedMessage> {
        let id = self.id();
        self.inbox.queues.with(|queues| queues.of(&id).to_vec())
    }

    /// Opens (or, after `lagged`, reopens) the subscription.
    pub(crate) fn subscribe(self, since: Option<u64>) {
        if let Some(request) = self.subscription_request(since) {
            leptos::task::spawn_local(async move {
                if let Err(error) = request.await {
                    self.error.set(Some(error));
                }
            });
        }
    }

    /// [`Self::subscribe`], returning once the host has registered the
    /// subscription (or refused it): every frame from then on reaches here.
    pub(crate) async fn subscribe_and_wait(self, since: Option<u64>) -> Result<(), ApiError> {
        match self.subscription_request(since) {
            Some(request) => request.await,
            None => Ok(()),
        }
    }

    /// Retires the current stream now (so none of its frames is handled
    /// twice), and returns the call that opens the new one; it fails only
    /// while this is still the pane's current subscription.
    fn subscription_request(
        self,
        since: Option<u64>,
    ) -> Option<impl Future<Output = Result<(), ApiError>>> {
        let attempt = self.attempt.try_update_value(|a| {
            *a += 1;
            *a
        })?;
        drop(self.stream.try_update_value(Option::take));
        if let Some(old) = self.subscription.get_value() {
            self.subscription.set_value(None);
            unsubscribe(self.id(), old);
        }
        // Shared by the stream's callback and the answer below.
        let current = Rc::new({
            let alive = self.alive.get_value();
            move || alive.get() && self.attempt.try_get_value() == Some(attempt)
        });
        let thread_id = self.id();
        let params = ThreadSubscribeParams {
            thread_id: thread_id.clone(),
            since,
        };
        Some(async move {
            let on_frame = {
                let current = Rc::clone(&current);
                move |frame| {
                    if current() {
                        self.handle(frame);
                    }
                }
            };
            match crate::ipc::subscribe::<cmd::ThreadSubscribe>(&params, on_frame).await {
                Ok((response, stream)) => {
                    // The pane may have closed, or subscribed again, meanwhile.
                    if !current() {
                        drop(stream);
                        unsubscribe(thread_id, response.subscription_id);
                        return Ok(());
                    }
                    self.stream.set_value(Some(stream));
                    self.subscription.set_value(Some(response.subscription_id));
                    // The run's frames may have ended it before this
                    // answer arrived; `started` keeps an ended run ended.
                    if let Some(run_id) = response.live_run_id {
                        self.started(run_id);
                    }
                    Ok(())
                }
                Err(error) if current() => Err(error),
                Err(_) => Ok(()),
            }
        })
    }

    /// Whether a frame has arrived since the pane subscribed.
    pub(crate) fn has_frames(self) -> bool {
        self.last_seq.with_value(Option::is_some)
    }

    fn handle(self, frame: RunEventFrame) {
        self.last_seq.set_value(Some(frame.seq));
        if !frame.namespace.is_empty() {
            // A subagent's: its tool calls go to its delegation card; its
            // text and messages are not the thread's answer.
            self.handle_subagent(frame);
            return;
        }
        match frame.event {
            RunEvent::TextDelta { text } => self.buffer(|p| p.text.push_str(&text)),
            RunEvent::ReasoningDelta { text } => self.buffer(|p| p.reasoning.push_str(&text)),
            event => {
                self.flush();
                self.handle_event(frame.run_id, event, frame.seq);
            }
        }
    }

    fn handle_event(self, run_id: RunId, event: RunEvent, seq: u64) {
        match event {
            RunEvent::RunStarted { .. } => {
                self.live_run.set(Some(run_id));
                self.error.set(None);
                self.resumable.set(false);
                self.inbox.running.update(|r| {
                    r.insert(self.id());
                });
            }
            RunEvent::MessageCompleted { message } => {
                if message.role != Role::User {
                    self.text.clear();
                    self.reasoning.set(String::new());
                }
                if message.role == Role::Tool {
                    self.tools.update(|t| t.retain(|c| c.result.is_none()));
                }
                self.messages.update(|list| {
                    if !list.iter().any(|m| m.id == message.id) {
                        list.push(message);
                    }
                });
            }
            RunEvent::ToolStarted {
                call_id,
                name,
                arguments,
            } => self
                .tools
                .update(|t| ToolCard::started(t, call_id, name, arguments)),
            RunEvent::ToolFinished {
                call_id,
                result,
                is_error,
                ..
            } => self
                .tools
                .update(|t| ToolCard::finished(t, &call_id, result, is_error)),
            RunEvent::Interrupt { interrupt } => self.interrupt.set(Some(interrupt)),
            RunEvent::SubagentStarted {
                task_id,
                skill,
                ask,
            } => self.delegations.update(|d| {
                let delegation = d.entry(task_id).or_default();
                delegation.skill = skill;
                delegation.ask = ask;
                delegation.status = None;
            }),
            RunEvent::SubagentFinished { task_id, status } => self.delegations.update(|d| {
                d.entry(task_id).or_default().status = Some(status);
            }),
            RunEvent::Usage {
                input_tokens,
                output_tokens,
                context_window,
                summarized,
            } => {
                if let Some(context_window) = context_window {
                    self.inbox.context.set(Some(ContextUse {
                        used_tokens: input_tokens + output_tokens,
                        context_window,
                        summarized,
                    }));
                }
            }
            // The host starts the next queued message itself; the queue's
            // chips follow `queue_changed`.
            RunEvent::RunFinished { error, .. } => {
                if self
                    .live_run
                    .get_untracked()
                    .is_some_and(|live| live != run_id)
                {
                    return; // a replayed older run
                }
                self.finished.set_value(Some(run_id));
                self.live_run.set(None);
                self.text.clear();
                self.reasoning.set(String::new());
                self.inbox.running.update(|r| {
                    r.remove(&self.id());
                });
                if let Some(error) = error {
                    self.error.set(Some(error));
                }
            }
            RunEvent::Lagged => self.subscribe(Some(seq)),
            RunEvent::TextDelta { .. } | RunEvent::ReasoningDelta { .. } => {}
        }
    }

    fn buffer(self, add: impl FnOnce(&mut Pending)) {
        let schedule = self.pending.try_update_value(|p| {
            add(p);
            !std::mem::replace(&mut p.scheduled, true)
        });
        if schedule == Some(true) {
            let alive = self.alive.get_value();
            request_animation_frame(move || {
                if alive.get() {
                    self.flush();
                }
            });
        }
    }

    /// Moves the buffered deltas into the view: one update per frame.
    fn flush(self) {
        let Some((text, reasoning)) = self.pending.try_update_value(|p| {
            p.scheduled = false;
            (
                std::mem::take(&mut p.text),
                std::mem::take(&mut p.reasoning),
            )
        }) else {
            return;
        };
        if !text.is_empty() {
            self.text.push(&text);
        }
        if !reasoning.is_empty() {
            self.reasoning.update(|t| t.push_str(&reasoning));
        }
    }

    /// Starts a run with the message (`text` and the ids of its stored
    /// files), or has the host queue it behind the live one. Whether the host
    /// took it: if not, the error is shown and the caller keeps what it sent.
    pub(crate) async fn send(self, text: String, attachments: Vec<String>) -> bool {
        if self.running() || self.awaiting_decision() {
            return self.enqueue(text, attachments).await;
        }
        let params = RunStartParams {
            thread_id: Some(self.id()),
            text,
            model: self.model.get_untracked(),
            attachments,
        };
        self.error.set(None);
        match invoke::<cmd::RunStart>(&params).await {
            Ok(started) => {
                self.started(started.run_id);
                true
            }
            // A decision was asked for meanwhile: the message waits for it.
            Err(error) if error.reason == Some(ErrorReason::AwaitingDecision) => {
                self.enqueue(params.text, params.attachments).await
            }
            Err(error) => {
                self.error.set(Some(error));
                false
            }
        }
    }

    async fn enqueue(self, text: String, attachments: Vec<String>) -> bool {
        let thread_id = self.id();
        let asked_at = self.inbox.queues.with_untracked(|q| q.version(&thread_id));
        let params = QueueAddParams {
            thread_id,
            text,
            model: self.model.get_untracked(),
            attachments,
        };
        self.error.set(None);
        match invoke::<cmd::QueueAdd>(&params).await {
            Ok(answer) => {
                if let Some(message) = answer.queued {
                    self.inbox.queues.update(|q| {
                        q.add(answer.thread_id.clone(), asked_at, message);
                    });
                }
                // The live run had ended: the message started its own.
                if let Some(run_id) = answer.run_id {
                    self.started(run_id);
                }
                true
            }
            Err(error) => {
                self.error.set(Some(error));
                false
            }
        }
    }

    /// Takes a queued message back before the host sends it.
    pub(crate) fn unqueue(self, queued_id: String) {
        let params = QueueRemoveParams {
            thread_id: self.id(),
            queued_id,
        };
        leptos::task::spawn_local(async move {
            match invoke::<cmd::QueueRemove>(&params).await {
                Ok(()) => self
                    .inbox
                    .queues
                    .update(|q| q.remove(&params.thread_id, &params.queued_id)),
                Err(error) => self.error.set(Some(error)),
            }
        });
    }

    /// A run the host says is live: shown as running unless its
    /// `run_finished` was already handled (frames and command answers travel
    /// separately, so the end can arrive first under load).
    pub(crate) fn started(self, run_id: RunId) {
        let already_over = self.finished.with_value(|f| f.as_ref() == Some(&run_id));
        if self.alive.with_value(|a| a.get()) && !already_over {
            self.live_run.set(Some(run_id));
            self.resumable.set(false);
            self.inbox.running.update(|r| {
                r.insert(self.id());
            });
        }
    }

    pub(crate) fn stop(self) {
        let Some(run_id) = self.live_run.get_untracked() else {
            return;
        };
        let params = RunCancelParams {
            thread_id: self.id(),
            run_id,
        };
        leptos::task::spawn_local(async move {
            if let Err(error) = invoke::<cmd::RunCancel>(&params).await {
                self.error.set(Some(error));
            }
        });
    }

    pub(crate) fn resume(self) {
        let params = ThreadIdParams {
            thread_id: self.id(),
        };
        leptos::task::spawn_local(async move {
            match invoke::<cmd::RunResume>(&params).await {
                Ok(started) => self.started(started.run_id),
                Err(error) => self.error.set(Some(error)),
            }
        });
    }

    pub(crate) fn discard(self) {
        let params = ThreadIdParams {
            thread_id: self.id(),
        };
        leptos::task::spawn_local(async move {
            match invoke::<cmd::RunDiscard>(&params).await {
                Ok(()) => self.resumable.set(false),
                Err(error) => self.error.set(Some(error)),
            }
        });
    }
}

/// Tells the host to end a subscription (fire and forget: the pane is going).
fn unsubscribe(thread_id: ThreadId, subscription_id: String) {
    leptos::task::spawn_local(async move {
        let params = pizza_protocol::ThreadUnsubscribeParams {
            thread_id,
            subscription_id,
        };
        let _ = crate::ipc::invoke::<cmd::ThreadUnsubscribe>(&params).await;
    });
}
