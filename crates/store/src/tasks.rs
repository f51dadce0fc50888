//! Delegations: each `task` call's subagent keeps its own transcript and step
//! metadata here, apart from the thread's messages (and search), so that a
//! subagent paused for a decision or stopped by a restart continues where it
//! was. Its file changes are the thread's: they commit as a thread checkpoint
//! in the same transaction.

use serde_json::Value;
use sqlx::Row;

use crate::checkpoints::{FileChange, StepCommit, checkpoint_by, commit_in, ensure_thread};
use crate::clock::new_id;
use crate::error::Result;
use crate::messages::{
    MESSAGE_COLUMNS, Message, NewMessage, Transcript, insert_into, message_from_row,
};
use crate::store::Store;
use crate::text::{from_json, to_json};

/// One subagent step to commit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskStep {
    /// The `task` call's id in the thread's transcript.
    pub task_id: String,
    pub skill: String,
    pub ask: String,
    pub messages: Vec<NewMessage>,
    /// Changes to the thread's files made by the subagent's tools.
    pub files: Vec<FileChange>,
    /// The subagent's metadata after this step (the whole value).
    pub metadata: Value,
}

/// A delegation as stored: what it was asked and how far it got.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskState {
    pub task_id: String,
    pub skill: String,
    pub ask: String,
    pub metadata: Value,
    /// Its transcript, ascending.
    pub messages: Vec<Message>,
}

impl Store {
    /// Appends a subagent step: its messages and metadata, and (as a thread
    /// checkpoint that keeps the head's metadata) the files it changed, in
    /// one transaction. The first step creates the delegation. Returns the
    /// messages as stored.
    pub async fn commit_task_step(&self, thread_id: &str, step: TaskStep) -> Result<Vec<Message>> {
        for m in &step.messages {
            m.validate()?;
        }
        let now = self.now();
        let mut tx = self.write_tx().await?;
        ensure_thread(&mut tx, thread_id).await?;
        sqlx::query(
            "INSERT INTO tasks (thread_id, task_id, skill, ask, metadata, created_at, updated_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (thread_id, task_id) DO UPDATE SET \
             metadata = excluded.metadata, updated_at = excluded.updated_at",
        )
        .bind(thread_id)
        .bind(&step.task_id)
        .bind(&step.skill)
        .bind(&step.ask)
        .bind(to_json(&step.metadata)?)
        .bind(now)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let mut seq: i64 =
            sqlx::query_scalar("SELECT last_seq FROM tasks WHERE thread_id = ? AND task_id = ?")
                .bind(thread_id)
                .bind(&step.task_id)
                .fetch_one(&mut *tx)
                .await?;
        let mut messages = Vec::with_capacity(step.messages.len());
        for m in step.messages {
            seq += 1;
            let task = Transcript::Task(&step.task_id);
            messages.push(insert_into(&mut tx, task, thread_id, seq, new_id(), m, now).await?);
        }
        sqlx::query("UPDATE tasks SET last_seq = ? WHERE thread_id = ? AND task_id = ?")
            .bind(seq)
            .bind(thread_id)
            .bind(&step.task_id)
            .execute(&mut *tx)
            .await?;
        if !step.files.is_empty() {
            let metadata = checkpoint_by(&mut tx, thread_id, None)
                .await?
                .map(|head| head.metadata)
                .unwrap_or(Value::Null);
            let files = StepCommit {
                messages: Vec::new(),
                files: step.files,
                interrupt: None,
                metadata,
            };
            commit_in(&mut tx, thread_id, files, false, now).await?;
        }
        tx.commit().await?;
        Ok(messages)
    }

    /// The delegation `task_id` of the thread, if it has started.
    pub async fn task(&self, thread_id: &str, task_id: &str) -> Result<Option<TaskState>> {
        let mut tx = self.reader().begin().await?;
        let row = sqlx::query(
            "SELECT skill, ask, metadata FROM tasks WHERE thread_id = ? AND task_id = ?",
        )
        .bind(thread_id)
        .bind(task_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let metadata: String = row.try_get("metadata")?;
        let sql = format!(
            "SELECT {MESSAGE_COLUMNS} FROM task_messages WHERE thread_id = ? AND task_id = ? \
             ORDER BY seq"
        );
        let messages = sqlx::query(&sql)
            .bind(thread_id)
            .bind(task_id)
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(message_from_row)
            .collect::<Result<Vec<_>>>()?;
        tx.commit().await?;
        Ok(Some(TaskState {
            task_id: task_id.to_owned(),
            skill: row.try_get("skill")?,
            ask: row.try_get("ask")?,
            metadata: from_json("task metadata", &metadata)?,
            messages,
        }))
    }
}
