//! The composer's unsent text per thread and the prompts the person sent,
//! so both survive a restart.

use sqlx::Row;

use crate::error::{Error, Result};
use crate::store::Store;

/// A thread's unsent text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    pub thread_id: String,
    pub text: String,
    pub updated_at: i64,
}

impl Store {
    /// Every thread's draft, the newest first.
    pub async fn drafts(&self) -> Result<Vec<Draft>> {
        let rows = sqlx::query(
            "SELECT thread_id, text, updated_at FROM drafts ORDER BY updated_at DESC, thread_id",
        )
        .fetch_all(self.reader())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(Draft {
                    thread_id: row.try_get("thread_id")?,
                    text: row.try_get("text")?,
                    updated_at: row.try_get("updated_at")?,
                })
            })
            .collect()
    }

    /// Keeps `text` as the thread's draft; an empty text clears it. A thread
    /// that is gone is `NotFound` and nothing is kept.
    pub async fn save_draft(&self, thread_id: &str, text: &str) -> Result<()> {
        let mut tx = self.write_tx().await?;
        let exists: Option<i64> = sqlx::query_scalar("SELECT 1 FROM threads WHERE id = ?")
            .bind(thread_id)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Err(Error::not_found("thread", thread_id));
        }
        if text.is_empty() {
            sqlx::query("DELETE FROM drafts WHERE thread_id = ?")
                .bind(thread_id)
                .execute(&mut *tx)
                .await?;
        } else {
            sqlx::query(
                "INSERT INTO drafts (thread_id, text, updated_at) VALUES (?, ?, ?) \
                 ON CONFLICT (thread_id) DO UPDATE SET text = excluded.text, \
                 updated_at = excluded.updated_at",
            )
            .bind(thread_id)
            .bind(text)
            .bind(self.now())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The prompts sent, oldest first.
    pub async fn prompt_history(&self) -> Result<Vec<String>> {
        let texts = sqlx::query_scalar("SELECT text FROM prompt_history ORDER BY id")
            .fetch_all(self.reader())
            .await?;
        Ok(texts)
    }

    /// Adds a sent prompt and forgets all but the newest `keep`. The same
    /// text as the newest is not added twice; an empty one is ignored.
    pub async fn add_prompt(&self, text: &str, keep: usize) -> Result<()> {
        if text.trim().is_empty() {
            return Ok(());
        }
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        let mut tx = self.write_tx().await?;
        let newest: Option<String> =
            sqlx::query_scalar("SELECT text FROM prompt_history ORDER BY id DESC LIMIT 1")
                .fetch_optional(&mut *tx)
                .await?;
        if newest.as_deref() != Some(text) {
            sqlx::query("INSERT INTO prompt_history (text, created_at) VALUES (?, ?)")
                .bind(text)
                .bind(self.now())
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(
            "DELETE FROM prompt_history WHERE id NOT IN \
             (SELECT id FROM prompt_history ORDER BY id DESC LIMIT ?)",
        )
        .bind(keep)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use crate::threads::NewThread;
    use crate::{Error, Store};

    async fn open(dir: &tempfile::TempDir) -> Store {
        Store::open(dir.path()).await.unwrap()
    }

    #[tokio::test]
    async fn drafts_survive_reopening_and_go_with_their_thread() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir).await;
        let a = store.create_thread(NewThread::default()).await.unwrap();
        let b = store.create_thread(NewThread::default()).await.unwrap();
        store.save_draft(&a.id, "half a thought").await.unwrap();
        store.save_draft(&b.id, "first").await.unwrap();
        store.save_draft(&b.id, "second\nline").await.unwrap();
        assert!(matches!(
            store.save_draft("gone", "x").await,
            Err(Error::NotFound { .. })
        ));
        store.close().await;

        let store = open(&dir).await;
        let mut drafts: Vec<(String, String)> = store
            .drafts()
            .await
            .unwrap()
            .into_iter()
            .map(|d| (d.thread_id, d.text))
            .collect();
        drafts.sort();
        let mut expected = vec![
            (a.id.clone(), "half a thought".to_owned()),
            (b.id.clone(), "second\nline".to_owned()),
        ];
        expected.sort();
        assert_eq!(drafts, expected);

        store.save_draft(&a.id, "").await.unwrap();
        store.delete_thread(&b.id).await.unwrap();
        assert!(store.drafts().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn prompt_history_keeps_the_newest_without_repeats() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir).await;
        for text in ["one", "two", "two", "  ", "three", "four"] {
            store.add_prompt(text, 3).await.unwrap();
        }
        assert_eq!(
            store.prompt_history().await.unwrap(),
            ["two", "three", "four"]
        );
    }
}
