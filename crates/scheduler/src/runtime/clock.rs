//! The clocks the runtime reads and sleeps on: the wall clock a schedule is
//! written in, and a monotonic one that tells time passing from the wall
//! clock being changed (NTP, a person setting it, a resumed laptop).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use chrono::{DateTime, Utc};

/// A future the runtime awaits.
pub type Nap = Pin<Box<dyn Future<Output = ()> + Send>>;

/// What the runtime knows of time. Tests inject [`ManualClock`].
pub trait WallClock: Send + Sync + 'static {
    /// The wall-clock instant now.
    fn now(&self) -> DateTime<Utc>;
    /// A reading that only moves forward with real time passing; its origin
    /// means nothing.
    fn monotonic(&self) -> Duration;
    /// Resolves after `duration` of monotonic time.
    fn sleep(&self, duration: Duration) -> Nap;
}

/// The machine's clocks, with tokio's timer.
#[derive(Debug, Clone, Copy)]
pub struct SystemClock {
    origin: std::time::Instant,
}

impl SystemClock {
    pub fn new() -> Self {
        Self {
            origin: std::time::Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl WallClock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        let since_epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        DateTime::from_timestamp(
            i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX),
            since_epoch.subsec_nanos(),
        )
        .unwrap_or_default()
    }

    fn monotonic(&self) -> Duration {
        self.origin.elapsed()
    }

    fn sleep(&self, duration: Duration) -> Nap {
        Box::pin(tokio::time::sleep(duration))
    }
}

#[cfg(any(test, feature = "test-support"))]
pub use manual::ManualClock;

#[cfg(any(test, feature = "test-support"))]
mod manual {
    use std::sync::{Arc, Mutex, PoisonError};
    use std::time::Duration;

    use chrono::{DateTime, Utc};
    use tokio::sync::{oneshot, watch};

    use super::{Nap, WallClock};

    /// A clock that moves only when a test says: [`advance`](Self::advance)
    /// moves both clocks (time passing), [`jump`](Self::jump) only the wall
    /// clock (someone changed it). Sleeps end when monotonic time reaches them.
    #[derive(Debug, Clone)]
    pub struct ManualClock {
        inner: Arc<Mutex<State>>,
        naps: watch::Sender<u64>,
    }

    #[derive(Debug)]
    struct State {
        wall: DateTime<Utc>,
        monotonic: Duration,
        sleepers: Vec<(Duration, oneshot::Sender<()>)>,
    }

    impl ManualClock {
        pub fn at(wall: DateTime<Utc>) -> Self {
            Self {
                inner: Arc::new(Mutex::new(State {
                    wall,
                    monotonic: Duration::ZERO,
                    sleepers: Vec::new(),
                })),
                naps: watch::channel(0).0,
            }
        }

        fn state(&self) -> std::sync::MutexGuard<'_, State> {
            self.inner.lock().unwrap_or_else(PoisonError::into_inner)
        }

        /// Time passes: both clocks move and due sleeps end.
        pub fn advance(&self, by: Duration) {
            let due = {
                let mut state = self.state();
                state.monotonic += by;
                state.wall += chrono::Duration::from_std(by).unwrap_or_default();
                let now = state.monotonic;
                let (due, waiting) = std::mem::take(&mut state.sleepers)
                    .into_iter()
                    .partition::<Vec<_>, _>(|(until, _)| *until <= now);
                state.sleepers = waiting;
                due
            };
            for (_, wake) in due {
                let _ = wake.send(());
            }
        }

        /// The wall clock is set to another time; no time passes.
        pub fn jump(&self, by: chrono::Duration) {
            self.state().wall += by;
        }

        /// How many sleeps have begun so far: the runtime begins one each time
        /// it has finished a pass and waits, so a test waits for this to move
        /// past a value it read before nudging the runtime.
        pub fn naps(&self) -> u64 {
            *self.naps.borrow()
        }

        /// Waits until more than `seen` sleeps have begun.
        pub async fn wait_for_nap_after(&self, seen: u64) {
            let mut naps = self.naps.subscribe();
            let _ = naps.wait_for(|n| *n > seen).await;
        }
    }

    impl WallClock for ManualClock {
        fn now(&self) -> DateTime<Utc> {
            self.state().wall
        }

        fn monotonic(&self) -> Duration {
            self.state().monotonic
        }

        fn sleep(&self, duration: Duration) -> Nap {
            let (wake, woken) = oneshot::channel();
            {
                let mut state = self.state();
                let until = state.monotonic + duration;
                if duration.is_zero() {
                    let _ = wake.send(());
                } else {
                    state.sleepers.push((until, wake));
                }
            }
            self.naps.send_modify(|n| *n += 1);
            Box::pin(async move {
                let _ = woken.await;
            })
        }
    }
}

#[cfg(any(test, feature = "test-support"))]
impl pizza_store::Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        WallClock::now(self).timestamp_millis()
    }
}
