//! Imported threads: conversations from a file, written whole with the
//! times they had where they came from.
//!
//! Every thread of one import is inserted in one transaction, so a bad
//! conversation anywhere in the file leaves nothing behind. An imported
//! thread starts read, in no folder, with one checkpoint at its last message
//! (so its state, history, export and fork work as for any other thread).

use serde_json::Value;

use crate::attachments::{Attachment, link_messages_in};
use crate::checkpoints::{NewCheckpoint, insert_checkpoint, preview_of};
use crate::clock::new_id;
use crate::error::{Error, Result};
use crate::messages::{NewMessage, Role, insert_message};
use crate::store::Store;
use crate::text::{INTERIM_TITLE_MAX_CHARS, TITLE_MAX_CHARS, one_line, required, to_json};
use crate::threads::{Thread, ThreadSource};

/// One conversation to import.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedThread {
    /// Its title where it came from; `None`: listed under its first
    /// message until a run names it.
    pub title: Option<String>,
    pub created_at: i64,
    /// When it was last active where it came from; the list sorts by it.
    pub updated_at: i64,
    /// In order, each with the time it was written; at least one.
    pub messages: Vec<ImportedMessage>,
    /// Kept on the thread's checkpoint: where the thread came from.
    pub metadata: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ImportedMessage {
    pub message: NewMessage,
    pub created_at: i64,
}

impl Store {
    /// Inserts every thread, all or none, and answers them in the order
    /// given. `InvalidInput` (naming the conversation by its place) for a
    /// thread with no messages, a bad title or message, or a reference to an
    /// attachment that does not exist.
    pub async fn import_threads(&self, threads: Vec<ImportedThread>) -> Result<Vec<Thread>> {
        for (index, thread) in threads.iter().enumerate() {
            check(thread)
                .map_err(|e| Error::invalid(format!("conversation {}: {e}", index + 1)))?;
        }
        let now = self.now();
        let mut tx = self.write_tx().await?;
        let mut ids = Vec::with_capacity(threads.len());
        for (index, thread) in threads.into_iter().enumerate() {
            let id = insert(&mut tx, thread, now).await.map_err(|e| match e {
                Error::InvalidInput(message) => {
                    Error::invalid(format!("conversation {}: {message}", index + 1))
                }
                other => other,
            })?;
            ids.push(id);
        }
        tx.commit().await?;
        let mut imported = Vec::with_capacity(ids.len());
        for id in &ids {
            imported.push(self.thread(id).await?);
        }
        Ok(imported)
    }

    /// The attachments whose bytes have one of these SHA-256 hashes (hex),
    /// oldest first: an import finds the files an export named by hash.
    pub async fn attachments_with_sha256(&self, hashes: &[String]) -> Result<Vec<Attachment>> {
        if hashes.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<String> = sqlx::query_scalar(
            "SELECT id FROM attachments WHERE sha256 IN (SELECT value FROM json_each(?)) \
             ORDER BY created_at, id",
        )
        .bind(to_json(hashes)?)
        .fetch_all(self.reader())
        .await?;
        self.attachments_by_id(&ids).await
    }
}

/// What can be refused before the transaction starts.
fn check(thread: &ImportedThread) -> Result<()> {
    if thread.messages.is_empty() {
        return Err(Error::invalid("it has no messages"));
    }
    if let Some(title) = &thread.title {
        required("title", title, TITLE_MAX_CHARS)?;
    }
    thread
        .messages
        .iter()
        .try_for_each(|m| m.message.validate())
}

/// Inserts one thread with its messages and checkpoint; the caller commits.
async fn insert(
    tx: &mut sqlx::SqliteConnection,
    thread: ImportedThread,
    now: i64,
) -> Result<String> {
    let id = new_id();
    let (title, user_titled) = match &thread.title {
        Some(title) => (required("title", title, TITLE_MAX_CHARS)?, true),
        None => (
            thread
                .messages
                .iter()
                .filter(|m| m.message.role == Role::User)
                .map(|m| one_line(&m.message.text, INTERIM_TITLE_MAX_CHARS))
                .find(|t| !t.is_empty())
                .unwrap_or_default(),
            false,
        ),
    };
    sqlx::query(
        "INSERT INTO threads (id, title, user_titled, source, unread, created_at, \
         last_activity_at) VALUES (?, ?, ?, ?, 0, ?, ?)",
    )
    .bind(&id)
    .bind(&title)
    .bind(user_titled)
    .bind(ThreadSource::User.as_str())
    .bind(thread.created_at)
    .bind(thread.updated_at.max(thread.created_at))
    .execute(&mut *tx)
    .await?;

    let new: Vec<NewMessage> = thread.messages.iter().map(|m| m.message.clone()).collect();
    link_messages_in(&mut *tx, &id, &new, now).await?;
    let mut stored = Vec::with_capacity(thread.messages.len());
    for (seq, imported) in (1..).zip(thread.messages) {
        stored.push(
            insert_message(
                &mut *tx,
                &id,
                seq,
                new_id(),
                imported.message,
                imported.created_at,
            )
            .await?,
        );
    }
    let last_seq = stored.last().map_or(0, |m| m.seq);
    let checkpoint = insert_checkpoint(
        &mut *tx,
        NewCheckpoint {
            thread_id: &id,
            step: 1,
            parent_id: None,
            message_seq: last_seq,
            files_version: 0,
            interrupt: None,
            metadata: thread.metadata,
            created_at: now,
        },
    )
    .await?;
    sqlx::query(
        "UPDATE threads SET last_seq = ?, last_step = 1, head_checkpoint_id = ?, preview = ? \
         WHERE id = ?",
    )
    .bind(last_seq)
    .bind(&checkpoint.id)
    .bind(preview_of(stored.iter()).unwrap_or_default())
    .bind(&id)
    .execute(&mut *tx)
    .await?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Part;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    async fn open(dir: &tempfile::TempDir) -> Store {
        Store::open(dir.path()).await.unwrap()
    }

    fn message(role: Role, text: &str, at: i64) -> ImportedMessage {
        ImportedMessage {
            message: NewMessage::new(role, vec![Part::text(text)], text),
            created_at: at,
        }
    }

    fn thread(title: Option<&str>, messages: Vec<ImportedMessage>) -> ImportedThread {
        ImportedThread {
            title: title.map(str::to_owned),
            created_at: 1_000,
            updated_at: 5_000,
            messages,
            metadata: json!({"source": "import"}),
        }
    }

    #[tokio::test]
    async fn imports_keep_times_titles_and_are_searchable() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir).await;
        let imported = store
            .import_threads(vec![
                thread(
                    Some("Sourdough"),
                    vec![
                        message(Role::User, "How long does levain rise?", 1_000),
                        message(Role::Assistant, "About six hours.", 2_000),
                    ],
                ),
                thread(None, vec![message(Role::User, "Calzone folding", 3_000)]),
            ])
            .await
            .unwrap();
        assert_eq!(imported.len(), 2);
        let first = &imported[0];
        assert_eq!(
            (first.title.as_str(), first.user_titled, first.unread),
            ("Sourdough", true, false)
        );
        assert_eq!((first.created_at, first.last_activity_at), (1_000, 5_000));
        assert_eq!(
            (first.last_seq, first.preview.as_str()),
            (2, "About six hours.")
        );
        assert_eq!(
            (imported[1].title.as_str(), imported[1].user_titled),
            ("Calzone folding", false)
        );
        let state = store.state(&first.id, None).await.unwrap();
        assert_eq!(state.messages.len(), 2);
        assert_eq!(state.messages[1].created_at, 2_000);
        let hits = store.search("levain", 10).await.unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].thread_id, first.id);
    }

    #[tokio::test]
    async fn one_bad_conversation_imports_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir).await;
        let orphan = ImportedMessage {
            message: NewMessage::new(Role::Tool, vec![Part::text("x")], "x"),
            created_at: 1,
        };
        for bad in [
            thread(Some("Empty"), Vec::new()),
            thread(Some("Orphan"), vec![orphan]),
            thread(Some(" "), vec![message(Role::User, "hi", 1)]),
        ] {
            let good = thread(Some("Good"), vec![message(Role::User, "hello", 1)]);
            let err = store.import_threads(vec![good, bad]).await.unwrap_err();
            assert!(
                matches!(&err, Error::InvalidInput(m) if m.starts_with("conversation 2:")),
                "{err}"
            );
        }
        // An unknown attachment is only found inside the transaction.
        let missing = crate::AttachmentRef {
            id: new_id(),
            name: "a.png".into(),
            mime: "image/png".into(),
            size: 1,
        };
        let with_file = ImportedMessage {
            message: NewMessage::new(
                Role::User,
                vec![Part::Image {
                    attachment: missing,
                }],
                "a",
            ),
            created_at: 1,
        };
        let good = thread(Some("Good"), vec![message(Role::User, "hello", 1)]);
        let err = store
            .import_threads(vec![good, thread(Some("File"), vec![with_file])])
            .await
            .unwrap_err();
        assert!(matches!(&err, Error::InvalidInput(m) if m.starts_with("conversation 2:")));
        let counts = store
            .thread_counts(&crate::FolderFilter::Any)
            .await
            .unwrap();
        assert_eq!(counts.all, 0);
    }
}
