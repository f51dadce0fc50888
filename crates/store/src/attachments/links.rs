//! The attachment rows other repositories write in their own transactions:
//! a turn or a queued message links its attachments, a fork shares its
//! parent's, deleting a thread deletes those nobody links any more.

use pizza_protocol::ATTACHMENTS_PER_MESSAGE_MAX;
use sqlx::{Row, SqliteConnection};

use super::{ATTACHMENT_COLUMNS, Attachment, attachment_from_row};
use crate::error::{Error, Result};
use crate::text::to_json;
use crate::transcript::{Part, ResultPart};

/// The rows of `ids`, in their order; `None` for an id with no row.
pub(super) async fn lookup(
    conn: &mut SqliteConnection,
    ids: &[String],
) -> Result<Vec<(String, Option<Attachment>)>> {
    let sql = format!(
        "SELECT j.value AS wanted, {ATTACHMENT_COLUMNS} FROM json_each(?) j \
         LEFT JOIN attachments a ON a.id = j.value ORDER BY j.key"
    );
    let rows = sqlx::query(&sql)
        .bind(to_json(ids)?)
        .fetch_all(conn)
        .await?;
    rows.iter()
        .map(|row| {
            let wanted: String = row.try_get("wanted")?;
            let found: Option<String> = row.try_get("id")?;
            let attachment = found.map(|_| attachment_from_row(row)).transpose()?;
            Ok((wanted, attachment))
        })
        .collect()
}

/// Links the attachments of one message to `thread_id` and, when `sent_at`
/// is given, marks those not sent before as sent then. An unknown id is
/// `InvalidInput` and links nothing; the caller commits.
pub(crate) async fn link_in(
    conn: &mut SqliteConnection,
    thread_id: &str,
    ids: &[String],
    sent_at: Option<i64>,
) -> Result<Vec<Attachment>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    if ids.len() > ATTACHMENTS_PER_MESSAGE_MAX {
        return Err(Error::invalid(format!(
            "a message has {} attachments; the limit is {ATTACHMENTS_PER_MESSAGE_MAX}",
            ids.len()
        )));
    }
    let mut attachments = Vec::with_capacity(ids.len());
    for (id, found) in lookup(&mut *conn, ids).await? {
        let mut attachment =
            found.ok_or_else(|| Error::invalid(format!("attachment {id} does not exist")))?;
        if attachment.sent_at.is_none() {
            attachment.sent_at = sent_at;
        }
        attachments.push(attachment);
    }
    let ids = to_json(ids)?;
    sqlx::query(
        "INSERT OR IGNORE INTO thread_attachments (thread_id, attachment_id) \
         SELECT ?, value FROM json_each(?)",
    )
    .bind(thread_id)
    .bind(&ids)
    .execute(&mut *conn)
    .await?;
    if let Some(sent_at) = sent_at {
        sqlx::query(
            "UPDATE attachments SET sent_at = ? \
             WHERE sent_at IS NULL AND id IN (SELECT value FROM json_each(?))",
        )
        .bind(sent_at)
        .bind(&ids)
        .execute(&mut *conn)
        .await?;
    }
    Ok(attachments)
}

/// Links to `fork` every attachment `parent` links; the caller commits.
pub(crate) async fn share_in(conn: &mut SqliteConnection, parent: &str, fork: &str) -> Result<()> {
    sqlx::query(
        "INSERT OR IGNORE INTO thread_attachments (thread_id, attachment_id) \
         SELECT ?, attachment_id FROM thread_attachments WHERE thread_id = ?",
    )
    .bind(fork)
    .bind(parent)
    .execute(conn)
    .await?;
    Ok(())
}

/// The ids of the attachments `thread_id` links.
pub(crate) async fn linked_in(conn: &mut SqliteConnection, thread_id: &str) -> Result<Vec<String>> {
    Ok(
        sqlx::query_scalar("SELECT attachment_id FROM thread_attachments WHERE thread_id = ?")
            .bind(thread_id)
            .fetch_all(conn)
            .await?,
    )
}

/// Deletes the rows among `ids` that no thread links any more and returns
/// their ids: the caller removes their files once it has committed.
pub(crate) async fn delete_unlinked_in(
    conn: &mut SqliteConnection,
    ids: &[String],
) -> Result<Vec<String>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(sqlx::query_scalar(
        "DELETE FROM attachments WHERE id IN (SELECT value FROM json_each(?)) \
         AND NOT EXISTS (SELECT 1 FROM thread_attachments l WHERE l.attachment_id = attachments.id) \
         RETURNING id",
    )
    .bind(to_json(ids)?)
    .fetch_all(conn)
    .await?)
}

/// The attachments of each queued message of `thread_id`, by queued id, in
/// the order they were queued with; ids with no row are skipped.
pub(crate) async fn of_queued(
    conn: &mut SqliteConnection,
    thread_id: &str,
) -> Result<Vec<(String, Attachment)>> {
    let sql = format!(
        "SELECT q.id AS queued_id, {ATTACHMENT_COLUMNS} \
         FROM queued_messages q, json_each(q.attachments) j \
         JOIN attachments a ON a.id = j.value \
         WHERE q.thread_id = ? AND q.attachments IS NOT NULL ORDER BY q.id, j.key"
    );
    let rows = sqlx::query(&sql).bind(thread_id).fetch_all(conn).await?;
    rows.iter()
        .map(|row| Ok((row.try_get("queued_id")?, attachment_from_row(row)?)))
        .collect()
}

/// Links every attachment the messages of a step refer to (the person's
/// files, images tools returned) to `thread_id` and marks them sent: what a
/// committed message refers to is never swept. The caller commits.
pub(crate) async fn link_messages_in(
    conn: &mut SqliteConnection,
    thread_id: &str,
    messages: &[crate::NewMessage],
    now: i64,
) -> Result<()> {
    for message in messages {
        let ids = referenced(&message.content);
        for chunk in ids.chunks(ATTACHMENTS_PER_MESSAGE_MAX) {
            link_in(&mut *conn, thread_id, chunk, Some(now)).await?;
        }
    }
    Ok(())
}

/// The ids of the attachments `parts` refer to, in order, once each.
fn referenced(parts: &[Part]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let mut push = |id: &str| {
        if !ids.iter().any(|known| known == id) {
            ids.push(id.to_owned());
        }
    };
    for part in parts {
        match part {
            Part::Image { attachment } | Part::Document { attachment } => push(&attachment.id),
            Part::ToolResult { content, .. } => {
                for inner in content {
                    if let ResultPart::Image { attachment } = inner {
                        push(&attachment.id);
                    }
                }
            }
            _ => {}
        }
    }
    ids
}
