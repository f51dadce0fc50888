//! Thread metadata: create, list by view, counts, get, update, delete.

use serde::{Deserialize, Serialize};
use sqlx::sqlite::SqliteRow;
use sqlx::{QueryBuilder, Row, Sqlite};

use crate::attachments;
use crate::clock::new_id;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::text::{TITLE_MAX_CHARS, clamp_limit, required};

/// The largest page `list_threads` returns.
pub const THREAD_PAGE_MAX: u32 = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadSource {
    User,
    Trigger,
    Fork,
}

impl ThreadSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Trigger => "trigger",
            Self::Fork => "fork",
        }
    }

    fn parse(s: &str) -> Result<Self> {
        match s {
            "user" => Ok(Self::User),
            "trigger" => Ok(Self::Trigger),
            "fork" => Ok(Self::Fork),
            other => Err(Error::Corrupt(format!("unknown thread source {other:?}"))),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thread {
    pub id: String,
    pub title: String,
    /// The user named this thread; automatic titles leave it alone.
    pub user_titled: bool,
    pub folder_id: Option<String>,
    pub pinned: bool,
    pub unread: bool,
    pub awaiting_action: bool,
    pub source: ThreadSource,
    pub model: Option<String>,
    pub parent_thread_id: Option<String>,
    pub parent_checkpoint_id: Option<String>,
    pub created_at: i64,
    pub last_activity_at: i64,
    /// The last user or assistant text, one line, at most 140 characters.
    pub preview: String,
    /// Seq of the last message (0 when there is none); also the message count.
    pub last_seq: i64,
    pub head_checkpoint_id: Option<String>,
}

/// What [`Store::create_thread`] needs. A given title counts as the user's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewThread {
    pub title: Option<String>,
    pub folder_id: Option<String>,
    /// `User` or `Trigger`; forks come from [`Store::fork`].
    pub source: Option<ThreadSource>,
    pub model: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadView {
    #[default]
    All,
    Unread,
    /// Threads awaiting the user's decision.
    Action,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum FolderFilter {
    #[default]
    Any,
    /// Threads in no folder (the Inbox).
    Unfiled,
    Folder(String),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadQuery {
    pub view: ThreadView,
    pub folder: FolderFilter,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// At most 200; 0 means 50.
    pub limit: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadPage {
    /// Newest activity first.
    pub threads: Vec<Thread>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewCounts {
    pub all: u64,
    pub unread: u64,
    pub action: u64,
}

/// A partial update; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadUpdate {
    /// A user's title: marks the thread as user-titled.
    pub title: Option<String>,
    pub pinned: Option<bool>,
    pub unread: Option<bool>,
    pub awaiting_action: Option<bool>,
    /// `Some(None)` moves the thread out of its folder.
    pub folder_id: Option<Option<String>>,
}

pub(crate) const THREAD_COLUMNS: &str = "id, title, user_titled, folder_id, pinned, unread, \
     awaiting_action, source, model, parent_thread_id, parent_checkpoint_id, created_at, \
     last_activity_at, preview, last_seq, head_checkpoint_id";

pub(crate) fn thread_from_row(row: &SqliteRow) -> Result<Thread> {
    Ok(Thread {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        user_titled: row.try_get("user_titled")?,
        folder_id: row.try_get("folder_id")?,
        pinned: row.try_get("pinned")?,
        unread: row.try_get("unread")?,
        awaiting_action: row.try_get("awaiting_action")?,
        source: ThreadSource::parse(row.try_get("source")?)?,
        model: row.try_get("model")?,
        parent_thread_id: row.try_get("parent_thread_id")?,
        parent_checkpoint_id: row.try_get("parent_checkpoint_id")?,
        created_at: row.try_get("created_at")?,
        last_activity_at: row.try_get("last_activity_at")?,
        preview: row.try_get("preview")?,
        last_seq: row.try_get("last_seq")?,
        head_checkpoint_id: row.try_get("head_checkpoint_id")?,
    })
}

pub(crate) fn encode_cursor(thread: &Thread) -> String {
    format!("{}:{}", thread.last_activity_at, thread.id)
}

fn decode_cursor(cursor: &str) -> Result<(i64, &str)> {
    cursor
        .split_once(':')
        .and_then(|(at, id)| Some((at.parse().ok()?, id)))
        .ok_or_else(|| Error::invalid("the thread list cursor is malformed"))
}

fn optional_model(model: Option<&str>) -> Result<Option<String>> {
    model.map(|m| required("model", m, 200)).transpose()
}

impl Store {
    pub async fn create_thread(&self, new: NewThread) -> Result<Thread> {
        let mut tx = self.write_tx().await?;
        let id = insert_thread(&mut tx, new, self.now()).await?;
        tx.commit().await?;
        self.thread(&id).await
    }

    pub async fn thread(&self, id: &str) -> Result<Thread> {
        let sql = format!("SELECT {THREAD_COLUMNS} FROM threads WHERE id = ?");
        let row = sqlx::query(&sql)
            .bind(id)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| Error::not_found("thread", id))?;
        thread_from_row(&row)
    }

    /// One page of threads, newest activity first (id breaks ties), by keyset cursor.
    pub async fn list_threads(&self, query: &ThreadQuery) -> Result<ThreadPage> {
        let limit = clamp_limit(query.limit, THREAD_PAGE_MAX);
        let after = query.cursor.as_deref().map(decode_cursor).transpose()?;
        let mut qb: QueryBuilder<'_, Sqlite> =
            QueryBuilder::new(format!("SELECT {THREAD_COLUMNS} FROM threads WHERE 1 = 1"));
        // Literal `= 1` so the planner can pick the partial indexes.
        match query.view {
            ThreadView::All => {}
            ThreadView::Unread => {
                qb.push(" AND unread = 1");
            }
            ThreadView::Action => {
                qb.push(" AND awaiting_action = 1");
            }
        }
        push_folder_filter(&mut qb, &query.folder);
        if let Some((at, id)) = after {
            qb.push(" AND (last_activity_at, id) < (")
                .push_bind(at)
                .push(", ")
                .push_bind(id.to_owned())
                .push(")");
        }
        qb.push(" ORDER BY last_activity_at DESC, id DESC LIMIT ")
            .push_bind(limit + 1);
        let rows = qb.build().fetch_all(self.reader()).await?;
        let mut threads = rows
            .iter()
            .map(thread_from_row)
            .collect::<Result<Vec<_>>>()?;
        let next_cursor = if threads.len() > usize::try_from(limit).unwrap_or(usize::MAX) {
            threads.pop();
            threads.last().map(encode_cursor)
        } else {
            None
        };
        Ok(ThreadPage {
            threads,
            next_cursor,
        })
    }

    /// Counts for All, Unread and Action in one pass over a covering index.
    pub async fn thread_counts(&self, folder: &FolderFilter) -> Result<ViewCounts> {
        let mut qb: QueryBuilder<'_, Sqlite> = QueryBuilder::new(
            "SELECT COUNT(*), COALESCE(SUM(unread), 0), COALESCE(SUM(awaiting_action), 0) \
             FROM threads WHERE 1 = 1",
        );
        push_folder_filter(&mut qb, folder);
        let row = qb.build().fetch_one(self.reader()).await?;
        let count = |i: usize| -> Result<u64> {
            let n: i64 = row.try_get(i)?;
            Ok(u64::try_from(n).unwrap_or(0))
        };
        Ok(ViewCounts {
            all: count(0)?,
            unread: count(1)?,
            action: count(2)?,
        })
    }

    pub async fn update_thread(&self, id: &str, update: ThreadUpdate) -> Result<Thread> {
        let title = update
            .title
            .as_deref()
            .map(|t| required("title", t, TITLE_MAX_CHARS))
            .transpose()?;
        let mut tx = self.write_tx().await?;
        if let Some(Some(folder)) = &update.folder_id {
            crate::folders::ensure_folder(&mut tx, folder).await?;
        }
        let mut qb: QueryBuilder<'_, Sqlite> = QueryBuilder::new("UPDATE threads SET id = id");
        if let Some(title) = title {
            qb.push(", title = ")
                .push_bind(title)
                .push(", user_titled = 1");
        }
        for (column, value) in [
            ("pinned", update.pinned),
            ("unread", update.unread),
            ("awaiting_action", update.awaiting_action),
        ] {
            if let Some(value) = value {
                qb.push(format!(", {column} = ")).push_bind(value);
            }
        }
        if let Some(folder) = update.folder_id {
            qb.push(", folder_id = ").push_bind(folder);
        }
        qb.push(" WHERE id = ").push_bind(id);
        let done = qb.build().execute(&mut *tx).await?;
        if done.rows_affected() == 0 {
            return Err(Error::not_found("thread", id));
        }
        tx.commit().await?;
        self.thread(id).await
    }

    /// Sets a generated title unless the user has named the thread. Returns whether it was set.
    pub async fn set_auto_title(&self, id: &str, title: &str) -> Result<bool> {
        let title = required("title", title, TITLE_MAX_CHARS)?;
        let mut tx = self.write_tx().await?;
        let user_titled: Option<bool> =
            sqlx::query_scalar("SELECT user_titled FROM threads WHERE id = ?")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        match user_titled {
            None => Err(Error::not_found("thread", id)),
            Some(true) => Ok(false),
            Some(false) => {
                sqlx::query("UPDATE threads SET title = ? WHERE id = ?")
                    .bind(title)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(true)
            }
        }
    }

    /// Deletes the thread with its messages, checkpoints, files and runs,
    /// and the attachments no other thread links (their files once the rows
    /// are gone). Its forks keep their copies, their attachments too, and
    /// lose the parent pointer.
    pub async fn delete_thread(&self, id: &str) -> Result<()> {
        let mut tx = self.write_tx().await?;
        let linked = attachments::linked_in(&mut tx, id).await?;
        let done = sqlx::query("DELETE FROM threads WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::not_found("thread", id));
        }
        let orphaned = attachments::delete_unlinked_in(&mut tx, &linked).await?;
        tx.commit().await?;
        self.remove_attachment_files(&orphaned).await;
        Ok(())
    }
}

fn push_folder_filter(qb: &mut QueryBuilder<'_, Sqlite>, folder: &FolderFilter) {
    match folder {
        FolderFilter::Any => {}
        FolderFilter::Unfiled => {
            qb.push(" AND folder_id IS NULL");
        }
        FolderFilter::Folder(id) => {
            qb.push(" AND folder_id = ").push_bind(id.clone());
        }
    }
}

/// Inserts a thread (validated as [`Store::create_thread`] says) and returns
/// its id; the caller commits.
pub(crate) async fn insert_thread(
    tx: &mut sqlx::SqliteConnection,
    new: NewThread,
    now: i64,
) -> Result<String> {
    let source = new.source.unwrap_or(ThreadSource::User);
    if source == ThreadSource::Fork {
        return Err(Error::invalid("forks are created by forking a thread"));
    }
    let title = new
        .title
        .as_deref()
        .map(|t| required("title", t, TITLE_MAX_CHARS))
        .transpose()?;
    let model = optional_model(new.model.as_deref())?;
    let id = new_id();
    if let Some(folder) = &new.folder_id {
        crate::folders::ensure_folder(&mut *tx, folder).await?;
    }
    sqlx::query(
        "INSERT INTO threads (id, title, user_titled, folder_id, source, model, created_at, \
         last_activity_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&id)
    .bind(title.as_deref().unwrap_or(""))
    .bind(title.is_some())
    .bind(&new.folder_id)
    .bind(source.as_str())
    .bind(&model)
    .bind(now)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    Ok(id)
}
