//! Runs (one execution on a thread) and the durable activity log of their outcomes.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::sqlite::SqliteRow;
use sqlx::{QueryBuilder, Row, Sqlite};

use crate::checkpoints::ensure_thread;
use crate::clock::new_id;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::text::{clamp_limit, from_json, to_json};

/// How many activity entries are kept; older ones are pruned on append.
pub const ACTIVITY_RETAINED: i64 = 5_000;
pub const ACTIVITY_PAGE_MAX: u32 = 1_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Succeeded,
    Failed,
    Interrupted,
    Cancelled,
    TimedOut,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Interrupted => "interrupted",
            Self::Cancelled => "cancelled",
            Self::TimedOut => "timed_out",
        }
    }

    fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "running" => Self::Running,
            "succeeded" => Self::Succeeded,
            "failed" => Self::Failed,
            "interrupted" => Self::Interrupted,
            "cancelled" => Self::Cancelled,
            "timed_out" => Self::TimedOut,
            other => return Err(Error::Corrupt(format!("unknown run status {other:?}"))),
        })
    }

    pub fn is_terminal(self) -> bool {
        self != Self::Running
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunSource {
    User,
    Trigger,
}

impl RunSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Trigger => "trigger",
        }
    }

    fn parse(s: &str) -> Result<Self> {
        match s {
            "user" => Ok(Self::User),
            "trigger" => Ok(Self::Trigger),
            other => Err(Error::Corrupt(format!("unknown run source {other:?}"))),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunError {
    /// A protocol error code such as `RATE_LIMIT`.
    pub code: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub id: String,
    pub thread_id: String,
    pub status: RunStatus,
    pub source: RunSource,
    pub error: Option<RunError>,
    pub usage: Option<Value>,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    /// The app's restart interrupted this run and the thread offers Resume /
    /// Discard; cleared by either, and by any newer run on the thread.
    pub resumable: bool,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub status: RunStatus,
    pub error: Option<RunError>,
    pub usage: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewActivity {
    pub thread_id: String,
    pub run_id: Option<String>,
    /// A terminal status.
    pub status: RunStatus,
    /// Opaque to the store (title, error, ...).
    pub detail: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivityEntry {
    /// Strictly increasing; never reused.
    pub cursor: i64,
    pub thread_id: String,
    pub run_id: Option<String>,
    pub status: RunStatus,
    pub detail: Value,
    pub created_at: i64,
}

const RUN_COLUMNS: &str = "id, thread_id, status, source, error_code, error_message, usage, \
     started_at, ended_at, resumable";

/// Set on runs found live at startup: the process that ran them is gone.
pub const INTERRUPTED_BY_RESTART: &str = "INTERRUPTED_BY_RESTART";

fn run_from_row(row: &SqliteRow) -> Result<Run> {
    let code: Option<String> = row.try_get("error_code")?;
    let message: Option<String> = row.try_get("error_message")?;
    let usage: Option<String> = row.try_get("usage")?;
    Ok(Run {
        id: row.try_get("id")?,
        thread_id: row.try_get("thread_id")?,
        status: RunStatus::parse(row.try_get("status")?)?,
        source: RunSource::parse(row.try_get("source")?)?,
        error: code.map(|code| RunError {
            code,
            message: message.unwrap_or_default(),
        }),
        usage: usage.map(|u| from_json("run usage", &u)).transpose()?,
        started_at: row.try_get("started_at")?,
        ended_at: row.try_get("ended_at")?,
        resumable: row.try_get("resumable")?,
    })
}

/// Inserts a live run; `Conflict` when the thread already has one.
pub(crate) async fn insert_run(
    tx: &mut sqlx::SqliteConnection,
    thread_id: &str,
    source: RunSource,
    now: i64,
) -> Result<String> {
    let id = new_id();
    ensure_thread(&mut *tx, thread_id).await?;
    let inserted = sqlx::query(
        "INSERT INTO runs (id, thread_id, status, source, started_at) \
         VALUES (?, ?, 'running', ?, ?)",
    )
    .bind(&id)
    .bind(thread_id)
    .bind(source.as_str())
    .bind(now)
    .execute(&mut *tx)
    .await;
    if let Err(e) = inserted {
        let e = Error::from(e);
        return Err(match &e {
            Error::Database(db) if db.is_unique_violation() => {
                Error::Conflict(format!("thread {thread_id} already has a run in progress"))
            }
            _ => e,
        });
    }
    // A new run supersedes the restart's offer to resume an older one.
    sqlx::query("UPDATE runs SET resumable = 0 WHERE thread_id = ? AND resumable = 1")
        .bind(thread_id)
        .execute(&mut *tx)
        .await?;
    Ok(id)
}

impl Store {
    /// Starts a run. `Conflict` when the thread already has a live run.
    /// Any older run's Resume offer on the thread ends with it.
    pub async fn create_run(&self, thread_id: &str, source: RunSource) -> Result<Run> {
        self.create_run_for(thread_id, source, None).await
    }

    /// [`Store::create_run`] for a run that carries out a trigger occurrence,
    /// which is marked running as this run in the same transaction.
    pub async fn create_run_for(
        &self,
        thread_id: &str,
        source: RunSource,
        occurrence: Option<&crate::OccurrenceLaunch>,
    ) -> Result<Run> {
        let now = self.now();
        let mut tx = self.write_tx().await?;
        let id = insert_run(&mut tx, thread_id, source, now).await?;
        if let Some(launch) = occurrence {
            crate::occurrences::launch_occurrence_in(&mut tx, launch, &id, thread_id, now).await?;
        }
        tx.commit().await?;
        self.run(&id).await
    }

    pub async fn run(&self, id: &str) -> Result<Run> {
        let sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?");
        let row = sqlx::query(&sql)
            .bind(id)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| Error::not_found("run", id))?;
        run_from_row(&row)
    }

    /// Records how a live run ended. `Conflict` if it already ended.
    pub async fn finish_run(&self, id: &str, outcome: RunOutcome) -> Result<Run> {
        if !outcome.status.is_terminal() {
            return Err(Error::invalid(
                "a run can only finish with a terminal status",
            ));
        }
        let usage = outcome.usage.as_ref().map(to_json).transpose()?;
        let mut tx = self.write_tx().await?;
        let status: Option<String> = sqlx::query_scalar("SELECT status FROM runs WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        match status.as_deref() {
            None => return Err(Error::not_found("run", id)),
            Some("running") => {}
            Some(other) => {
                return Err(Error::Conflict(format!("run {id} already ended ({other})")));
            }
        }
        sqlx::query(
            "UPDATE runs SET status = ?, error_code = ?, error_message = ?, usage = ?, \
             ended_at = ? WHERE id = ?",
        )
        .bind(outcome.status.as_str())
        .bind(outcome.error.as_ref().map(|e| e.code.as_str()))
        .bind(outcome.error.as_ref().map(|e| e.message.as_str()))
        .bind(usage)
        .bind(self.now())
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.run(id).await
    }

    /// Runs still marked running, oldest first.
    pub async fn live_runs(&self) -> Result<Vec<Run>> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE status = 'running' ORDER BY started_at, id"
        );
        let rows = sqlx::query(&sql).fetch_all(self.reader()).await?;
        rows.iter().map(run_from_row).collect()
    }

    /// The thread's runs, newest first.
    pub async fn thread_runs(&self, thread_id: &str, limit: u32) -> Result<Vec<Run>> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE thread_id = ? \
             ORDER BY started_at DESC, id DESC LIMIT ?"
        );
        let rows = sqlx::query(&sql)
            .bind(thread_id)
            .bind(clamp_limit(limit, 500))
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(run_from_row).collect()
    }

    /// Crash recovery at startup: every run still `running` becomes
    /// `interrupted` and resumable, in one statement. Returns the runs as they are now.
    pub async fn interrupt_live_runs(&self) -> Result<Vec<Run>> {
        let mut tx = self.write_tx().await?;
        let sql = format!(
            "UPDATE runs SET status = 'interrupted', error_code = ?, \
             error_message = 'The app stopped while this run was in progress.', ended_at = ?, \
             resumable = 1 WHERE status = 'running' RETURNING {RUN_COLUMNS}"
        );
        let rows = sqlx::query(&sql)
            .bind(INTERRUPTED_BY_RESTART)
            .bind(self.now())
            .fetch_all(&mut *tx)
            .await?;
        let runs = rows.iter().map(run_from_row).collect::<Result<Vec<_>>>()?;
        tx.commit().await?;
        Ok(runs)
    }

    /// Whether the thread offers Resume / Discard for a run the restart interrupted.
    pub async fn thread_resumable(&self, thread_id: &str) -> Result<bool> {
        let found: Option<i64> =
            sqlx::query_scalar("SELECT 1 FROM runs WHERE thread_id = ? AND resumable = 1 LIMIT 1")
                .bind(thread_id)
                .fetch_optional(self.reader())
                .await?;
        Ok(found.is_some())
    }

    /// Ends the thread's Resume / Discard offer. Returns whether there was one.
    pub async fn clear_resumable(&self, thread_id: &str) -> Result<bool> {
        let mut tx = self.write_tx().await?;
        let done =
            sqlx::query("UPDATE runs SET resumable = 0 WHERE thread_id = ? AND resumable = 1")
                .bind(thread_id)
                .execute(&mut *tx)
                .await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    }

    /// Each thread's newest run that has ended, for a page of threads in one
    /// query. Threads with no ended run are absent.
    pub async fn last_ended_runs(&self, thread_ids: &[String]) -> Result<HashMap<String, Run>> {
        if thread_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let mut qb: QueryBuilder<'_, Sqlite> = QueryBuilder::new(format!(
            "SELECT {RUN_COLUMNS} FROM (SELECT {RUN_COLUMNS}, ROW_NUMBER() OVER \
             (PARTITION BY thread_id ORDER BY started_at DESC, id DESC) AS newest \
             FROM runs WHERE status != 'running' AND thread_id IN ("
        ));
        let mut ids = qb.separated(", ");
        for id in thread_ids {
            ids.push_bind(id.clone());
        }
        qb.push(")) WHERE newest = 1");
        let rows = qb.build().fetch_all(self.reader()).await?;
        rows.iter()
            .map(|row| run_from_row(row).map(|run| (run.thread_id.clone(), run)))
            .collect()
    }

    /// Appends a terminal outcome and prunes all but the last [`ACTIVITY_RETAINED`].
    pub async fn append_activity(&self, new: NewActivity) -> Result<ActivityEntry> {
        if !new.status.is_terminal() {
            return Err(Error::invalid("activity records terminal outcomes only"));
        }
        let detail = to_json(&new.detail)?;
        let now = self.now();
        let mut tx = self.write_tx().await?;
        let cursor: i64 = sqlx::query_scalar(
            "INSERT INTO activity (thread_id, run_id, status, detail, created_at) \
             VALUES (?, ?, ?, ?, ?) RETURNING cursor",
        )
        .bind(&new.thread_id)
        .bind(&new.run_id)
        .bind(new.status.as_str())
        .bind(&detail)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        // A rowid range delete: cheap, and at most one row per append in steady state.
        sqlx::query("DELETE FROM activity WHERE cursor <= ?")
            .bind(cursor - ACTIVITY_RETAINED)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(ActivityEntry {
            cursor,
            thread_id: new.thread_id,
            run_id: new.run_id,
            status: new.status,
            detail: new.detail,
            created_at: now,
        })
    }

    /// Entries with `cursor > since`, oldest first.
    pub async fn activity_since(&self, since: i64, limit: u32) -> Result<Vec<ActivityEntry>> {
        let rows = sqlx::query(
            "SELECT cursor, thread_id, run_id, status, detail, created_at FROM activity \
             WHERE cursor > ? ORDER BY cursor LIMIT ?",
        )
        .bind(since)
        .bind(clamp_limit(limit, ACTIVITY_PAGE_MAX))
        .fetch_all(self.reader())
        .await?;
        rows.iter()
            .map(|row| {
                let detail: String = row.try_get("detail")?;
                Ok(ActivityEntry {
                    cursor: row.try_get("cursor")?,
                    thread_id: row.try_get("thread_id")?,
                    run_id: row.try_get("run_id")?,
                    status: RunStatus::parse(row.try_get("status")?)?,
                    detail: from_json("activity detail", &detail)?,
                    created_at: row.try_get("created_at")?,
                })
            })
            .collect()
    }
}
