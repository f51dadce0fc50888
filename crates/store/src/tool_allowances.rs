//! "Allow for this thread": the tools whose calls in one thread run
//! without asking, kept until the thread is deleted or the approvals are
//! reset.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::store::Store;

/// Longest tool name kept, in characters.
const TOOL_NAME_MAX_CHARS: usize = 256;

impl Store {
    /// Lets `tool` run without asking in the thread. Allowing it twice is
    /// the same as once; `NotFound` for an unknown thread.
    pub async fn allow_tool_in_thread(&self, thread_id: &str, tool: &str) -> Result<()> {
        let len = tool.chars().count();
        if len == 0 || len > TOOL_NAME_MAX_CHARS {
            return Err(Error::invalid(format!(
                "a tool name must have 1 to {TOOL_NAME_MAX_CHARS} characters"
            )));
        }
        let mut tx = self.write_tx().await?;
        let exists: Option<String> = sqlx::query_scalar("SELECT id FROM threads WHERE id = ?")
            .bind(thread_id)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Err(Error::not_found("thread", thread_id));
        }
        sqlx::query(
            "INSERT INTO thread_tool_allowances (thread_id, tool, created_at) VALUES (?, ?, ?) \
             ON CONFLICT (thread_id, tool) DO NOTHING",
        )
        .bind(thread_id)
        .bind(tool)
        .bind(self.now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The tools allowed in the thread.
    pub async fn thread_tool_allowances(&self, thread_id: &str) -> Result<BTreeSet<String>> {
        let tools: Vec<String> = sqlx::query_scalar(
            "SELECT tool FROM thread_tool_allowances WHERE thread_id = ? ORDER BY tool",
        )
        .bind(thread_id)
        .fetch_all(self.reader())
        .await?;
        Ok(tools.into_iter().collect())
    }

    /// Forgets every thread's allowances (Settings › Approvals › Reset).
    pub async fn clear_tool_allowances(&self) -> Result<()> {
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM thread_tool_allowances")
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}
