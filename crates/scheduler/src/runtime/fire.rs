//! Firing: a due tick, Run now or a webhook becomes a durable occurrence, is
//! launched through the sink, and is recorded with a sentence whenever it
//! did not simply run — skipped, caught up, failed to start, given up.

use chrono::{DateTime, Utc};
use pizza_store::{
    GAVE_UP_AFTER_MAX_ATTEMPTS, NewOccurrence, Occurrence, OccurrenceOutcome, OccurrenceReason,
    Recorded, Store, Trigger,
};

use super::armed::{Armed, Due, MISSED_COUNT_CAP};
use super::{Inner, LATE_AFTER, Launch};

/// What a fire became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fired {
    /// Its run started.
    Started {
        occurrence: Occurrence,
        thread_id: String,
        run_id: String,
    },
    /// Recorded as skipped: the previous occurrence still runs.
    Skipped(Occurrence),
    /// Recorded as failed: its run could not start; the sentence says why.
    Failed(Occurrence),
}

impl Fired {
    pub fn occurrence(&self) -> &Occurrence {
        match self {
            Self::Started { occurrence, .. }
            | Self::Skipped(occurrence)
            | Self::Failed(occurrence) => occurrence,
        }
    }
}

/// Why nothing was recorded.
#[derive(Debug, thiserror::Error)]
pub enum FireError {
    /// No such trigger (or it was deleted meanwhile).
    #[error("there is no trigger {0}")]
    NotFound(String),
    #[error(transparent)]
    Store(pizza_store::Error),
}

impl From<pizza_store::Error> for FireError {
    fn from(err: pizza_store::Error) -> Self {
        Self::Store(err)
    }
}

fn effective_prompt(trigger: &Trigger, occurrence: &Occurrence) -> String {
    occurrence
        .prompt
        .clone()
        .unwrap_or_else(|| trigger.prompt.clone())
}

/// Launches a pending (or, for a relaunch, a crashed) occurrence; a refused
/// start fails it with the sink's sentence.
async fn launch(inner: &Inner, trigger: Trigger, occurrence: Occurrence, relaunch: bool) -> Fired {
    let prompt = effective_prompt(&trigger, &occurrence);
    let trigger_id = trigger.id.clone();
    let occurrence_id = occurrence.id.clone();
    let result = inner
        .sink
        .launch(Launch {
            trigger,
            occurrence: occurrence.clone(),
            prompt,
            relaunch,
        })
        .await;
    let fired = match result {
        Ok(launched) => match inner.store.occurrence(&occurrence_id).await {
            Ok(occurrence) => Fired::Started {
                occurrence,
                thread_id: launched.thread_id,
                run_id: launched.run_id,
            },
            // Deleted with its trigger meanwhile: the run goes on regardless.
            Err(_) => Fired::Started {
                occurrence,
                thread_id: launched.thread_id,
                run_id: launched.run_id,
            },
        },
        Err(why) => {
            tracing::warn!(trigger = %trigger_id, %why, "a trigger's run could not start");
            match inner
                .store
                .fail_occurrence_launch(&occurrence_id, &why)
                .await
            {
                Ok(failed) => Fired::Failed(failed),
                Err(err) => {
                    tracing::warn!(%err, "a failed start could not be recorded");
                    Fired::Failed(occurrence)
                }
            }
        }
    };
    inner.sink.changed(&trigger_id);
    fired
}

/// Records a fire and launches it unless it was skipped. `Ok(None)`: the
/// cron tick had been recorded already (the clock went back over it).
async fn record_and_launch(
    inner: &Inner,
    trigger: Trigger,
    new: NewOccurrence,
) -> Result<Option<Fired>, FireError> {
    match inner.store.record_occurrence(new).await {
        Ok(Recorded::Pending(occurrence)) => {
            Ok(Some(launch(inner, trigger, occurrence, false).await))
        }
        Ok(Recorded::Skipped(occurrence)) => {
            tracing::info!(trigger = %trigger.id, "skipped: the previous run still runs");
            inner.sink.changed(&trigger.id);
            Ok(Some(Fired::Skipped(occurrence)))
        }
        Ok(Recorded::AlreadyRecorded(_)) => Ok(None),
        Err(pizza_store::Error::NotFound { .. }) => Err(FireError::NotFound(trigger.id)),
        Err(err) => Err(err.into()),
    }
}

pub(super) async fn fire_now(
    inner: &Inner,
    trigger_id: &str,
    reason: OccurrenceReason,
    prompt: Option<String>,
) -> Result<Fired, FireError> {
    let trigger = match inner.store.trigger(trigger_id).await {
        Ok(trigger) => trigger,
        Err(pizza_store::Error::NotFound { .. }) => {
            return Err(FireError::NotFound(trigger_id.to_owned()));
        }
        Err(err) => return Err(err.into()),
    };
    let new = NewOccurrence {
        trigger_id: trigger.id.clone(),
        scheduled_at: inner.clock.now().timestamp_millis(),
        reason,
        prompt,
        sentence: None,
    };
    record_and_launch(inner, trigger, new)
        .await?
        // Only cron ticks are deduplicated; a manual fire is always recorded.
        .ok_or_else(|| FireError::NotFound(trigger_id.to_owned()))
}

/// The sentence of a tick fired late: how many were missed, once caught up.
fn caught_up_sentence(ticks: u32) -> String {
    match ticks {
        0 | 1 => "Its time passed while Pizza Bot was not running or the computer slept; \
                  it ran once to catch up."
            .to_owned(),
        n if n >= MISSED_COUNT_CAP => format!(
            "More than {MISSED_COUNT_CAP} runs were missed while Pizza Bot was not running \
             or the computer slept; it ran once to catch up."
        ),
        n => format!(
            "{n} runs were missed while Pizza Bot was not running or the computer slept; \
             it ran once to catch up."
        ),
    }
}

/// Fires what came due, all at once (each is its own transaction), and
/// returns when every one was recorded and started.
pub(super) async fn fire_due(inner: &Inner, due: Vec<Due>, now: DateTime<Utc>) {
    let late = chrono::Duration::from_std(LATE_AFTER).unwrap_or_default();
    let fires = due.into_iter().map(|due| {
        let on_time = due.ticks <= 1 && now - due.tick <= late;
        let (reason, sentence) = if on_time {
            (OccurrenceReason::Cron, None)
        } else {
            (
                OccurrenceReason::CronRecovery,
                Some(caught_up_sentence(due.ticks)),
            )
        };
        let new = NewOccurrence {
            trigger_id: due.trigger.id.clone(),
            scheduled_at: due.tick.timestamp_millis(),
            reason,
            prompt: None,
            sentence,
        };
        async move {
            let id = due.trigger.id.clone();
            if let Err(err) = record_and_launch(inner, due.trigger, new).await {
                tracing::warn!(trigger = %id, %err, "a due tick could not be recorded");
            }
        }
    });
    futures::future::join_all(fires).await;
}

/// Re-reads the triggers into the armed table. At startup (`catch_up`) a
/// trigger is checked from its last cron tick — or when it was last edited,
/// or automations were turned on, whichever is later — so a tick missed
/// while the app was not running comes due once; otherwise from now.
pub(super) async fn reload(
    inner: &Inner,
    armed: &mut Armed,
    now: DateTime<Utc>,
    catch_up: bool,
    enabled_since: Option<DateTime<Utc>>,
) {
    let triggers = match inner.store.list_triggers().await {
        Ok(list) => list.into_iter().map(|s| s.trigger).collect::<Vec<_>>(),
        Err(err) => {
            tracing::warn!(%err, "the triggers could not be read; keeping those armed");
            return;
        }
    };
    let mut since = std::collections::HashMap::new();
    if catch_up {
        for trigger in &triggers {
            let from = catch_up_from(&inner.store, trigger, enabled_since).await;
            since.insert(trigger.id.clone(), from.min(now));
        }
    }
    armed.reload(triggers, inner.default_zone, |t| {
        since.get(&t.id).copied().unwrap_or(now)
    });
}

async fn catch_up_from(
    store: &Store,
    trigger: &Trigger,
    enabled_since: Option<DateTime<Utc>>,
) -> DateTime<Utc> {
    let last_tick = store.last_cron_tick(&trigger.id).await.ok().flatten();
    [Some(trigger.updated_at), last_tick]
        .into_iter()
        .flatten()
        .filter_map(DateTime::from_timestamp_millis)
        .chain(enabled_since)
        .max()
        .unwrap_or_default()
}

/// Startup: every occurrence a crash left pending or running is relaunched
/// once — or, its attempts spent, given up with a notification.
pub(super) async fn recover_crashed(inner: &Inner) {
    let left = match inner.store.recoverable_occurrences().await {
        Ok(left) => left,
        Err(err) => {
            tracing::warn!(%err, "occurrences left by a crash could not be read");
            return;
        }
    };
    for occurrence in left {
        let trigger = match inner.store.trigger(&occurrence.trigger_id).await {
            Ok(trigger) => trigger,
            Err(err) => {
                tracing::warn!(%err, occurrence = %occurrence.id, "its trigger is gone");
                continue;
            }
        };
        if occurrence.attempts_exhausted() {
            match inner
                .store
                .mark_occurrence_dead(&occurrence.id, GAVE_UP_AFTER_MAX_ATTEMPTS)
                .await
            {
                Ok(dead) => {
                    tracing::warn!(trigger = %trigger.id, occurrence = %dead.id, "gave up after its attempts");
                    inner.sink.gave_up(&trigger, &dead).await;
                    inner.sink.changed(&trigger.id);
                }
                Err(err) => tracing::warn!(%err, "an occurrence could not be given up"),
            }
            continue;
        }
        tracing::info!(trigger = %trigger.id, occurrence = %occurrence.id, attempts = occurrence.attempts, "relaunching what a crash stopped");
        launch(inner, trigger, occurrence, true).await;
    }
}

pub(super) async fn run_ended(inner: &Inner, run_id: &str, outcome: OccurrenceOutcome) {
    let occurrence = match inner.store.occurrence_for_run(run_id).await {
        Ok(Some(occurrence)) => occurrence,
        Ok(None) => return,
        Err(err) => {
            tracing::warn!(%err, "a run's occurrence could not be read");
            return;
        }
    };
    match inner
        .store
        .finish_occurrence(&occurrence.id, run_id, outcome)
        .await
    {
        Ok(_) => inner.sink.changed(&occurrence.trigger_id),
        // A stale attempt, or already ended: nothing to record.
        Err(err) => tracing::debug!(%err, "an occurrence's end was not recorded"),
    }
}
