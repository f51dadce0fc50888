//! The armed table: every enabled cron trigger with its schedule, how far
//! its ticks have been looked at, and its next fire. A tick is due once the
//! clock passes it; the table never decides twice about the same tick (and
//! the store refuses a tick recorded before, should the clock go back).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use pizza_store::{Trigger, TriggerKind};

use crate::{Schedule, Zone};

/// One armed trigger.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) trigger: Trigger,
    pub(super) schedule: Schedule,
    /// Ticks at or before this instant have been dealt with.
    pub(super) checked_through: DateTime<Utc>,
    /// The first tick after `checked_through`; `None`: it never fires again.
    pub(super) next: Option<DateTime<Utc>>,
}

impl Entry {
    fn new(trigger: Trigger, schedule: Schedule, checked_through: DateTime<Utc>) -> Self {
        let next = schedule.next_after(checked_through);
        Self {
            trigger,
            schedule,
            checked_through,
            next,
        }
    }

    /// Marks every tick up to `now` as dealt with.
    pub(super) fn checked(&mut self, now: DateTime<Utc>) {
        self.checked_through = now;
        self.next = self.schedule.next_after(now);
    }
}

/// A tick that came due: the newest one in `(checked_through, now]`, and how
/// many ticks that span held (more than one: the others were missed).
#[derive(Debug, Clone)]
pub(super) struct Due {
    pub(super) trigger: Trigger,
    pub(super) tick: DateTime<Utc>,
    pub(super) ticks: u32,
}

/// How many missed ticks are counted before the sentence says "more than".
pub(super) const MISSED_COUNT_CAP: u32 = 1_000;

#[derive(Debug, Default)]
pub(super) struct Armed {
    entries: HashMap<String, Entry>,
    loaded: bool,
}

impl Armed {
    pub(super) fn loaded(&self) -> bool {
        self.loaded
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.loaded = false;
    }

    /// Arms the enabled cron triggers among `triggers`. One already armed and
    /// unchanged keeps how far it was checked; any other starts from
    /// `baseline(trigger)` (now, or where startup's catch-up begins). A
    /// schedule this machine cannot read (a zone it no longer knows) is left
    /// out and logged.
    pub(super) fn reload(
        &mut self,
        triggers: Vec<Trigger>,
        default_zone: Zone,
        mut baseline: impl FnMut(&Trigger) -> DateTime<Utc>,
    ) {
        let mut kept = HashMap::with_capacity(triggers.len());
        for trigger in triggers {
            if !trigger.enabled || trigger.kind != TriggerKind::Cron {
                continue;
            }
            let Some(cron) = trigger.cron.as_deref() else {
                continue;
            };
            let schedule = match Schedule::parse(cron, trigger.timezone.as_deref(), default_zone) {
                Ok(schedule) => schedule,
                Err(err) => {
                    tracing::warn!(trigger = %trigger.id, %err, "a trigger's schedule cannot be armed");
                    continue;
                }
            };
            let entry = match self.entries.remove(&trigger.id) {
                Some(old) if old.trigger.updated_at == trigger.updated_at => {
                    Entry { trigger, ..old }
                }
                _ => {
                    let since = baseline(&trigger);
                    Entry::new(trigger, schedule, since)
                }
            };
            kept.insert(entry.trigger.id.clone(), entry);
        }
        self.entries = kept;
        self.loaded = true;
    }

    /// The soonest next fire.
    pub(super) fn next_due(&self) -> Option<DateTime<Utc>> {
        self.entries.values().filter_map(|e| e.next).min()
    }

    /// Takes every tick due by `now`, marking the entries checked through it.
    pub(super) fn take_due(&mut self, now: DateTime<Utc>) -> Vec<Due> {
        let mut due = Vec::new();
        for entry in self.entries.values_mut() {
            if entry.next.is_none_or(|next| next > now) {
                continue;
            }
            if let Some(tick) = entry.schedule.missed_since(entry.checked_through, now) {
                due.push(Due {
                    trigger: entry.trigger.clone(),
                    tick,
                    ticks: count_ticks(&entry.schedule, entry.checked_through, tick),
                });
            }
            entry.checked(now);
        }
        due.sort_by_key(|d| d.tick);
        due
    }

    /// The wall clock went back: what was checked "in the future" is checked
    /// through now instead, so the next ticks are armed from now. Ticks
    /// already recorded that come round again are refused by the store.
    pub(super) fn clock_went_back(&mut self, now: DateTime<Utc>) {
        for entry in self.entries.values_mut() {
            if entry.checked_through > now {
                entry.checked(now);
            }
        }
    }
}

/// Ticks in `(since, through]`, counted up to [`MISSED_COUNT_CAP`].
fn count_ticks(schedule: &Schedule, since: DateTime<Utc>, through: DateTime<Utc>) -> u32 {
    let mut count = 0;
    let mut at = since;
    while count < MISSED_COUNT_CAP {
        match schedule.next_after(at) {
            Some(next) if next <= through => {
                count += 1;
                at = next;
            }
            _ => break,
        }
    }
    count
}
