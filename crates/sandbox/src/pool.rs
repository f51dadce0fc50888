//! The pool of interpreters: one warm spare, the workers each key (agent
//! invocation) keeps between its calls, and a reaper for idle ones.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::call::{self, WorkerAfter};
use crate::command::WorkerCommand;
use crate::error::{EvalError, EvalFailure};
use crate::process::WorkerProcess;
use crate::request::{Bridge, EvalOutcome, EvalRequest, Limits};

/// Shortest and longest pause between idle checks.
const REAP_EVERY_MIN: Duration = Duration::from_secs(1);
const REAP_EVERY_MAX: Duration = Duration::from_secs(60);

/// The pool of interpreters. Cheap to clone; the last clone dropped kills
/// every worker.
#[derive(Debug, Clone)]
pub struct Sandbox {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    command: WorkerCommand,
    limits: Limits,
    state: Mutex<PoolState>,
    live: Arc<AtomicUsize>,
    /// Stops the reaper when the pool is dropped.
    _stop_reaper: DropGuard,
    stop: CancellationToken,
}

#[derive(Debug, Default)]
struct PoolState {
    spare: Option<WorkerProcess>,
    keys: HashMap<String, KeyWorkers>,
    reaper_started: bool,
    shut_down: bool,
}

#[derive(Debug, Default)]
struct KeyWorkers {
    idle: Vec<WorkerProcess>,
    running: usize,
    /// `release` came while calls were running: their workers are dropped
    /// when they end instead of parked.
    released: bool,
}

impl Sandbox {
    /// Spawns nothing until the first `eval` or `warm`.
    pub fn new(command: WorkerCommand, limits: Limits) -> Self {
        let stop = CancellationToken::new();
        Self {
            inner: Arc::new(Inner {
                command,
                limits,
                state: Mutex::new(PoolState::default()),
                live: Arc::new(AtomicUsize::new(0)),
                _stop_reaper: stop.clone().drop_guard(),
                stop,
            }),
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// Starts the warm spare in the background (call from within a tokio
    /// runtime).
    pub fn warm(&self) {
        let inner = Arc::clone(&self.inner);
        tokio::spawn(async move {
            if let Err(e) = inner.refill_spare() {
                tracing::warn!(program = %inner.command.program.display(), error = %e, "cannot start the eval worker");
            }
        });
        self.inner.start_reaper();
    }

    /// Runs one program in the interpreter of `key`. Different keys never
    /// wait on each other; a second concurrent call of one key uses
    /// another worker.
    pub async fn eval(
        &self,
        key: &str,
        request: EvalRequest,
        bridge: &dyn Bridge,
        cancel: CancellationToken,
    ) -> Result<EvalOutcome, EvalFailure> {
        let timeout = request.timeout.unwrap_or(self.inner.limits.timeout);
        let deadline = Instant::now() + timeout;
        self.inner.start_reaper();
        let mut worker = self.inner.checkout(key).map_err(|error| EvalFailure {
            error,
            logs: String::new(),
        })?;
        let (result, after) = call::run(
            &mut worker,
            request,
            &self.inner.limits,
            bridge,
            &cancel,
            deadline,
        )
        .await;
        self.inner.checkin(key, worker, after);
        result
    }

    /// Disposes the interpreter of `key` now (its agent invocation ended).
    pub fn release(&self, key: &str) {
        let dropped = {
            let mut state = self.inner.lock();
            match state.keys.get_mut(key) {
                Some(workers) if workers.running > 0 => {
                    workers.released = true;
                    std::mem::take(&mut workers.idle)
                }
                Some(_) => state.keys.remove(key).map(|w| w.idle).unwrap_or_default(),
                None => Vec::new(),
            }
        };
        drop(dropped);
    }

    /// Kills every worker (app quit). Idempotent.
    pub async fn shutdown(&self) {
        self.inner.stop.cancel();
        let dropped = {
            let mut state = self.inner.lock();
            state.shut_down = true;
            let spare = state.spare.take();
            let idle: Vec<WorkerProcess> = state.keys.drain().flat_map(|(_, w)| w.idle).collect();
            (spare, idle)
        };
        drop(dropped);
    }

    /// How many worker processes are alive (for tests).
    pub fn live_workers(&self) -> usize {
        self.inner.live.load(Ordering::SeqCst)
    }
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn spawn(&self) -> std::io::Result<WorkerProcess> {
        WorkerProcess::spawn(&self.command, self.limits.memory_bytes, &self.live)
    }

    fn spawn_error(&self, source: std::io::Error) -> EvalError {
        EvalError::Spawn {
            program: self.command.program.display().to_string(),
            source,
        }
    }

    /// A worker for `key`: its own idle one, else the spare (and a new
    /// spare started), else a fresh one.
    fn checkout(self: &Arc<Self>, key: &str) -> Result<WorkerProcess, EvalError> {
        let (found, stale) = {
            let mut state = self.lock();
            if state.shut_down {
                return Err(EvalError::Crashed {
                    detail: "the sandbox was shut down".to_owned(),
                });
            }
            let workers = state.keys.entry(key.to_owned()).or_default();
            workers.running += 1;
            workers.released = false;
            let mut stale = Vec::new();
            let mut found = None;
            while let Some(mut worker) = workers.idle.pop() {
                if worker.has_exited() {
                    stale.push(worker);
                } else {
                    found = Some(worker);
                    break;
                }
            }
            if found.is_none()
                && let Some(mut spare) = state.spare.take()
            {
                if spare.has_exited() {
                    stale.push(spare);
                } else {
                    found = Some(spare);
                }
            }
            (found, stale)
        };
        drop(stale);
        let worker = match found {
            Some(worker) => worker,
            None => match self.spawn() {
                Ok(worker) => worker,
                Err(e) => {
                    self.checkin_gone(key);
                    return Err(self.spawn_error(e));
                }
            },
        };
        // The spare was taken (or never there): start the next one off the
        // caller's path.
        let inner = Arc::clone(self);
        tokio::spawn(async move {
            if let Err(e) = inner.refill_spare() {
                tracing::debug!(error = %e, "cannot start a spare eval worker");
            }
        });
        Ok(worker)
    }

    fn checkin(&self, key: &str, mut worker: WorkerProcess, after: WorkerAfter) {
        let dropped = {
            let mut state = self.lock();
            let shut_down = state.shut_down;
            let Some(workers) = state.keys.get_mut(key) else {
                return;
            };
            workers.running = workers.running.saturating_sub(1);
            let dropped = if after == WorkerAfter::Reusable && !workers.released && !shut_down {
                worker.last_used = Instant::now();
                workers.idle.push(worker);
                None
            } else {
                Some(worker)
            };
            if workers.running == 0 && (workers.released || workers.idle.is_empty()) {
                state.keys.remove(key);
            }
            dropped
        };
        drop(dropped);
    }

    fn checkin_gone(&self, key: &str) {
        let mut state = self.lock();
        if let Some(workers) = state.keys.get_mut(key) {
            workers.running = workers.running.saturating_sub(1);
            if workers.running == 0 && workers.idle.is_empty() {
                state.keys.remove(key);
            }
        }
    }

    fn refill_spare(&self) -> std::io::Result<()> {
        {
            let state = self.lock();
            if state.shut_down || state.spare.is_some() {
                return Ok(());
            }
        }
        // Spawned outside the lock: fork and exec take a few milliseconds.
        let worker = self.spawn()?;
        let extra = {
            let mut state = self.lock();
            if state.shut_down || state.spare.is_some() {
                Some(worker)
            } else {
                state.spare = Some(worker);
                None
            }
        };
        drop(extra);
        Ok(())
    }

    fn start_reaper(self: &Arc<Self>) {
        {
            let mut state = self.lock();
            if state.reaper_started {
                return;
            }
            state.reaper_started = true;
        }
        let every = (self.limits.idle_after / 4).clamp(REAP_EVERY_MIN, REAP_EVERY_MAX);
        let weak: Weak<Self> = Arc::downgrade(self);
        let stop = self.stop.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(every) => {}
                }
                let Some(inner) = weak.upgrade() else { return };
                inner.reap_idle();
            }
        });
    }

    /// Drops the workers (and the spare) unused for `idle_after`.
    fn reap_idle(&self) {
        let now = Instant::now();
        let idle_after = self.limits.idle_after;
        let dropped: Vec<WorkerProcess> = {
            let mut state = self.lock();
            let mut dropped = Vec::new();
            state.keys.retain(|_, workers| {
                let (old, fresh): (Vec<_>, Vec<_>) = std::mem::take(&mut workers.idle)
                    .into_iter()
                    .partition(|w| now.duration_since(w.last_used) >= idle_after);
                dropped.extend(old);
                workers.idle = fresh;
                workers.running > 0 || !workers.idle.is_empty()
            });
            // A spare nobody took goes too: an app left idle keeps no
            // interpreter process; the next `eval` starts one.
            if state
                .spare
                .as_ref()
                .is_some_and(|spare| now.duration_since(spare.last_used) >= idle_after)
            {
                dropped.extend(state.spare.take());
            }
            dropped
        };
        drop(dropped);
    }
}
