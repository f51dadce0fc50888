//! The trigger runtime: arms the enabled cron triggers while automations are
//! on, fires each due tick once through a [`Sink`] the host implements, and
//! keeps every fire a durable occurrence — recovered after a crash, caught
//! up after the app was not running or the machine slept, never doubled by a
//! clock change.
//!
//! One task owns the armed table. It wakes at the soonest next fire, when
//! told something changed, or after [`NAP`] at the latest — so a wall clock
//! that jumped is noticed within a minute even with nothing due.

mod armed;
mod clock;
mod fire;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use pizza_store::{Occurrence, Store, Trigger};
use tokio::sync::Notify;

use armed::Armed;
#[cfg(any(test, feature = "test-support"))]
pub use clock::ManualClock;
pub use clock::{Nap, SystemClock, WallClock};
pub use fire::{FireError, Fired};

use crate::Zone;

/// The longest the runtime sleeps without looking at the clock again.
pub const NAP: Duration = Duration::from_secs(60);
/// A wall clock that moved this much more (or less) than monotonic time
/// did over one sleep was changed, rather than merely read late.
pub const CLOCK_JUMP: Duration = Duration::from_secs(2);
/// A tick fired this long after its time counts as caught up (reason
/// `cron_recovery`) rather than on time.
pub const LATE_AFTER: Duration = Duration::from_secs(60);

/// One occurrence to run, as the sink is given it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub trigger: Trigger,
    /// Pending; or, for a `relaunch`, what a crash left pending or running.
    pub occurrence: Occurrence,
    /// What the run is asked: the occurrence's own prompt (a webhook body)
    /// or the trigger's. May be empty: the model is then told no task was
    /// given.
    pub prompt: String,
    /// Startup recovery: continue the occurrence's thread
    /// (`occurrence.thread_id`) if it still exists, rather than begin one.
    pub relaunch: bool,
}

/// The run an occurrence started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launched {
    pub thread_id: String,
    pub run_id: String,
}

/// Where fires go: the host starts runs with the run registry.
#[async_trait]
pub trait Sink: Send + Sync + 'static {
    /// Starts the occurrence's run, marking the occurrence running with the
    /// run's id in the run row's own transaction
    /// ([`pizza_store::OccurrenceLaunch`]). An error is the sentence the
    /// occurrence fails with ("No model is set up …"); the occurrence must
    /// then still be pending or running.
    async fn launch(&self, launch: Launch) -> Result<Launched, String>;
    /// An occurrence a crash left behind was given up after its attempts;
    /// the person is told (a notification).
    async fn gave_up(&self, trigger: &Trigger, occurrence: &Occurrence);
    /// A trigger's occurrences changed (recorded, skipped, started, ended):
    /// lists showing it should be re-read.
    fn changed(&self, trigger_id: &str);
}

/// How the scheduler begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartOptions {
    /// The automations switch as saved.
    pub enabled: bool,
    /// When the switch was last turned on (ms): ticks before it are not
    /// caught up, as they were paused rather than missed.
    pub enabled_since: Option<i64>,
}

/// What the task is told; read and reset at the top of each pass.
#[derive(Debug, Default)]
struct Control {
    enabled: bool,
    asleep: bool,
    stopped: bool,
    /// Re-read the triggers (one was saved, deleted, switched).
    reload: bool,
    /// Startup: ticks missed while the app was not running are caught up
    /// from each trigger's last tick.
    catch_up: bool,
    enabled_since: Option<DateTime<Utc>>,
    armed_count: usize,
}

impl Control {
    fn armed(&self) -> bool {
        self.enabled && !self.asleep && !self.stopped
    }
}

pub(crate) struct Inner {
    store: Store,
    sink: Arc<dyn Sink>,
    clock: Arc<dyn WallClock>,
    default_zone: Zone,
    control: Mutex<Control>,
    wake: Notify,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler")
            .field("default_zone", &self.default_zone)
            .finish_non_exhaustive()
    }
}

impl Inner {
    fn control(&self) -> std::sync::MutexGuard<'_, Control> {
        self.control.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn tell(&self, change: impl FnOnce(&mut Control)) {
        change(&mut self.control());
        self.wake.notify_one();
    }
}

/// The trigger runtime; cheap to clone.
#[derive(Debug, Clone)]
pub struct Scheduler {
    inner: Arc<Inner>,
}

impl Scheduler {
    pub fn new(
        store: Store,
        sink: Arc<dyn Sink>,
        clock: Arc<dyn WallClock>,
        default_zone: Zone,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                store,
                sink,
                clock,
                default_zone,
                control: Mutex::new(Control::default()),
                wake: Notify::new(),
            }),
        }
    }

    /// Relaunches what a crash left behind (once, now, before anything else
    /// this process fires), then arms the triggers if automations are on.
    /// The returned task ends after [`Scheduler::stop`].
    pub async fn start(&self, options: StartOptions) -> tokio::task::JoinHandle<()> {
        fire::recover_crashed(&self.inner).await;
        {
            let mut control = self.inner.control();
            control.enabled = options.enabled;
            // Ticks missed while the app was not running are caught up only
            // if automations were on; turned on later, they arm from then.
            control.catch_up = options.enabled;
            control.reload = true;
            control.enabled_since = options
                .enabled_since
                .and_then(DateTime::from_timestamp_millis);
        }
        let inner = self.inner.clone();
        tokio::spawn(run(inner))
    }

    /// The automations switch: off disarms every trigger (their own switches
    /// stay); on arms them from now — ticks while paused are not caught up.
    pub fn set_enabled(&self, enabled: bool) {
        self.inner.tell(|c| {
            if enabled && !c.enabled {
                c.reload = true;
            }
            c.enabled = enabled;
        });
    }

    /// The machine is about to sleep: nothing fires until [`Scheduler::woke`].
    pub fn sleeping(&self) {
        self.inner.tell(|c| c.asleep = true);
    }

    /// The machine woke: schedules are rebuilt, and a trigger whose tick
    /// passed during the sleep fires once to catch up. Nothing in flight is
    /// replayed (its side effects may have happened).
    pub fn woke(&self) {
        self.inner.tell(|c| {
            c.asleep = false;
            c.reload = true;
        });
    }

    /// A trigger was saved, deleted or switched.
    pub fn triggers_changed(&self) {
        self.inner.tell(|c| c.reload = true);
    }

    /// Ends the task; runs already started go on.
    pub fn stop(&self) {
        self.inner.tell(|c| c.stopped = true);
    }

    /// Fires a trigger now, armed or not (Run now, a webhook): a pending
    /// occurrence with this `reason` and optional prompt, launched at once,
    /// or recorded as skipped while the previous one still runs.
    pub async fn fire_now(
        &self,
        trigger_id: &str,
        reason: pizza_store::OccurrenceReason,
        prompt: Option<String>,
    ) -> Result<Fired, FireError> {
        fire::fire_now(&self.inner, trigger_id, reason, prompt).await
    }

    /// A trigger's run ended: its occurrence (if the run carries one out)
    /// records how. A run that stopped because the app quit is not one:
    /// its occurrence stays running and is relaunched at the next start.
    pub async fn run_ended(&self, run_id: &str, outcome: pizza_store::OccurrenceOutcome) {
        fire::run_ended(&self.inner, run_id, outcome).await;
    }

    /// Armed triggers right now (for tests and benchmarks).
    pub fn armed_count(&self) -> usize {
        self.inner.control().armed_count
    }
}

impl Control {
    fn snapshot(&mut self) -> Pass {
        Pass {
            armed: self.armed(),
            stopped: self.stopped,
            reload: std::mem::take(&mut self.reload),
            catch_up: self.armed() && std::mem::take(&mut self.catch_up),
            enabled_since: self.enabled_since,
        }
    }
}

/// One pass's orders.
struct Pass {
    armed: bool,
    stopped: bool,
    reload: bool,
    catch_up: bool,
    enabled_since: Option<DateTime<Utc>>,
}

async fn run(inner: Arc<Inner>) {
    let mut armed = Armed::default();
    loop {
        let woken = inner.wake.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        let pass = inner.control().snapshot();
        if pass.stopped {
            break;
        }
        let now = inner.clock.now();
        let nap = if pass.armed {
            if pass.reload || !armed.loaded() {
                fire::reload(&inner, &mut armed, now, pass.catch_up, pass.enabled_since).await;
            }
            let due = armed.take_due(now);
            fire::fire_due(&inner, due, now).await;
            armed
                .next_due()
                .map(|next| (next - now).to_std().unwrap_or_default())
                .map_or(NAP, |wait| wait.min(NAP))
        } else {
            // Paused: nothing armed. Asleep: the table is kept, so waking
            // finds what came due meanwhile.
            if !inner.control().enabled {
                armed.clear();
            }
            NAP
        };
        inner.control().armed_count = armed.len();
        let (wall_before, mono_before) = (inner.clock.now(), inner.clock.monotonic());
        tokio::select! {
            () = inner.clock.sleep(nap) => {}
            () = &mut woken => {}
        }
        // Did the wall clock move by more than the time that passed?
        let passed = inner.clock.monotonic().saturating_sub(mono_before);
        let moved = inner.clock.now() - wall_before;
        let drift = moved - chrono::Duration::from_std(passed).unwrap_or_default();
        if drift.abs() > chrono::Duration::from_std(CLOCK_JUMP).unwrap_or_default() {
            tracing::info!(
                drift_ms = drift.num_milliseconds(),
                "the wall clock changed; re-arming"
            );
            armed.clock_went_back(inner.clock.now());
        }
    }
}
