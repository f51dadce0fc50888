//! MCP tool definitions as the person last reviewed them, for drift.

use sqlx::Row;

use crate::error::Result;
use crate::store::Store;

/// One reviewed definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpToolReview {
    pub server: String,
    pub tool: String,
    /// The definition's hash when reviewed.
    pub hash: String,
    /// The definition (JSON) when reviewed: what a later change is diffed against.
    pub definition: String,
    pub reviewed_at: i64,
}

impl Store {
    /// Records these definitions as reviewed, replacing earlier reviews.
    pub async fn set_mcp_tool_reviews(
        &self,
        reviews: &[(String, String, String, String)],
    ) -> Result<()> {
        if reviews.is_empty() {
            return Ok(());
        }
        let now = self.now();
        let mut tx = self.write_tx().await?;
        for (server, tool, hash, definition) in reviews {
            sqlx::query(
                "INSERT INTO mcp_tool_reviews (server, tool, hash, definition, reviewed_at) \
                 VALUES (?, ?, ?, ?, ?) ON CONFLICT (server, tool) DO UPDATE SET \
                 hash = excluded.hash, definition = excluded.definition, \
                 reviewed_at = excluded.reviewed_at",
            )
            .bind(server)
            .bind(tool)
            .bind(hash)
            .bind(definition)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Forgets a server's reviews (it was deleted: one added later under the
    /// same id starts fresh).
    pub async fn clear_mcp_tool_reviews(&self, server: &str) -> Result<()> {
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM mcp_tool_reviews WHERE server = ?")
            .bind(server)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Every review, by server then tool.
    pub async fn mcp_tool_reviews(&self) -> Result<Vec<McpToolReview>> {
        let rows = sqlx::query(
            "SELECT server, tool, hash, definition, reviewed_at FROM mcp_tool_reviews \
             ORDER BY server, tool",
        )
        .fetch_all(self.reader())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(McpToolReview {
                    server: row.try_get("server")?,
                    tool: row.try_get("tool")?,
                    hash: row.try_get("hash")?,
                    definition: row.try_get("definition")?,
                    reviewed_at: row.try_get("reviewed_at")?,
                })
            })
            .collect()
    }
}
