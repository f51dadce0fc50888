//! Trigger occurrences: one durable row per fire, so a tick is never run twice
//! and a crash never loses one.
//!
//! `pending → running → succeeded | failed | dead`, or `pending → skipped`.
//! Every transition is one transaction that checks the state it leaves, so a
//! late or repeated call is a `Conflict`, never a second run. The run and
//! thread ids are reserved by [`Store::claim_occurrence`] before the run is
//! launched: a crash after that leaves a `running` row naming them.

use serde::{Deserialize, Serialize};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::clock::new_id;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::text::{clamp_limit, from_json};
use crate::triggers::{TRIGGER_PROMPT_MAX_CHARS, trigger_in};

mod transitions;

pub use transitions::OccurrenceLaunch;
pub(crate) use transitions::launch_occurrence_in;

/// Launches an occurrence may have before startup recovery gives up on it.
pub const OCCURRENCE_MAX_ATTEMPTS: i64 = 3;
pub const OCCURRENCE_PAGE_MAX: u32 = 200;
/// Why a fire was recorded as skipped when an earlier one had not finished.
pub const SKIPPED_PREVIOUS_RUNNING: &str = "previous run still running";
/// Why startup recovery marked an occurrence dead.
pub const GAVE_UP_AFTER_MAX_ATTEMPTS: &str = "gave up after 3 attempts";
/// Why a missed cron fire was run late.
pub const CAUGHT_UP_MISSED_RUN: &str = "caught up a missed run";
const SENTENCE_MAX_CHARS: usize = 1_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OccurrenceReason {
    Cron,
    /// One catch-up fire for however many ticks passed while the app was down.
    CronRecovery,
    Manual,
    Webhook,
}

impl OccurrenceReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cron => "cron",
            Self::CronRecovery => "cron_recovery",
            Self::Manual => "manual",
            Self::Webhook => "webhook",
        }
    }

    fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "cron" => Self::Cron,
            "cron_recovery" => Self::CronRecovery,
            "manual" => Self::Manual,
            "webhook" => Self::Webhook,
            other => {
                return Err(Error::Corrupt(format!(
                    "unknown occurrence reason {other:?}"
                )));
            }
        })
    }

    /// Cron ticks are unique per (trigger, scheduled time).
    pub fn is_cron(self) -> bool {
        matches!(self, Self::Cron | Self::CronRecovery)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OccurrenceStatus {
    Pending,
    Running,
    Succeeded,
    Failed,
    Dead,
    Skipped,
}

impl OccurrenceStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Running => "running",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Dead => "dead",
            Self::Skipped => "skipped",
        }
    }

    fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "pending" => Self::Pending,
            "running" => Self::Running,
            "succeeded" => Self::Succeeded,
            "failed" => Self::Failed,
            "dead" => Self::Dead,
            "skipped" => Self::Skipped,
            other => {
                return Err(Error::Corrupt(format!(
                    "unknown occurrence status {other:?}"
                )));
            }
        })
    }

    pub fn is_terminal(self) -> bool {
        !matches!(self, Self::Pending | Self::Running)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occurrence {
    pub id: String,
    pub trigger_id: String,
    /// The tick's time for cron reasons; when it was asked for otherwise.
    pub scheduled_at: i64,
    pub reason: OccurrenceReason,
    pub status: OccurrenceStatus,
    /// How many times a run was launched for it.
    pub attempts: i64,
    /// A prompt that replaces the trigger's own (a webhook body's).
    pub prompt: Option<String>,
    pub run_id: Option<String>,
    pub thread_id: Option<String>,
    /// Why it ended as it did, for the trigger's history.
    pub sentence: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl Occurrence {
    /// Startup recovery must mark it dead rather than launch it again.
    pub fn attempts_exhausted(&self) -> bool {
        self.attempts >= OCCURRENCE_MAX_ATTEMPTS
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOccurrence {
    pub trigger_id: String,
    pub scheduled_at: i64,
    pub reason: OccurrenceReason,
    pub prompt: Option<String>,
    /// Recorded with the occurrence (e.g. [`CAUGHT_UP_MISSED_RUN`]).
    pub sentence: Option<String>,
}

/// What [`Store::record_occurrence`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// A new pending occurrence, to be claimed and launched.
    Pending(Occurrence),
    /// A new occurrence recorded as skipped, because an earlier one of the same
    /// trigger is still pending or running ([`SKIPPED_PREVIOUS_RUNNING`]).
    Skipped(Occurrence),
    /// The cron tick was already recorded; nothing was written. The row as it is.
    AlreadyRecorded(Occurrence),
}

/// How a launched occurrence's run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OccurrenceOutcome {
    Succeeded,
    /// With a sentence the history shows (the run's error, or how it ended).
    Failed {
        sentence: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OccurrencePage {
    /// Newest scheduled first.
    pub occurrences: Vec<Occurrence>,
    pub next_cursor: Option<String>,
}

pub(crate) const OCCURRENCE_COLUMNS: &str = "id, trigger_id, scheduled_at, reason, status, \
     attempts, prompt, run_id, thread_id, sentence, created_at, updated_at";

pub(crate) fn occurrence_from_row(row: &SqliteRow) -> Result<Occurrence> {
    occurrence_from_prefixed_row(row, "")
}

/// Reads an occurrence whose columns carry `prefix` (as in a join).
pub(crate) fn occurrence_from_prefixed_row(row: &SqliteRow, prefix: &str) -> Result<Occurrence> {
    let col = |name: &str| format!("{prefix}{name}");
    Ok(Occurrence {
        id: row.try_get(col("id").as_str())?,
        trigger_id: row.try_get(col("trigger_id").as_str())?,
        scheduled_at: row.try_get(col("scheduled_at").as_str())?,
        reason: OccurrenceReason::parse(row.try_get(col("reason").as_str())?)?,
        status: OccurrenceStatus::parse(row.try_get(col("status").as_str())?)?,
        attempts: row.try_get(col("attempts").as_str())?,
        prompt: row.try_get(col("prompt").as_str())?,
        run_id: row.try_get(col("run_id").as_str())?,
        thread_id: row.try_get(col("thread_id").as_str())?,
        sentence: row.try_get(col("sentence").as_str())?,
        created_at: row.try_get(col("created_at").as_str())?,
        updated_at: row.try_get(col("updated_at").as_str())?,
    })
}

pub(crate) fn sentence(value: &str) -> Result<String> {
    crate::text::required("sentence", value, SENTENCE_MAX_CHARS)
}

fn encode_cursor(o: &Occurrence) -> String {
    format!("{}:{}", o.scheduled_at, o.id)
}

fn decode_cursor(cursor: &str) -> Result<(i64, &str)> {
    cursor
        .split_once(':')
        .and_then(|(at, id)| Some((at.parse().ok()?, id)))
        .ok_or_else(|| Error::invalid("the occurrence list cursor is malformed"))
}

pub(crate) async fn occurrence_in(conn: &mut SqliteConnection, id: &str) -> Result<Occurrence> {
    let row = sqlx::query(&format!(
        "SELECT {OCCURRENCE_COLUMNS} FROM trigger_occurrences WHERE id = ?"
    ))
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or_else(|| Error::not_found("occurrence", id))?;
    occurrence_from_row(&row)
}

impl Store {
    /// Records a fire. A cron tick already recorded for the trigger and time is
    /// [`Recorded::AlreadyRecorded`] and writes nothing; a fire while an earlier
    /// one is pending or running is recorded as skipped. `NotFound` for an
    /// unknown trigger.
    pub async fn record_occurrence(&self, new: NewOccurrence) -> Result<Recorded> {
        if let Some(p) = &new.prompt {
            let len = p.chars().count();
            if len > TRIGGER_PROMPT_MAX_CHARS {
                return Err(Error::invalid(format!(
                    "prompt is {len} characters long; the limit is {TRIGGER_PROMPT_MAX_CHARS}"
                )));
            }
        }
        let given_sentence = new.sentence.as_deref().map(sentence).transpose()?;
        let now = self.now();
        let mut tx = self.write_tx().await?;
        trigger_in(&mut tx, &new.trigger_id).await?;
        if new.reason.is_cron() {
            let existing: Option<String> = sqlx::query_scalar(
                "SELECT id FROM trigger_occurrences WHERE trigger_id = ? AND scheduled_at = ? \
                 AND reason IN ('cron', 'cron_recovery')",
            )
            .bind(&new.trigger_id)
            .bind(new.scheduled_at)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(id) = existing {
                return Ok(Recorded::AlreadyRecorded(
                    occurrence_in(&mut tx, &id).await?,
                ));
            }
        }
        let busy: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM trigger_occurrences WHERE trigger_id = ? \
             AND status IN ('pending', 'running') LIMIT 1",
        )
        .bind(&new.trigger_id)
        .fetch_optional(&mut *tx)
        .await?;
        let (status, sentence) = if busy.is_some() {
            (
                OccurrenceStatus::Skipped,
                Some(SKIPPED_PREVIOUS_RUNNING.to_owned()),
            )
        } else {
            (OccurrenceStatus::Pending, given_sentence)
        };
        let occurrence = Occurrence {
            id: new_id(),
            trigger_id: new.trigger_id,
            scheduled_at: new.scheduled_at,
            reason: new.reason,
            status,
            attempts: 0,
            prompt: new.prompt,
            run_id: None,
            thread_id: None,
            sentence,
            created_at: now,
            updated_at: now,
        };
        sqlx::query(
            "INSERT INTO trigger_occurrences (id, trigger_id, scheduled_at, reason, status, \
             attempts, prompt, sentence, created_at, updated_at) \
             VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)",
        )
        .bind(&occurrence.id)
        .bind(&occurrence.trigger_id)
        .bind(occurrence.scheduled_at)
        .bind(occurrence.reason.as_str())
        .bind(occurrence.status.as_str())
        .bind(&occurrence.prompt)
        .bind(&occurrence.sentence)
        .bind(now)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(match status {
            OccurrenceStatus::Skipped => Recorded::Skipped(occurrence),
            _ => Recorded::Pending(occurrence),
        })
    }

    pub async fn occurrence(&self, id: &str) -> Result<Occurrence> {
        let mut conn = self.reader().acquire().await?;
        occurrence_in(&mut conn, id).await
    }

    /// The occurrence whose run has this id, if any.
    pub async fn occurrence_for_run(&self, run_id: &str) -> Result<Option<Occurrence>> {
        let row = sqlx::query(&format!(
            "SELECT {OCCURRENCE_COLUMNS} FROM trigger_occurrences WHERE run_id = ?"
        ))
        .bind(run_id)
        .fetch_optional(self.reader())
        .await?;
        row.as_ref().map(occurrence_from_row).transpose()
    }

    /// At startup: the occurrences a crash left pending or running, oldest
    /// first. Each is relaunched once ([`Store::reclaim_occurrence`]) or, when
    /// its [attempts are exhausted](Occurrence::attempts_exhausted), marked dead.
    pub async fn recoverable_occurrences(&self) -> Result<Vec<Occurrence>> {
        // One JSON array in one row instead of a row per occurrence: after a
        // long outage thousands may be left, and sqlx's cost per row dominates
        // the query's. The object's keys and values are `Occurrence`'s serde
        // form. Literal statuses so the planner picks the partial index.
        let json: String = sqlx::query_scalar(
            "SELECT COALESCE(json_group_array(json_object( \
               'id', id, 'trigger_id', trigger_id, 'scheduled_at', scheduled_at, \
               'reason', reason, 'status', status, 'attempts', attempts, 'prompt', prompt, \
               'run_id', run_id, 'thread_id', thread_id, 'sentence', sentence, \
               'created_at', created_at, 'updated_at', updated_at)), '[]') \
             FROM trigger_occurrences WHERE status IN ('pending', 'running')",
        )
        .fetch_one(self.reader())
        .await?;
        let mut found: Vec<Occurrence> = from_json("recoverable occurrences", &json)?;
        // An aggregate's input order is not promised; sorting here is.
        found.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(found)
    }

    /// The newest cron tick recorded for the trigger (its time), for missed-run
    /// recovery: a tick due after it and before now was missed.
    pub async fn last_cron_tick(&self, trigger_id: &str) -> Result<Option<i64>> {
        let at: Option<i64> = sqlx::query_scalar(
            "SELECT MAX(scheduled_at) FROM trigger_occurrences WHERE trigger_id = ? \
             AND reason IN ('cron', 'cron_recovery')",
        )
        .bind(trigger_id)
        .fetch_one(self.reader())
        .await?;
        Ok(at)
    }

    /// One page of a trigger's history, newest scheduled first, by keyset cursor.
    /// At most [`OCCURRENCE_PAGE_MAX`]; 0 means 50.
    pub async fn list_occurrences(
        &self,
        trigger_id: &str,
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<OccurrencePage> {
        let limit = clamp_limit(limit, OCCURRENCE_PAGE_MAX);
        // Far past any real time or id: the first page.
        let (at, id) = cursor
            .map(decode_cursor)
            .transpose()?
            .unwrap_or((i64::MAX, "~"));
        let rows = sqlx::query(&format!(
            "SELECT {OCCURRENCE_COLUMNS} FROM trigger_occurrences WHERE trigger_id = ? \
             AND (scheduled_at, id) < (?, ?) ORDER BY scheduled_at DESC, id DESC LIMIT ?"
        ))
        .bind(trigger_id)
        .bind(at)
        .bind(id)
        .bind(limit + 1)
        .fetch_all(self.reader())
        .await?;
        let mut occurrences = rows
            .iter()
            .map(occurrence_from_row)
            .collect::<Result<Vec<_>>>()?;
        let next_cursor = if occurrences.len() > usize::try_from(limit).unwrap_or(usize::MAX) {
            occurrences.pop();
            occurrences.last().map(encode_cursor)
        } else {
            None
        };
        Ok(OccurrencePage {
            occurrences,
            next_cursor,
        })
    }
}
