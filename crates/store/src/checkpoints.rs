//! The checkpoint writer and the state reads built on it.
//!
//! A step appends messages and changed files and adds one checkpoint row, all in one
//! transaction. The thread row carries the heads (last seq, last step, files version,
//! head checkpoint), so a commit touches only indexed rows for what the step added.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::clock::new_id;
use crate::error::{Error, Result};
use crate::messages::{Message, NewMessage, Role, insert_message, messages_upto};
use crate::store::Store;
use crate::text::{INTERIM_TITLE_MAX_CHARS, clamp_limit, from_json, one_line, preview, to_json};

/// The longest state-file path accepted.
pub const FILE_PATH_MAX_CHARS: usize = 1024;
/// The largest page `history` returns.
pub const HISTORY_PAGE_MAX: u32 = 500;

/// A change to one thread state file; `content: None` deletes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub content: Option<String>,
}

impl FileChange {
    pub fn write(path: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            content: Some(content.into()),
        }
    }

    pub fn delete(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            content: None,
        }
    }
}

/// One agent step to commit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepCommit {
    pub messages: Vec<NewMessage>,
    pub files: Vec<FileChange>,
    /// The interrupt pending at this checkpoint, if the step stopped for the user.
    pub interrupt: Option<Value>,
    /// Opaque to the store; `Null` is stored as `{}`.
    pub metadata: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub id: String,
    pub thread_id: String,
    /// 1 for a thread's first checkpoint, then +1 per step.
    pub step: i64,
    pub parent_id: Option<String>,
    /// Messages with `seq <= message_seq` belong to this checkpoint.
    pub message_seq: i64,
    pub files_version: i64,
    pub interrupt: Option<Value>,
    pub metadata: Value,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CommittedStep {
    pub checkpoint: Checkpoint,
    /// The appended messages as stored, with their ids and seqs.
    pub messages: Vec<Message>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateFile {
    pub content: String,
    pub modified_at: i64,
}

/// A thread's state at one checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadState {
    /// `None` for a thread with no committed step yet.
    pub checkpoint: Option<Checkpoint>,
    pub messages: Vec<Message>,
    pub files: BTreeMap<String, StateFile>,
    pub interrupt: Option<Value>,
}

/// A user's edit to the state (see [`Store::update_state`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StateUpdate {
    pub messages: Vec<NewMessage>,
    pub files: Vec<FileChange>,
}

const CHECKPOINT_COLUMNS: &str = "id, thread_id, step, parent_id, message_seq, files_version, \
     interrupt, metadata, created_at";

fn checkpoint_from_row(row: &SqliteRow) -> Result<Checkpoint> {
    let interrupt: Option<String> = row.try_get("interrupt")?;
    let metadata: String = row.try_get("metadata")?;
    Ok(Checkpoint {
        id: row.try_get("id")?,
        thread_id: row.try_get("thread_id")?,
        step: row.try_get("step")?,
        parent_id: row.try_get("parent_id")?,
        message_seq: row.try_get("message_seq")?,
        files_version: row.try_get("files_version")?,
        interrupt: interrupt
            .map(|i| from_json("checkpoint interrupt", &i))
            .transpose()?,
        metadata: from_json("checkpoint metadata", &metadata)?,
        created_at: row.try_get("created_at")?,
    })
}

pub(crate) async fn ensure_thread(conn: &mut SqliteConnection, thread_id: &str) -> Result<()> {
    let found: Option<i64> = sqlx::query_scalar("SELECT 1 FROM threads WHERE id = ?")
        .bind(thread_id)
        .fetch_optional(conn)
        .await?;
    found
        .map(|_| ())
        .ok_or_else(|| Error::not_found("thread", thread_id))
}

fn validate_files(files: &[FileChange]) -> Result<()> {
    let mut seen = HashSet::new();
    for f in files {
        let len = f.path.chars().count();
        if f.path.trim().is_empty() || len > FILE_PATH_MAX_CHARS || f.path.contains('\0') {
            return Err(Error::invalid(format!(
                "state file path {:?} is empty, too long or contains NUL",
                f.path
            )));
        }
        if !seen.insert(f.path.as_str()) {
            return Err(Error::invalid(format!(
                "state file {:?} changes twice in one step",
                f.path
            )));
        }
    }
    Ok(())
}

/// The latest content of `path` (`None` if absent or deleted).
async fn current_file(
    conn: &mut SqliteConnection,
    thread_id: &str,
    path: &str,
) -> Result<Option<String>> {
    let content: Option<Option<String>> = sqlx::query_scalar(
        "SELECT content FROM thread_files WHERE thread_id = ? AND path = ? \
         ORDER BY version DESC LIMIT 1",
    )
    .bind(thread_id)
    .bind(path)
    .fetch_optional(conn)
    .await?;
    Ok(content.flatten())
}

/// Latest row per path with `version <= files_version`, tombstones dropped.
pub(crate) async fn file_snapshot(
    conn: &mut SqliteConnection,
    thread_id: &str,
    files_version: i64,
) -> Result<BTreeMap<String, StateFile>> {
    // SQLite returns the bare columns from the row holding MAX(version).
    let rows = sqlx::query(
        "SELECT path, content, modified_at, MAX(version) FROM thread_files \
         WHERE thread_id = ? AND version <= ? GROUP BY path",
    )
    .bind(thread_id)
    .bind(files_version)
    .fetch_all(conn)
    .await?;
    let mut files = BTreeMap::new();
    for row in &rows {
        let content: Option<String> = row.try_get("content")?;
        if let Some(content) = content {
            files.insert(
                row.try_get("path")?,
                StateFile {
                    content,
                    modified_at: row.try_get("modified_at")?,
                },
            );
        }
    }
    Ok(files)
}

pub(crate) async fn insert_file(
    conn: &mut SqliteConnection,
    thread_id: &str,
    path: &str,
    version: i64,
    content: Option<&str>,
    modified_at: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO thread_files (thread_id, path, version, content, modified_at) \
         VALUES (?, ?, ?, ?, ?)",
    )
    .bind(thread_id)
    .bind(path)
    .bind(version)
    .bind(content)
    .bind(modified_at)
    .execute(conn)
    .await?;
    Ok(())
}

pub(crate) struct NewCheckpoint<'a> {
    pub(crate) thread_id: &'a str,
    pub(crate) step: i64,
    pub(crate) parent_id: Option<String>,
    pub(crate) message_seq: i64,
    pub(crate) files_version: i64,
    pub(crate) interrupt: Option<Value>,
    pub(crate) metadata: Value,
    pub(crate) created_at: i64,
}

pub(crate) async fn insert_checkpoint(
    conn: &mut SqliteConnection,
    new: NewCheckpoint<'_>,
) -> Result<Checkpoint> {
    let id = new_id();
    let metadata = if new.metadata.is_null() {
        json!({})
    } else {
        new.metadata
    };
    let interrupt = new.interrupt.filter(|i| !i.is_null());
    sqlx::query(
        "INSERT INTO checkpoints (id, thread_id, step, parent_id, message_seq, files_version, \
         interrupt, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&id)
    .bind(new.thread_id)
    .bind(new.step)
    .bind(&new.parent_id)
    .bind(new.message_seq)
    .bind(new.files_version)
    .bind(interrupt.as_ref().map(to_json).transpose()?)
    .bind(to_json(&metadata)?)
    .bind(new.created_at)
    .execute(conn)
    .await?;
    Ok(Checkpoint {
        id,
        thread_id: new.thread_id.to_owned(),
        step: new.step,
        parent_id: new.parent_id,
        message_seq: new.message_seq,
        files_version: new.files_version,
        interrupt,
        metadata,
        created_at: new.created_at,
    })
}

/// The preview a list row shows for these messages, if any of them has one.
pub(crate) fn preview_of<'a>(
    messages: impl DoubleEndedIterator<Item = &'a Message>,
) -> Option<String> {
    messages
        .rev()
        .filter(|m| matches!(m.role, Role::User | Role::Assistant))
        .map(|m| preview(&m.text))
        .find(|p| !p.is_empty())
}

pub(crate) async fn checkpoint_by(
    conn: &mut SqliteConnection,
    thread_id: &str,
    checkpoint_id: Option<&str>,
) -> Result<Option<Checkpoint>> {
    let row = match checkpoint_id {
        Some(id) => {
            let sql = format!(
                "SELECT {CHECKPOINT_COLUMNS} FROM checkpoints WHERE id = ? AND thread_id = ?"
            );
            let row = sqlx::query(&sql)
                .bind(id)
                .bind(thread_id)
                .fetch_optional(conn)
                .await?;
            Some(row.ok_or_else(|| Error::not_found("checkpoint", id))?)
        }
        None => {
            let sql = format!(
                "SELECT {CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? \
                 ORDER BY step DESC LIMIT 1"
            );
            sqlx::query(&sql)
                .bind(thread_id)
                .fetch_optional(conn)
                .await?
        }
    };
    row.as_ref().map(checkpoint_from_row).transpose()
}

impl Store {
    /// Commits one agent step in one transaction. Bad input writes nothing.
    pub async fn commit_step(&self, thread_id: &str, step: StepCommit) -> Result<CommittedStep> {
        self.commit(thread_id, step, false).await
    }

    async fn commit(
        &self,
        thread_id: &str,
        step: StepCommit,
        keep_interrupt: bool,
    ) -> Result<CommittedStep> {
        let mut tx = self.write_tx().await?;
        let committed = commit_in(&mut tx, thread_id, step, keep_interrupt, self.now()).await?;
        tx.commit().await?;
        Ok(committed)
    }

    /// Appends messages and/or changes files as a new checkpoint, keeping any pending
    /// interrupt: an edit is not an answer to it.
    pub async fn update_state(
        &self,
        thread_id: &str,
        update: StateUpdate,
    ) -> Result<CommittedStep> {
        if update.messages.is_empty() && update.files.is_empty() {
            return Err(Error::invalid("a state update must change something"));
        }
        let step = StepCommit {
            messages: update.messages,
            files: update.files,
            interrupt: None,
            metadata: json!({ "source": "update" }),
        };
        self.commit(thread_id, step, true).await
    }

    /// The state at `checkpoint_id`, or at the latest checkpoint when `None`.
    pub async fn state(&self, thread_id: &str, checkpoint_id: Option<&str>) -> Result<ThreadState> {
        // One read transaction: messages and files come from the same snapshot.
        let mut tx = self.reader().begin().await?;
        ensure_thread(&mut tx, thread_id).await?;
        let Some(checkpoint) = checkpoint_by(&mut tx, thread_id, checkpoint_id).await? else {
            return Ok(ThreadState {
                checkpoint: None,
                messages: Vec::new(),
                files: BTreeMap::new(),
                interrupt: None,
            });
        };
        let messages = messages_upto(&mut tx, thread_id, checkpoint.message_seq).await?;
        let files = file_snapshot(&mut tx, thread_id, checkpoint.files_version).await?;
        tx.commit().await?;
        Ok(ThreadState {
            interrupt: checkpoint.interrupt.clone(),
            checkpoint: Some(checkpoint),
            messages,
            files,
        })
    }

    /// Checkpoints newest first, before `before_step` when given.
    pub async fn history(
        &self,
        thread_id: &str,
        before_step: Option<i64>,
        limit: u32,
    ) -> Result<Vec<Checkpoint>> {
        let limit = clamp_limit(limit, HISTORY_PAGE_MAX);
        let mut conn = self.reader().acquire().await?;
        ensure_thread(&mut conn, thread_id).await?;
        let sql = format!(
            "SELECT {CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? AND step < ? \
             ORDER BY step DESC LIMIT ?"
        );
        let rows = sqlx::query(&sql)
            .bind(thread_id)
            .bind(before_step.unwrap_or(i64::MAX))
            .bind(limit)
            .fetch_all(&mut *conn)
            .await?;
        rows.iter().map(checkpoint_from_row).collect()
    }
}

/// Commits one step inside `tx` (the caller commits it): the messages, the
/// files that really changed, and a checkpoint at the new head. Bad input
/// writes nothing.
pub(crate) async fn commit_in(
    tx: &mut SqliteConnection,
    thread_id: &str,
    mut step: StepCommit,
    keep_interrupt: bool,
    now: i64,
) -> Result<CommittedStep> {
    for m in &step.messages {
        m.validate()?;
    }
    validate_files(&step.files)?;

    let head = sqlx::query(
        "SELECT last_seq, last_step, files_version, head_checkpoint_id FROM threads WHERE id = ?",
    )
    .bind(thread_id)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(|| Error::not_found("thread", thread_id))?;
    let mut seq: i64 = head.try_get("last_seq")?;
    let last_step: i64 = head.try_get("last_step")?;
    let mut files_version: i64 = head.try_get("files_version")?;
    let parent_id: Option<String> = head.try_get("head_checkpoint_id")?;
    if keep_interrupt && let Some(parent) = &parent_id {
        let pending: Option<Option<String>> =
            sqlx::query_scalar("SELECT interrupt FROM checkpoints WHERE id = ?")
                .bind(parent)
                .fetch_optional(&mut *tx)
                .await?;
        step.interrupt = pending
            .flatten()
            .map(|i| from_json("checkpoint interrupt", &i))
            .transpose()?;
    }

    crate::attachments::link_messages_in(&mut *tx, thread_id, &step.messages, now).await?;
    let mut messages = Vec::with_capacity(step.messages.len());
    for m in step.messages {
        seq += 1;
        messages.push(insert_message(&mut *tx, thread_id, seq, new_id(), m, now).await?);
    }

    // Only real changes get a row, so unchanged files cost nothing and a step that
    // touches no file keeps the files version.
    let mut changed = Vec::new();
    for f in &step.files {
        if current_file(&mut *tx, thread_id, &f.path).await? != f.content {
            changed.push(f);
        }
    }
    if !changed.is_empty() {
        files_version += 1;
        for f in changed {
            insert_file(
                &mut *tx,
                thread_id,
                &f.path,
                files_version,
                f.content.as_deref(),
                now,
            )
            .await?;
        }
    }

    let checkpoint = insert_checkpoint(
        &mut *tx,
        NewCheckpoint {
            thread_id,
            step: last_step + 1,
            parent_id,
            message_seq: seq,
            files_version,
            interrupt: step.interrupt,
            metadata: step.metadata,
            created_at: now,
        },
    )
    .await?;

    let preview = preview_of(messages.iter());
    // Until it has a title, a thread is listed under its first message.
    let interim_title = messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| one_line(&m.text, INTERIM_TITLE_MAX_CHARS))
        .find(|t| !t.is_empty());
    sqlx::query(
        "UPDATE threads SET last_seq = ?, last_step = ?, files_version = ?, \
         head_checkpoint_id = ?, last_activity_at = ?, preview = COALESCE(?, preview), \
         title = CASE WHEN title = '' AND user_titled = 0 THEN COALESCE(?, title) ELSE title END \
         WHERE id = ?",
    )
    .bind(seq)
    .bind(checkpoint.step)
    .bind(files_version)
    .bind(&checkpoint.id)
    .bind(now)
    .bind(preview)
    .bind(interim_title)
    .bind(thread_id)
    .execute(&mut *tx)
    .await?;
    Ok(CommittedStep {
        checkpoint,
        messages,
    })
}
