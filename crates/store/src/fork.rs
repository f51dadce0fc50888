//! Forking a thread at a message or a checkpoint: a new thread that starts with a copy of the
//! transcript up to that message and the state files as of the step that committed it,
//! sharing the parent's attachments.

use serde_json::json;
use sqlx::{Row, SqliteConnection};

use crate::attachments::share_in;
use crate::checkpoints::{
    NewCheckpoint, checkpoint_by, ensure_thread, file_snapshot, insert_checkpoint, insert_file,
    preview_of,
};
use crate::clock::new_id;
use crate::error::{Error, Result};
use crate::messages::{NewMessage, insert_message, messages_upto};
use crate::store::Store;
use crate::text::{TITLE_MAX_CHARS, required};
use crate::threads::Thread;

/// Where a fork starts: the messages up to `seq` and the files of
/// `files_version`, as the parent had them at `checkpoint_id`.
struct ForkPoint {
    seq: i64,
    checkpoint_id: String,
    files_version: i64,
}

/// Where to fork a thread: after one of its messages, or at one of its
/// checkpoints (its messages and files then).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForkAt<'a> {
    Message(&'a str),
    Checkpoint(&'a str),
}

impl Store {
    /// Forks `thread_id` at `at`. `title` defaults to the parent's.
    ///
    /// Refused with `InvalidInput` inside a tool call: when a tool call issued at or
    /// before the fork point has no result at or before it, the fork's transcript
    /// would be one no model accepts.
    pub async fn fork(
        &self,
        thread_id: &str,
        at: ForkAt<'_>,
        title: Option<&str>,
    ) -> Result<Thread> {
        let title = title
            .map(|t| required("title", t, TITLE_MAX_CHARS))
            .transpose()?;
        let now = self.now();
        let mut tx = self.write_tx().await?;
        ensure_thread(&mut tx, thread_id).await?;
        let point = match at {
            ForkAt::Message(message_id) => message_point(&mut tx, thread_id, message_id).await?,
            ForkAt::Checkpoint(checkpoint_id) => {
                let checkpoint = checkpoint_by(&mut tx, thread_id, Some(checkpoint_id))
                    .await?
                    .ok_or_else(|| Error::not_found("checkpoint", checkpoint_id))?;
                ForkPoint {
                    seq: checkpoint.message_seq,
                    checkpoint_id: checkpoint.id,
                    files_version: checkpoint.files_version,
                }
            }
        };
        let id = fork_in(&mut tx, thread_id, point, title, now).await?;
        tx.commit().await?;
        self.thread(&id).await
    }
}

/// The fork point after `message_id`: the first checkpoint that contains the
/// message, the state as of that step.
async fn message_point(
    tx: &mut SqliteConnection,
    thread_id: &str,
    message_id: &str,
) -> Result<ForkPoint> {
    let seq: i64 = sqlx::query_scalar("SELECT seq FROM messages WHERE id = ? AND thread_id = ?")
        .bind(message_id)
        .bind(thread_id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| Error::not_found("message", message_id))?;
    let checkpoint = sqlx::query(
        "SELECT id, files_version FROM checkpoints WHERE thread_id = ? AND message_seq >= ? \
         ORDER BY message_seq, step LIMIT 1",
    )
    .bind(thread_id)
    .bind(seq)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(|| Error::Corrupt(format!("message {message_id} has no checkpoint")))?;
    Ok(ForkPoint {
        seq,
        checkpoint_id: checkpoint.try_get("id")?,
        files_version: checkpoint.try_get("files_version")?,
    })
}

/// Creates the fork of `thread_id` at `point` inside `tx` (the caller
/// commits) and answers its id.
async fn fork_in(
    tx: &mut SqliteConnection,
    thread_id: &str,
    point: ForkPoint,
    title: Option<String>,
    now: i64,
) -> Result<String> {
    let ForkPoint {
        seq,
        checkpoint_id: parent_checkpoint_id,
        files_version,
    } = point;
    let parent =
        sqlx::query("SELECT title, user_titled, folder_id, model FROM threads WHERE id = ?")
            .bind(thread_id)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| Error::not_found("thread", thread_id))?;

    let unanswered: Option<String> = sqlx::query_scalar(
        "SELECT c.value FROM messages m, json_each(m.tool_call_ids) c \
         WHERE m.thread_id = ?1 AND m.seq <= ?2 AND m.tool_call_ids IS NOT NULL \
         EXCEPT \
         SELECT tool_call_id FROM messages \
         WHERE thread_id = ?1 AND seq <= ?2 AND tool_call_id IS NOT NULL \
         LIMIT 1",
    )
    .bind(thread_id)
    .bind(seq)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(call) = unanswered {
        return Err(Error::invalid(format!(
            "cannot fork in the middle of a tool call (call {call} has no result there yet); \
             fork from a point after its result"
        )));
    }

    let messages = messages_upto(&mut *tx, thread_id, seq).await?;
    let files = file_snapshot(&mut *tx, thread_id, files_version).await?;

    let (title, user_titled) = match title {
        Some(t) => (t, true),
        None => (
            parent.try_get::<String, _>("title")?,
            parent.try_get::<bool, _>("user_titled")?,
        ),
    };
    let id = new_id();
    sqlx::query(
        "INSERT INTO threads (id, title, user_titled, folder_id, source, model, \
         parent_thread_id, parent_checkpoint_id, created_at, last_activity_at, preview) \
         VALUES (?, ?, ?, ?, 'fork', ?, ?, ?, ?, ?, ?)",
    )
    .bind(&id)
    .bind(&title)
    .bind(user_titled)
    .bind(parent.try_get::<Option<String>, _>("folder_id")?)
    .bind(parent.try_get::<Option<String>, _>("model")?)
    .bind(thread_id)
    .bind(&parent_checkpoint_id)
    .bind(now)
    .bind(now)
    .bind(preview_of(messages.iter()).unwrap_or_default())
    .execute(&mut *tx)
    .await?;

    for m in messages {
        let copy = NewMessage {
            role: m.role,
            content: m.content,
            text: m.text,
            tool_call_ids: m.tool_call_ids,
            tool_call_id: m.tool_call_id,
        };
        insert_message(&mut *tx, &id, m.seq, new_id(), copy, m.created_at).await?;
    }
    // The fork uses its parent's attachments: deleting the parent keeps them.
    share_in(&mut *tx, thread_id, &id).await?;
    let fork_files_version = i64::from(!files.is_empty());
    for (path, file) in &files {
        insert_file(
            &mut *tx,
            &id,
            path,
            1,
            Some(&file.content),
            file.modified_at,
        )
        .await?;
    }
    let checkpoint = insert_checkpoint(
        &mut *tx,
        NewCheckpoint {
            thread_id: &id,
            step: 1,
            parent_id: None,
            message_seq: seq,
            files_version: fork_files_version,
            interrupt: None,
            metadata: json!({
                "source": "fork",
                "parent_thread_id": thread_id,
                "parent_checkpoint_id": parent_checkpoint_id,
            }),
            created_at: now,
        },
    )
    .await?;
    sqlx::query(
        "UPDATE threads SET last_seq = ?, last_step = 1, files_version = ?, \
         head_checkpoint_id = ? WHERE id = ?",
    )
    .bind(seq)
    .bind(fork_files_version)
    .bind(&checkpoint.id)
    .bind(&id)
    .execute(&mut *tx)
    .await?;
    Ok(id)
}
