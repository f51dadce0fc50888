//! The host's queue of messages for busy threads: durable, so closing the
//! window or restarting the app loses none. A queued message leaves the queue
//! in the transaction that creates its run ([`Store::start_turn`]).

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::checkpoints::ensure_thread;
use crate::clock::new_id;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::text::required;

use pizza_protocol::MESSAGE_TEXT_MAX_BYTES;
pub use pizza_protocol::QueuedMessage;

/// Messages one thread may hold; a runaway sender is refused, not buffered.
pub const QUEUE_MAX_PER_THREAD: i64 = 100;

const QUEUED_COLUMNS: &str = "id, text, model, created_at";
/// Oldest first; rowid keeps the order of two messages queued in one millisecond.
const QUEUE_ORDER: &str = "ORDER BY created_at, rowid";

fn queued_from_row(row: &SqliteRow) -> Result<QueuedMessage> {
    Ok(QueuedMessage {
        id: row.try_get("id")?,
        text: row.try_get("text")?,
        model: row.try_get("model")?,
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
    /// Appends a message to the thread's queue.
    pub async fn queue_message(
        &self,
        thread_id: &str,
        text: &str,
        model: Option<&str>,
    ) -> Result<QueuedMessage> {
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::invalid("a message must not be empty"));
        }
        if text.len() > MESSAGE_TEXT_MAX_BYTES {
            return Err(Error::invalid(format!(
                "the message is {} bytes long; the limit is {MESSAGE_TEXT_MAX_BYTES}",
                text.len()
            )));
        }
        let model = model.map(|m| required("model", m, 200)).transpose()?;
        let message = QueuedMessage {
            id: new_id(),
            text: text.to_owned(),
            model,
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
        sqlx::query(
            "INSERT INTO queued_messages (id, thread_id, text, model, created_at) \
             VALUES (?, ?, ?, ?, ?)",
        )
        .bind(&message.id)
        .bind(thread_id)
        .bind(&message.text)
        .bind(&message.model)
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
        let rows = sqlx::query(&sql)
            .bind(thread_id)
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(queued_from_row).collect()
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
