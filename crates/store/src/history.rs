//! Reads for a thread's history panel and files panel: each checkpoint with
//! what its step changed, one checkpoint, and the state files at a
//! checkpoint without their contents (or one file with it).

use std::collections::BTreeMap;

use sqlx::{Row, SqliteConnection};

use crate::checkpoints::{Checkpoint, StateFile, checkpoint_by, ensure_thread};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::text::preview;

/// A checkpoint with what its step changed, for the history panel.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointEntry {
    pub checkpoint: Checkpoint,
    /// Messages the step added (a fork's first checkpoint: every copied one).
    pub messages_added: i64,
    /// Paths the step wrote or deleted, sorted.
    pub files_changed: Vec<String>,
    /// The start of the newest user or assistant message the step added.
    pub preview: Option<String>,
}

/// A state file without its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateFileInfo {
    pub path: String,
    /// In bytes.
    pub size: u64,
    pub modified_at: i64,
}

/// Only this much of a message is read for a history preview, which shows
/// far less: a long answer costs nothing more than a short one.
const PREVIEW_READ_CHARS: i64 = 1000;

/// The message seq and files version before `step`: the previous
/// checkpoint's, or nothing at all before a thread's first.
async fn heads_before(
    conn: &mut SqliteConnection,
    thread_id: &str,
    step: i64,
) -> Result<(i64, i64)> {
    let row = sqlx::query(
        "SELECT message_seq, files_version FROM checkpoints WHERE thread_id = ? AND step < ? \
         ORDER BY step DESC LIMIT 1",
    )
    .bind(thread_id)
    .bind(step)
    .fetch_optional(conn)
    .await?;
    match row {
        Some(row) => Ok((row.try_get("message_seq")?, row.try_get("files_version")?)),
        None => Ok((0, 0)),
    }
}

/// Changed paths by files version, for versions in `(after, upto]`.
async fn changed_paths(
    conn: &mut SqliteConnection,
    thread_id: &str,
    after: i64,
    upto: i64,
) -> Result<BTreeMap<i64, Vec<String>>> {
    let rows = sqlx::query(
        "SELECT version, path FROM thread_files WHERE thread_id = ? AND version > ? \
         AND version <= ? ORDER BY version, path",
    )
    .bind(thread_id)
    .bind(after)
    .bind(upto)
    .fetch_all(conn)
    .await?;
    let mut by_version: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for row in &rows {
        by_version
            .entry(row.try_get("version")?)
            .or_default()
            .push(row.try_get("path")?);
    }
    Ok(by_version)
}

/// The beginnings of the user and assistant messages with seq in `(after, upto]`.
async fn message_starts(
    conn: &mut SqliteConnection,
    thread_id: &str,
    after: i64,
    upto: i64,
) -> Result<BTreeMap<i64, String>> {
    let rows = sqlx::query(
        "SELECT seq, substr(text, 1, ?) AS start FROM messages WHERE thread_id = ? \
         AND seq > ? AND seq <= ? AND role IN ('user', 'assistant') ORDER BY seq",
    )
    .bind(PREVIEW_READ_CHARS)
    .bind(thread_id)
    .bind(after)
    .bind(upto)
    .fetch_all(conn)
    .await?;
    let mut starts = BTreeMap::new();
    for row in &rows {
        let start: String = row.try_get("start")?;
        let start = preview(&start);
        if !start.is_empty() {
            starts.insert(row.try_get("seq")?, start);
        }
    }
    Ok(starts)
}

impl Store {
    /// Checkpoints newest first (before `before_step` when given), each
    /// with what its step changed. Reads the page's rows and the file and
    /// message rows its steps added, never the rest of the thread.
    pub async fn history_entries(
        &self,
        thread_id: &str,
        before_step: Option<i64>,
        limit: u32,
    ) -> Result<Vec<CheckpointEntry>> {
        let checkpoints = self.history(thread_id, before_step, limit).await?;
        let Some(oldest) = checkpoints.last() else {
            return Ok(Vec::new());
        };
        let mut tx = self.reader().begin().await?;
        let (mut seq_before, mut files_before) =
            heads_before(&mut tx, thread_id, oldest.step).await?;
        let newest = &checkpoints[0];
        let mut paths =
            changed_paths(&mut tx, thread_id, files_before, newest.files_version).await?;
        let starts = message_starts(&mut tx, thread_id, seq_before, newest.message_seq).await?;
        tx.commit().await?;

        let mut entries = Vec::with_capacity(checkpoints.len());
        for checkpoint in checkpoints.into_iter().rev() {
            let mut files_changed = Vec::new();
            for version in (files_before + 1)..=checkpoint.files_version {
                files_changed.extend(paths.remove(&version).unwrap_or_default());
            }
            files_changed.sort();
            files_changed.dedup();
            // A step that added no message has no preview (and an empty range
            // would panic).
            let preview = (checkpoint.message_seq > seq_before)
                .then(|| {
                    starts
                        .range((seq_before + 1)..=checkpoint.message_seq)
                        .next_back()
                        .map(|(_, start)| start.clone())
                })
                .flatten();
            entries.push(CheckpointEntry {
                messages_added: (checkpoint.message_seq - seq_before).max(0),
                files_changed,
                preview,
                checkpoint: checkpoint.clone(),
            });
            seq_before = seq_before.max(checkpoint.message_seq);
            files_before = files_before.max(checkpoint.files_version);
        }
        entries.reverse();
        Ok(entries)
    }

    /// One checkpoint of the thread; `NotFound` for another thread's.
    pub async fn checkpoint(&self, thread_id: &str, checkpoint_id: &str) -> Result<Checkpoint> {
        let mut conn = self.reader().acquire().await?;
        ensure_thread(&mut conn, thread_id).await?;
        checkpoint_by(&mut conn, thread_id, Some(checkpoint_id))
            .await?
            .ok_or_else(|| Error::not_found("checkpoint", checkpoint_id))
    }

    /// The state files at `checkpoint_id` (the latest when `None`), by
    /// path, without their contents.
    pub async fn state_files(
        &self,
        thread_id: &str,
        checkpoint_id: Option<&str>,
    ) -> Result<Vec<StateFileInfo>> {
        let mut tx = self.reader().begin().await?;
        let Some(files_version) = files_version_at(&mut tx, thread_id, checkpoint_id).await? else {
            return Ok(Vec::new());
        };
        // SQLite evaluates the bare columns on the row holding MAX(version).
        let rows = sqlx::query(
            "SELECT path, length(CAST(content AS BLOB)) AS size, content IS NULL AS deleted, \
             modified_at, MAX(version) FROM thread_files \
             WHERE thread_id = ? AND version <= ? GROUP BY path ORDER BY path",
        )
        .bind(thread_id)
        .bind(files_version)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        let mut files = Vec::with_capacity(rows.len());
        for row in &rows {
            if row.try_get::<bool, _>("deleted")? {
                continue;
            }
            let size: Option<i64> = row.try_get("size")?;
            files.push(StateFileInfo {
                path: row.try_get("path")?,
                size: u64::try_from(size.unwrap_or(0)).unwrap_or(0),
                modified_at: row.try_get("modified_at")?,
            });
        }
        Ok(files)
    }

    /// One state file at `checkpoint_id` (the latest when `None`);
    /// `NotFound` when it does not exist there.
    pub async fn state_file(
        &self,
        thread_id: &str,
        path: &str,
        checkpoint_id: Option<&str>,
    ) -> Result<StateFile> {
        let mut tx = self.reader().begin().await?;
        let files_version = files_version_at(&mut tx, thread_id, checkpoint_id).await?;
        let row = match files_version {
            Some(version) => {
                sqlx::query(
                    "SELECT content, modified_at FROM thread_files \
                     WHERE thread_id = ? AND path = ? AND version <= ? \
                     ORDER BY version DESC LIMIT 1",
                )
                .bind(thread_id)
                .bind(path)
                .bind(version)
                .fetch_optional(&mut *tx)
                .await?
            }
            None => None,
        };
        tx.commit().await?;
        let missing = || Error::not_found("file", path);
        let row = row.ok_or_else(missing)?;
        let content: Option<String> = row.try_get("content")?;
        Ok(StateFile {
            content: content.ok_or_else(missing)?,
            modified_at: row.try_get("modified_at")?,
        })
    }
}

/// The files version at `checkpoint_id` (the latest when `None`); `None`
/// for a thread with no checkpoint yet.
async fn files_version_at(
    conn: &mut SqliteConnection,
    thread_id: &str,
    checkpoint_id: Option<&str>,
) -> Result<Option<i64>> {
    ensure_thread(&mut *conn, thread_id).await?;
    Ok(checkpoint_by(conn, thread_id, checkpoint_id)
        .await?
        .map(|c| c.files_version))
}
