//! The host's queue of messages for busy threads: durable, so closing the
//! window or restarting the app loses none. A queued message leaves the queue
//! in the transaction that creates its run ([`Store::start_turn`]).

use std::collections::HashMap;

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::attachments::{self, Attachment};
use crate::checkpoints::ensure_thread;
use crate::clock::new_id;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::text::{required, to_json};

use pizza_protocol::MESSAGE_TEXT_MAX_BYTES;

/// Messages one thread may hold; a runaway sender is refused, not buffered.
pub const QUEUE_MAX_PER_THREAD: i64 = 100;

/// A message waiting for its thread to be free. The window's
/// `pizza_protocol::QueuedMessage` is made from it with `From`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedMessage {
    pub id: String,
    pub text: String,
    /// `provider:model` asked for, if any.
    pub model: Option<String>,
    /// What goes with it, in the order given; one deleted meanwhile is left out.
    pub attachments: Vec<Attachment>,
    pub created_at: i64,
}

impl QueuedMessage {
    /// The ids of its attachments, as [`crate::TurnStart::attachments`] takes them.
    pub fn attachment_ids(&self) -> Vec<String> {
        self.attachments.iter().map(|a| a.id.clone()).collect()
    }
}

const QUEUED_COLUMNS: &str = "id, text, model, created_at";
/// Oldest first; rowid keeps the order of two messages queued in one millisecond.
const QUEUE_ORDER: &str = "ORDER BY created_at, rowid";

fn queued_from_row(row: &SqliteRow) -> Result<QueuedMessage> {
    Ok(QueuedMessage {
        id: row.try_get("id")?,
        text: row.try_get("text")?,
        model: row.try_get("model")?,
        attachments: Vec::new(),
        created_at: row.try_get("created_at")?,
    })
}

/// Deletes the queued message; `NotFound` when it is not (or no longer) queued.
pub(crate) async fn take_queued(
    conn: &mut SqliteConnection,
    thread_id: &str,
    queued_id: &str,
) -> Result<()> {
    let done = sqlx::query("DELETE FROM queued_messages WHERE id = ? AND thread_id = ?")
        .bind(queued_id)
        .bind(thread_id)
        .execute(conn)
        .await?;
    if done.rows_affected() == 0 {
        return Err(Error::not_found("queued message", queued_id));
    }
    Ok(())
}

impl Store {
    /// Appends a message to the thread's queue, with the ids of the
    /// attachments that go with it: they are linked to the thread now and
    /// marked sent when the message is. An unknown id is `InvalidInput`.
    pub async fn queue_message(
        &self,
        thread_id: &str,
        text: &str,
        model: Option<&str>,
        attachments: &[String],
    ) -> Result<QueuedMessage> {
        let text = text.trim();
        if text.is_empty() && attachments.is_empty() {
            return Err(Error::invalid("a message must not be empty"));
        }
        if text.len() > MESSAGE_TEXT_MAX_BYTES {
            return Err(Error::invalid(format!(
                "the message is {} bytes long; the limit is {MESSAGE_TEXT_MAX_BYTES}",
                text.len()
            )));
        }
        let model = model.map(|m| required("model", m, 200)).transpose()?;
        let mut message = QueuedMessage {
            id: new_id(),
            text: text.to_owned(),
            model,
            attachments: Vec::new(),
            created_at: self.now(),
        };
        let mut tx = self.write_tx().await?;
        ensure_thread(&mut tx, thread_id).await?;
        let held: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM queued_messages WHERE thread_id = ?")
                .bind(thread_id)
                .fetch_one(&mut *tx)
                .await?;
        if held >= QUEUE_MAX_PER_THREAD {
            return Err(Error::Conflict(format!(
                "thread {thread_id} already has {held} queued messages"
            )));
        }
        message.attachments = attachments::link_in(&mut tx, thread_id, attachments, None).await?;
        let attachments = if attachments.is_empty() {
            None
        } else {
            Some(to_json(attachments)?)
        };
        sqlx::query(
            "INSERT INTO queued_messages (id, thread_id, text, model, attachments, created_at) \
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(&message.id)
        .bind(thread_id)
        .bind(&message.text)
        .bind(&message.model)
        .bind(attachments)
        .bind(message.created_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(message)
    }

    /// The thread's queue, oldest first.
    pub async fn queued_messages(&self, thread_id: &str) -> Result<Vec<QueuedMessage>> {
        let sql = format!(
            "SELECT {QUEUED_COLUMNS} FROM queued_messages WHERE thread_id = ? {QUEUE_ORDER}"
        );
        // One read transaction: the messages and their attachments are one snapshot.
        let mut tx = self.reader().begin().await?;
        let rows = sqlx::query(&sql)
            .bind(thread_id)
            .fetch_all(&mut *tx)
            .await?;
        let mut messages = rows
            .iter()
            .map(queued_from_row)
            .collect::<Result<Vec<_>>>()?;
        let mut attached: HashMap<String, Vec<Attachment>> = HashMap::new();
        for (queued_id, attachment) in attachments::of_queued(&mut tx, thread_id).await? {
            attached.entry(queued_id).or_default().push(attachment);
        }
        for message in &mut messages {
            message.attachments = attached.remove(&message.id).unwrap_or_default();
        }
        Ok(messages)
    }

    /// Removes a message before it is sent; `NotFound` when it is not queued.
    pub async fn remove_queued(&self, thread_id: &str, queued_id: &str) -> Result<()> {
        let mut tx = self.write_tx().await?;
        take_queued(&mut tx, thread_id, queued_id).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Threads holding queued messages, longest waiting first.
    pub async fn threads_with_queued(&self) -> Result<Vec<String>> {
        Ok(sqlx::query_scalar(
            "SELECT thread_id FROM queued_messages GROUP BY thread_id ORDER BY MIN(created_at)",
        )
        .fetch_all(self.reader())
        .await?)
    }
}
