//! Files the person attached. The bytes live in the data root's
//! `attachments` folder, one file per id, never in the database: a row holds
//! what the file is, and a message carries only its reference.
//!
//! An upload is unsent until a turn carries it (`sent_at`); until then it may
//! be removed, and the start-up sweep drops old ones. `thread_attachments`
//! says which threads use an attachment: a fork shares its parent's, and
//! deleting a thread deletes the attachments no other thread links.

mod files;
mod links;

use std::collections::HashSet;
use std::fmt;
use std::path::PathBuf;

use pizza_protocol::{
    ATTACHMENT_MAX_BYTES, AttachmentView, check_attachment_name, is_attachment_id,
};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::checkpoints::ensure_thread;
use crate::clock::new_id;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::text::{required, to_json};
use crate::transcript::AttachmentRef;

pub(crate) use links::{
    delete_unlinked_in, link_in, link_messages_in, linked_in, of_queued, share_in,
};

/// The longest type accepted.
const MIME_MAX_CHARS: usize = 255;

/// A stored attachment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    pub id: String,
    pub name: String,
    pub mime: String,
    pub size: u64,
    /// Hex SHA-256 of the bytes.
    pub sha256: String,
    pub created_at: i64,
    /// When a message first carried it; `None` while it waits in the composer.
    pub sent_at: Option<i64>,
}

impl Attachment {
    /// The attachment as the window shows it.
    pub fn view(&self) -> AttachmentView {
        self.reference().view()
    }

    /// What a message keeps of it.
    pub fn reference(&self) -> AttachmentRef {
        AttachmentRef {
            id: self.id.clone(),
            name: self.name.clone(),
            mime: self.mime.clone(),
            size: self.size,
        }
    }
}

/// An upload to store: see [`Store::add_attachment`].
#[derive(Clone, Copy)]
pub struct NewAttachment<'a> {
    /// The thread it is for; `None`: the turn that sends it names its thread.
    pub thread_id: Option<&'a str>,
    pub name: &'a str,
    /// The resolved type (`pizza_protocol::attachment_media_type`).
    pub mime: &'a str,
    pub bytes: &'a [u8],
}

// By hand: a derived Debug would print every byte.
impl fmt::Debug for NewAttachment<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewAttachment")
            .field("thread_id", &self.thread_id)
            .field("name", &self.name)
            .field("mime", &self.mime)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

const ATTACHMENT_COLUMNS: &str = "a.id, a.name, a.mime, a.size, a.sha256, a.created_at, a.sent_at";

fn attachment_from_row(row: &SqliteRow) -> Result<Attachment> {
    let size: i64 = row.try_get("size")?;
    Ok(Attachment {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        mime: row.try_get("mime")?,
        size: u64::try_from(size).map_err(|_| Error::Corrupt(format!("attachment size {size}")))?,
        sha256: row.try_get("sha256")?,
        created_at: row.try_get("created_at")?,
        sent_at: row.try_get("sent_at")?,
    })
}

/// The same bytes, already linked to `thread_id`.
async fn same_bytes_in(
    conn: &mut SqliteConnection,
    thread_id: &str,
    sha256: &str,
) -> Result<Option<Attachment>> {
    let sql = format!(
        "SELECT {ATTACHMENT_COLUMNS} FROM attachments a \
         JOIN thread_attachments l ON l.attachment_id = a.id \
         WHERE a.sha256 = ? AND l.thread_id = ? ORDER BY a.created_at, a.id LIMIT 1"
    );
    sqlx::query(&sql)
        .bind(sha256)
        .bind(thread_id)
        .fetch_optional(conn)
        .await?
        .as_ref()
        .map(attachment_from_row)
        .transpose()
}

/// What became of an upload's insert.
enum Inserted {
    New,
    /// The thread got the same bytes meanwhile.
    Existing(Attachment),
}

impl Store {
    /// The file of an id, or `None` when `id` is not an attachment id (so a
    /// reference or URL can never name another path).
    pub fn attachment_path(&self, id: &str) -> Option<PathBuf> {
        is_attachment_id(id).then(|| self.attachments_dir().join(id))
    }

    /// Stores an upload. Identical bytes in one thread are stored once: when
    /// `thread_id` already links the same bytes, that attachment is the
    /// answer. Otherwise the file is written whole (owner-only, synced)
    /// before its row and thread link are committed together; when that
    /// fails the file is removed. `NotFound` when the thread is missing,
    /// `InvalidInput` for a bad name, an empty type or too many bytes.
    pub async fn add_attachment(&self, new: NewAttachment<'_>) -> Result<Attachment> {
        check_attachment_name(new.name).map_err(Error::invalid)?;
        let mime = required("type", new.mime, MIME_MAX_CHARS)?;
        let size = u64::try_from(new.bytes.len()).unwrap_or(u64::MAX);
        if size > ATTACHMENT_MAX_BYTES {
            return Err(Error::invalid(format!(
                "the file is {size} bytes; the limit is {ATTACHMENT_MAX_BYTES}"
            )));
        }
        let dir = self.attachments_dir();
        // The blocking pool needs its own copy of the bytes.
        let bytes = new.bytes.to_vec();
        let (sha256, bytes) =
            files::blocking(&dir, move || Ok((files::sha256_hex(&bytes), bytes))).await?;
        if let Some(thread_id) = new.thread_id {
            let mut conn = self.reader().acquire().await?;
            ensure_thread(&mut conn, thread_id).await?;
            if let Some(existing) = same_bytes_in(&mut conn, thread_id, &sha256).await? {
                return Ok(existing);
            }
        }

        let attachment = Attachment {
            id: new_id(),
            name: new.name.to_owned(),
            mime,
            size,
            sha256,
            created_at: self.now(),
            sent_at: None,
        };
        let id = attachment.id.clone();
        let target = dir.join(&id);
        files::blocking(&target, move || files::write_new(&dir, &id, &bytes)).await?;
        match self.insert_attachment(&attachment, new.thread_id).await {
            Ok(Inserted::New) => Ok(attachment),
            Ok(Inserted::Existing(existing)) => {
                self.remove_attachment_files(std::slice::from_ref(&attachment.id))
                    .await;
                Ok(existing)
            }
            Err(e) => {
                self.remove_attachment_files(std::slice::from_ref(&attachment.id))
                    .await;
                Err(e)
            }
        }
    }

    async fn insert_attachment(
        &self,
        attachment: &Attachment,
        thread_id: Option<&str>,
    ) -> Result<Inserted> {
        let mut tx = self.write_tx().await?;
        if let Some(thread_id) = thread_id {
            // Checked again under the write lock: the thread may be gone, or
            // have the same bytes from an upload that raced this one.
            ensure_thread(&mut tx, thread_id).await?;
            if let Some(existing) = same_bytes_in(&mut tx, thread_id, &attachment.sha256).await? {
                return Ok(Inserted::Existing(existing));
            }
        }
        sqlx::query(
            "INSERT INTO attachments (id, name, mime, size, sha256, created_at, sent_at) \
             VALUES (?, ?, ?, ?, ?, ?, NULL)",
        )
        .bind(&attachment.id)
        .bind(&attachment.name)
        .bind(&attachment.mime)
        .bind(i64::try_from(attachment.size).unwrap_or(i64::MAX))
        .bind(&attachment.sha256)
        .bind(attachment.created_at)
        .execute(&mut *tx)
        .await?;
        if let Some(thread_id) = thread_id {
            sqlx::query("INSERT INTO thread_attachments (thread_id, attachment_id) VALUES (?, ?)")
                .bind(thread_id)
                .bind(&attachment.id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(Inserted::New)
    }

    /// One attachment's row; `NotFound` when there is none.
    pub async fn attachment(&self, id: &str) -> Result<Attachment> {
        let sql = format!("SELECT {ATTACHMENT_COLUMNS} FROM attachments a WHERE a.id = ?");
        sqlx::query(&sql)
            .bind(id)
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(attachment_from_row)
            .transpose()?
            .ok_or_else(|| Error::not_found("attachment", id))
    }

    /// The rows of `ids`, in the order given; `NotFound` naming the first
    /// id with none.
    pub async fn attachments_by_id(&self, ids: &[String]) -> Result<Vec<Attachment>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.reader().acquire().await?;
        links::lookup(&mut conn, ids)
            .await?
            .into_iter()
            .map(|(id, found)| found.ok_or_else(|| Error::not_found("attachment", id)))
            .collect()
    }

    /// An attachment's bytes; `NotFound` when its row or its file is gone.
    pub async fn read_attachment(&self, id: &str) -> Result<Vec<u8>> {
        let attachment = self.attachment(id).await?;
        let path = self
            .attachment_path(&attachment.id)
            .ok_or_else(|| Error::Corrupt(format!("attachment id {:?}", attachment.id)))?;
        match tokio::fs::read(&path).await {
            Ok(bytes) => Ok(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(Error::not_found("attachment", id))
            }
            Err(source) => Err(Error::AttachmentFile { path, source }),
        }
    }

    /// Deletes an attachment no message carries yet: its row, links and
    /// file. `Ok(false)` when it was sent: messages use it, so it stays.
    /// `NotFound` when there is no such attachment.
    pub async fn remove_unsent_attachment(&self, id: &str) -> Result<bool> {
        let mut tx = self.write_tx().await?;
        let sent: Option<Option<i64>> =
            sqlx::query_scalar("SELECT sent_at FROM attachments WHERE id = ?")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        match sent {
            None => return Err(Error::not_found("attachment", id)),
            Some(Some(_)) => return Ok(false),
            Some(None) => {}
        }
        sqlx::query("DELETE FROM attachments WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.remove_attachment_files(&[id.to_owned()]).await;
        Ok(true)
    }

    /// The attachments `thread_id` links, oldest first.
    pub async fn thread_attachments(&self, thread_id: &str) -> Result<Vec<Attachment>> {
        let sql = format!(
            "SELECT {ATTACHMENT_COLUMNS} FROM thread_attachments l \
             JOIN attachments a ON a.id = l.attachment_id \
             WHERE l.thread_id = ? ORDER BY a.created_at, a.id"
        );
        let rows = sqlx::query(&sql)
            .bind(thread_id)
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(attachment_from_row).collect()
    }

    /// Start-up cleanup: deletes the uploads never sent and created before
    /// `cutoff_ms` (rows and files) unless a queued message holds them, then
    /// every file in the folder with no row written before `cutoff_ms` too
    /// (strays, temp files of writes a crash cut short). Returns how many
    /// files went. An upload in flight (its file written, its row not yet)
    /// is newer than any sensible cutoff, so it is never taken for a stray.
    pub async fn sweep_attachments(&self, cutoff_ms: i64) -> Result<usize> {
        let mut tx = self.write_tx().await?;
        let expired: Vec<String> = sqlx::query_scalar(
            "DELETE FROM attachments WHERE sent_at IS NULL AND created_at < ? \
             AND id NOT IN (SELECT j.value FROM queued_messages q, json_each(q.attachments) j \
                            WHERE q.attachments IS NOT NULL) \
             RETURNING id",
        )
        .bind(cutoff_ms)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        if !expired.is_empty() {
            tracing::info!(count = expired.len(), "deleted unsent attachments");
        }
        let expired_files: Vec<PathBuf> = expired
            .iter()
            .filter_map(|id| self.attachment_path(id))
            .collect();
        let mut removed = remove_files(&self.attachments_dir(), expired_files).await;

        let dir = self.attachments_dir();
        let listed = {
            let dir = dir.clone();
            files::blocking(&dir.clone(), move || files::list_files(&dir, cutoff_ms)).await?
        };
        let named: Vec<String> = listed
            .iter()
            .filter_map(|path| path.file_name()?.to_str())
            .filter(|name| is_attachment_id(name))
            .map(str::to_owned)
            .collect();
        let kept: HashSet<String> = if named.is_empty() {
            HashSet::new()
        } else {
            sqlx::query_scalar(
                "SELECT id FROM attachments WHERE id IN (SELECT value FROM json_each(?))",
            )
            .bind(to_json(&named)?)
            .fetch_all(self.reader())
            .await?
            .into_iter()
            .collect()
        };
        let strays: Vec<PathBuf> = listed
            .into_iter()
            .filter(|path| {
                !path
                    .file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| kept.contains(name))
            })
            .collect();
        removed += remove_files(&dir, strays).await;
        Ok(removed)
    }

    /// Removes the files of deleted attachments. Called after the commit that
    /// deleted their rows: a failure only leaves a stray file for the next
    /// sweep, so it is logged, not returned.
    pub(crate) async fn remove_attachment_files(&self, ids: &[String]) {
        let paths: Vec<PathBuf> = ids
            .iter()
            .filter_map(|id| self.attachment_path(id))
            .collect();
        remove_files(&self.attachments_dir(), paths).await;
    }
}

/// Removes `paths`, logging each failure; returns how many went.
async fn remove_files(dir: &std::path::Path, paths: Vec<PathBuf>) -> usize {
    if paths.is_empty() {
        return 0;
    }
    let removed = files::blocking(dir, move || {
        let mut removed = 0;
        for path in &paths {
            match files::remove_if_present(path) {
                Ok(()) => removed += 1,
                Err(error) => tracing::warn!(
                    %error,
                    path = %path.display(),
                    "could not remove an attachment file"
                ),
            }
        }
        Ok(removed)
    })
    .await;
    removed.unwrap_or_else(|error| {
        tracing::warn!(%error, "could not remove attachment files");
        0
    })
}
