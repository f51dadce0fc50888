//! The run registry: at most one live run per thread, a bounded ring of
//! frames per run, the host-wide `seq`, and the subscribers each frame fans
//! out to.
//!
//! One lock per thread: a run's events only contend with that thread's
//! subscribers, never with other threads' runs.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use pizza_agent::{CancellationToken, EventSink};
use pizza_protocol::{ApiError, MessageView, RunEvent, RunEventFrame, RunId, ThreadId};
use tokio::sync::{Notify, mpsc};
// Tokio's clock, so tests can move it; std's outside a runtime.
use tokio::time::Instant;

/// Frames kept per run; older ones are dropped (what lasts is in the store).
pub(crate) const RING_CAPACITY: usize = 4_000;
/// How long a finished run's frames stay replayable; then they go, whether
/// or not another run starts (see [`forget_after_retention`]). Only a
/// subscription with `since` replays them, and those come at once: quick
/// ask's answer, which subscribes as its question's run starts and may find
/// it over, and a lagged stream subscribing again. A window opened on the
/// thread later reads the finished run from the store. Ten seconds covers
/// a loaded machine many times over; a minute held the frames of every
/// run finished in it, long after anyone could ask for them.
pub(crate) const FINISHED_RETENTION: Duration = Duration::from_secs(10);
/// A subscriber's queue: a whole replay fits, plus one slot kept for the
/// `lagged` notice.
const SUBSCRIBER_QUEUE: usize = 2 * RING_CAPACITY + 1;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section leaves the state consistent; a panic in one
    // (a bug) must not take every later run down with it.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[derive(Debug, Default)]
pub(crate) struct RunRegistry {
    /// Set once the app is quitting: no run may start after that.
    closed: AtomicBool,
    seq: Arc<AtomicU64>,
    threads: Mutex<HashMap<ThreadId, Arc<Mutex<ThreadRuns>>>>,
}

#[derive(Debug, Default)]
struct ThreadRuns {
    /// Claimed before the run row exists, so `run_id` is set a moment later.
    live: Option<LiveRun>,
    /// Oldest first; the live run's buffer, if any, is the last.
    buffers: VecDeque<RunBuffer>,
    subscribers: Vec<Subscriber>,
    /// Told whenever `live` is released.
    freed: Arc<Notify>,
}

#[derive(Debug)]
struct LiveRun {
    run_id: Option<RunId>,
    cancel: CancellationToken,
}

#[derive(Debug)]
struct RunBuffer {
    run_id: RunId,
    frames: VecDeque<Buffered>,
    finished_at: Option<Instant>,
}

/// A buffered frame without the run and thread every frame of its buffer
/// shares: those were two allocations per frame, nearly half the buffer.
#[derive(Debug)]
struct Buffered {
    seq: u64,
    namespace: Vec<String>,
    event: RunEvent,
}

impl Buffered {
    fn frame(&self, run_id: &str, thread_id: &str) -> RunEventFrame {
        RunEventFrame {
            seq: self.seq,
            run_id: run_id.to_owned(),
            thread_id: thread_id.to_owned(),
            namespace: self.namespace.clone(),
            event: self.event.clone(),
        }
    }
}

#[derive(Debug)]
struct Subscriber {
    /// Random, so one window cannot name another's subscription.
    id: String,
    /// Who opened it (a window's label); only they can end it.
    owner: String,
    tx: mpsc::Sender<RunEventFrame>,
    /// The last seq delivered, for the `lagged` notice.
    last_seq: u64,
}

impl Subscriber {
    /// Delivers without waiting; false when the subscriber is gone or fell
    /// behind (it then gets a `lagged` frame and is dropped).
    fn deliver(&mut self, frame: &RunEventFrame) -> bool {
        if self.tx.capacity() <= 1 {
            let _ = self.tx.try_send(RunEventFrame {
                seq: self.last_seq,
                event: RunEvent::Lagged,
                namespace: Vec::new(),
                ..frame.clone()
            });
            return false;
        }
        if self.tx.try_send(frame.clone()).is_err() {
            return false;
        }
        self.last_seq = frame.seq;
        true
    }
}

impl ThreadRuns {
    fn live_run_id(&self) -> Option<&RunId> {
        self.live.as_ref().and_then(|l| l.run_id.as_ref())
    }

    fn purge(&mut self, now: Instant) {
        self.buffers.retain(|b| {
            b.finished_at
                .is_none_or(|at| now.duration_since(at) < FINISHED_RETENTION)
        });
        self.subscribers.retain(|s| !s.tx.is_closed());
    }

    fn is_idle(&self) -> bool {
        self.live.is_none() && self.buffers.is_empty() && self.subscribers.is_empty()
    }
}

/// A new subscription: the receiver yields the replay, then live frames.
#[derive(Debug)]
pub(crate) struct Subscription {
    pub(crate) id: String,
    pub(crate) live_run_id: Option<RunId>,
    pub(crate) frames: mpsc::Receiver<RunEventFrame>,
}

impl RunRegistry {
    fn entry(&self, thread_id: &str) -> Arc<Mutex<ThreadRuns>> {
        let mut threads = lock(&self.threads);
        Arc::clone(threads.entry(thread_id.to_owned()).or_default())
    }

    /// Claims the thread's live slot; `Conflict` while another run holds it.
    /// The claim is released if the reservation is dropped unbound.
    pub(crate) fn reserve(&self, thread_id: &str) -> Result<Reservation, ApiError> {
        self.sweep();
        let entry = self.entry(thread_id);
        let cancel = CancellationToken::new();
        {
            let mut state = lock(&entry);
            // Checked under the thread's lock, which `close` also takes: a
            // reservation is either refused or seen (and cancelled) by it.
            if self.closed.load(Ordering::SeqCst) {
                return Err(ApiError::general(
                    "Pizza Bot is quitting, so it cannot start new work. Open it again to continue.",
                ));
            }
            if state.live.is_some() {
                return Err(ApiError::new(
                    pizza_protocol::ErrorCode::Conflict,
                    "This thread is already working; wait for it to finish or stop it.",
                ));
            }
            state.live = Some(LiveRun {
                run_id: None,
                cancel: cancel.clone(),
            });
        }
        Ok(Reservation {
            entry: Some(entry),
            thread_id: thread_id.to_owned(),
            cancel,
            seq: Arc::clone(&self.seq),
        })
    }

    /// Claims the thread's live slot, first stopping the run that holds it
    /// and waiting for that run to end: for work no run may overlap, such
    /// as deleting the thread.
    pub(crate) async fn reserve_stopping(&self, thread_id: &str) -> Result<Reservation, ApiError> {
        loop {
            let entry = self.entry(thread_id);
            let freed = Arc::clone(&lock(&entry).freed);
            let released = freed.notified();
            tokio::pin!(released);
            // Registered before the check, so a release in between is not missed.
            released.as_mut().enable();
            match self.reserve(thread_id) {
                Err(busy) if busy.code == pizza_protocol::ErrorCode::Conflict => {
                    if let Some(live) = &lock(&entry).live {
                        live.cancel.cancel();
                    }
                    released.await;
                }
                other => return other,
            }
        }
    }

    /// Drops idle threads and expired buffers so the map does not grow with
    /// every thread ever run.
    fn sweep(&self) {
        let now = Instant::now();
        lock(&self.threads).retain(|_, entry| {
            let mut state = lock(entry);
            state.purge(now);
            !state.is_idle()
        });
    }

    /// Stops the thread's live run if it is `run_id`; false otherwise.
    pub(crate) fn cancel(&self, thread_id: &str, run_id: &str) -> bool {
        let Some(entry) = lock(&self.threads).get(thread_id).cloned() else {
            return false;
        };
        let state = lock(&entry);
        match &state.live {
            Some(live) if live.run_id.as_deref() == Some(run_id) => {
                live.cancel.cancel();
                true
            }
            _ => false,
        }
    }

    /// Refuses every later reservation and cancels every live run (or claim).
    /// Returns how many were cancelled.
    pub(crate) fn close(&self) -> usize {
        self.closed.store(true, Ordering::SeqCst);
        let entries: Vec<_> = lock(&self.threads).values().cloned().collect();
        let mut cancelled = 0;
        for entry in entries {
            if let Some(live) = &lock(&entry).live {
                live.cancel.cancel();
                cancelled += 1;
            }
        }
        cancelled
    }

    /// How many threads have a live run (or a run being started).
    /// Whether the app is quitting: runs ending now were stopped by it.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    pub(crate) fn live_count(&self) -> usize {
        let entries: Vec<_> = lock(&self.threads).values().cloned().collect();
        entries
            .iter()
            .filter(|entry| lock(entry).live.is_some())
            .count()
    }

    pub(crate) fn live_run(&self, thread_id: &str) -> Option<RunId> {
        let entry = lock(&self.threads).get(thread_id).cloned()?;
        lock(&entry).live_run_id().cloned()
    }

    /// Drops `owner`'s subscription; its receiver then ends. Returns whether
    /// it existed. Another owner's subscription with that id stays.
    pub(crate) fn unsubscribe(&self, thread_id: &str, subscription_id: &str, owner: &str) -> bool {
        let entry = self.entry(thread_id);
        let mut state = lock(&entry);
        let before = state.subscribers.len();
        state
            .subscribers
            .retain(|s| s.id != subscription_id || s.owner != owner);
        state.subscribers.len() != before
    }

    /// Opens a subscription: buffered frames with `seq > since` (`None`: the
    /// live run's frames), then every new frame of the thread. Replay and
    /// registration happen under the thread's lock, so nothing is missed or
    /// delivered twice.
    pub(crate) fn subscribe(
        &self,
        thread_id: &str,
        since: Option<u64>,
        owner: &str,
    ) -> Subscription {
        let entry = self.entry(thread_id);
        // 122 random bits: not guessable from any other id the window sees.
        let id = uuid::Uuid::new_v4().simple().to_string();
        let (tx, frames) = mpsc::channel(SUBSCRIBER_QUEUE);
        let mut state = lock(&entry);
        state.purge(Instant::now());
        let live_run_id = state.live_run_id().cloned();
        let mut subscriber = Subscriber {
            id: id.clone(),
            owner: owner.to_owned(),
            tx,
            last_seq: since.unwrap_or(0),
        };
        let replay: Vec<&RunBuffer> = match since {
            Some(_) => state.buffers.iter().collect(),
            None => state
                .buffers
                .iter()
                .filter(|b| Some(&b.run_id) == live_run_id.as_ref() && b.finished_at.is_none())
                .collect(),
        };
        let after = since.unwrap_or(0);
        let mut keep = true;
        for (run_id, buffered) in replay
            .into_iter()
            .flat_map(|b| b.frames.iter().map(|f| (&b.run_id, f)))
            .filter(|(_, f)| f.seq > after)
        {
            if !subscriber.deliver(&buffered.frame(run_id, thread_id)) {
                keep = false;
                break;
            }
        }
        if keep {
            state.subscribers.push(subscriber);
        }
        Subscription {
            id,
            live_run_id,
            frames,
        }
    }
}

/// A claimed live slot whose run row is being created.
#[derive(Debug)]
pub(crate) struct Reservation {
    entry: Option<Arc<Mutex<ThreadRuns>>>,
    thread_id: ThreadId,
    cancel: CancellationToken,
    seq: Arc<AtomicU64>,
}

impl Reservation {
    /// The run row exists: events of `run_id` may flow.
    pub(crate) fn bind(mut self, run_id: RunId) -> Arc<RunHandle> {
        let entry = self.entry.take();
        if let Some(entry) = &entry {
            let mut state = lock(entry);
            if let Some(live) = &mut state.live {
                live.run_id = Some(run_id.clone());
            }
            state.buffers.push_back(RunBuffer {
                run_id: run_id.clone(),
                frames: VecDeque::new(),
                finished_at: None,
            });
        }
        Arc::new(RunHandle {
            entry: entry.unwrap_or_default(),
            thread_id: self.thread_id.clone(),
            run_id,
            cancel: self.cancel.clone(),
            seq: Arc::clone(&self.seq),
            announce: Mutex::new(Vec::new()),
        })
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Some(entry) = self.entry.take() {
            let mut state = lock(&entry);
            state.live = None;
            state.freed.notify_waiters();
        }
    }
}

/// One live run's side of the registry: numbers, buffers and fans out its
/// events, and releases the thread when the run ends.
#[derive(Debug)]
pub(crate) struct RunHandle {
    entry: Arc<Mutex<ThreadRuns>>,
    thread_id: ThreadId,
    run_id: RunId,
    cancel: CancellationToken,
    seq: Arc<AtomicU64>,
    /// Messages committed before the run continued (answered decisions),
    /// announced right after `run_started`.
    announce: Mutex<Vec<MessageView>>,
}

impl RunHandle {
    pub(crate) fn run_id(&self) -> &RunId {
        &self.run_id
    }

    pub(crate) fn cancel_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    pub(crate) fn announce_after_start(&self, messages: Vec<MessageView>) {
        *lock(&self.announce) = messages;
    }

    fn publish(&self, state: &mut ThreadRuns, namespace: &[String], event: RunEvent) {
        // Numbered under the thread's lock: buffer order is seq order.
        let seq = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
        let frame = RunEventFrame {
            seq,
            run_id: self.run_id.clone(),
            thread_id: self.thread_id.clone(),
            namespace: namespace.to_vec(),
            event,
        };
        state.subscribers.retain_mut(|s| s.deliver(&frame));
        if let Some(buffer) = state
            .buffers
            .iter_mut()
            .rev()
            .find(|b| b.run_id == self.run_id)
        {
            if buffer.frames.len() == RING_CAPACITY {
                buffer.frames.pop_front();
            }
            let RunEventFrame {
                seq,
                namespace,
                event,
                ..
            } = frame;
            buffer.frames.push_back(Buffered {
                seq,
                namespace,
                event,
            });
        }
    }

    /// Publishes `run_finished` and frees the thread in one step, so a
    /// subscriber that sees the end can start the next run at once.
    pub(crate) fn finish(&self, event: RunEvent) {
        let mut state = lock(&self.entry);
        self.publish(&mut state, &[], event);
        if state.live_run_id() == Some(&self.run_id) {
            state.live = None;
            state.freed.notify_waiters();
        }
        let now = Instant::now();
        if let Some(buffer) = state
            .buffers
            .iter_mut()
            .rev()
            .find(|b| b.run_id == self.run_id)
        {
            buffer.finished_at = Some(now);
            // No frame comes after the last: the ring's spare room goes.
            buffer.frames.shrink_to_fit();
        }
        forget_after_retention(Arc::downgrade(&self.entry));
    }
}

/// Drops the thread's expired buffers once [`FINISHED_RETENTION`] has
/// passed, not only as its next run starts: an app left idle after a long
/// answer held its frames until then. Outside a runtime: at the next sweep.
fn forget_after_retention(entry: Weak<Mutex<ThreadRuns>>) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(async move {
        tokio::time::sleep(FINISHED_RETENTION).await;
        // Gone already when the thread was swept meanwhile.
        if let Some(entry) = entry.upgrade() {
            lock(&entry).purge(Instant::now());
        }
    });
}

impl EventSink for RunHandle {
    fn emit(&self, namespace: &[String], event: RunEvent) {
        // The host publishes the root `run_finished` itself, once the run row
        // is final (see `finish`).
        if namespace.is_empty() && matches!(event, RunEvent::RunFinished { .. }) {
            return;
        }
        let announce = if namespace.is_empty() && matches!(event, RunEvent::RunStarted { .. }) {
            std::mem::take(&mut *lock(&self.announce))
        } else {
            Vec::new()
        };
        let mut state = lock(&self.entry);
        self.publish(&mut state, namespace, event);
        for message in announce {
            self.publish(&mut state, &[], RunEvent::MessageCompleted { message });
        }
    }
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
