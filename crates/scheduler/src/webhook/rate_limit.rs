//! How often one trigger's URL may be called: a rolling window per trigger,
//! counting every request that reaches it (a failed secret included), so a
//! secret cannot be guessed faster than the limit whatever the answers were.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use super::server::RateLimit;

/// Past this many tracked triggers, windows with nothing left in them are
/// dropped (a deleted trigger's, say) so the map only holds live ones.
const TRACKED_TRIGGERS_BEFORE_SWEEP: usize = 1024;

/// The admitted requests of each trigger within the last window.
#[derive(Debug)]
pub(super) struct RequestWindows {
    limit: RateLimit,
    admitted: HashMap<String, VecDeque<Instant>>,
}

impl RequestWindows {
    pub(super) fn new(limit: RateLimit) -> Self {
        Self {
            limit,
            admitted: HashMap::new(),
        }
    }

    /// Admits a request to `trigger_id` at `now`, or answers how long until
    /// one would be. A refused request is not counted: a client that keeps
    /// knocking gets in again once its window has moved on.
    pub(super) fn admit(&mut self, trigger_id: &str, now: Instant) -> Result<(), Duration> {
        if self.admitted.len() > TRACKED_TRIGGERS_BEFORE_SWEEP {
            let window = self.limit.per;
            self.admitted.retain(|_, times| {
                forget_older(times, now, window);
                !times.is_empty()
            });
        }
        let times = self.admitted.entry(trigger_id.to_owned()).or_default();
        forget_older(times, now, self.limit.per);
        if times.len() < self.limit.requests {
            times.push_back(now);
            return Ok(());
        }
        let retry_after = times.front().map_or(self.limit.per, |oldest| {
            (*oldest + self.limit.per).saturating_duration_since(now)
        });
        Err(retry_after)
    }
}

/// Drops the times that have left the window ending at `now`.
fn forget_older(times: &mut VecDeque<Instant>, now: Instant, window: Duration) {
    while times
        .front()
        .is_some_and(|oldest| now.saturating_duration_since(*oldest) >= window)
    {
        times.pop_front();
    }
}

/// A `Retry-After` value: whole seconds, rounded up, at least one.
pub(super) fn retry_after_seconds(wait: Duration) -> u64 {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    seconds.max(1)
}

#[cfg(test)]
#[path = "rate_limit_tests.rs"]
mod tests;
