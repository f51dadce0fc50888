//! The enablement overlay: which skills (and, later, MCP servers and
//! plugins) the person switched on or off, keyed (kind, source, id). A
//! resource without a row is enabled; shipped files are never modified.

use sqlx::Row;

use crate::error::{Error, Result};
use crate::store::Store;

/// Longest kind kept, in characters (`skill`, `mcp_server`, …).
pub const ENABLEMENT_KIND_MAX_CHARS: usize = 64;
/// Longest source identity or id kept, in characters.
pub const ENABLEMENT_ID_MAX_CHARS: usize = 256;

/// One switch of the overlay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enablement {
    /// What kind of resource: `skill`, later `mcp_server` or `plugin`.
    pub kind: String,
    /// Where it comes from: `builtin`, `user`, `plugin:<id>`.
    pub source: String,
    /// Its id within that source (a skill's name).
    pub id: String,
    pub enabled: bool,
    pub updated_at: i64,
}

fn check(field: &str, value: &str, max: usize) -> Result<()> {
    let len = value.chars().count();
    if len == 0 || len > max {
        return Err(Error::invalid(format!(
            "{field}: must have 1 to {max} characters"
        )));
    }
    Ok(())
}

impl Store {
    /// Switches one resource on or off. Setting the same value again only
    /// moves `updated_at`.
    pub async fn set_enablement(
        &self,
        kind: &str,
        source: &str,
        id: &str,
        enabled: bool,
    ) -> Result<Enablement> {
        check("kind", kind, ENABLEMENT_KIND_MAX_CHARS)?;
        check("source", source, ENABLEMENT_ID_MAX_CHARS)?;
        check("id", id, ENABLEMENT_ID_MAX_CHARS)?;
        let now = self.now();
        let mut tx = self.write_tx().await?;
        sqlx::query(
            "INSERT INTO enablement (kind, source, id, enabled, updated_at) VALUES (?, ?, ?, ?, ?) \
             ON CONFLICT (kind, source, id) DO UPDATE SET enabled = excluded.enabled, \
             updated_at = excluded.updated_at",
        )
        .bind(kind)
        .bind(source)
        .bind(id)
        .bind(enabled)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Enablement {
            kind: kind.to_owned(),
            source: source.to_owned(),
            id: id.to_owned(),
            enabled,
            updated_at: now,
        })
    }

    /// Forgets one switch (the resource is enabled again), e.g. when a user
    /// skill is deleted so a later one of that name starts fresh. True when
    /// there was one.
    pub async fn clear_enablement(&self, kind: &str, source: &str, id: &str) -> Result<bool> {
        let mut tx = self.write_tx().await?;
        let done = sqlx::query("DELETE FROM enablement WHERE kind = ? AND source = ? AND id = ?")
            .bind(kind)
            .bind(source)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    }

    /// Every switch of one kind, by source then id.
    pub async fn enablement(&self, kind: &str) -> Result<Vec<Enablement>> {
        let rows = sqlx::query(
            "SELECT kind, source, id, enabled, updated_at FROM enablement WHERE kind = ? \
             ORDER BY source, id",
        )
        .bind(kind)
        .fetch_all(self.reader())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(Enablement {
                    kind: row.try_get("kind")?,
                    source: row.try_get("source")?,
                    id: row.try_get("id")?,
                    enabled: row.try_get("enabled")?,
                    updated_at: row.try_get("updated_at")?,
                })
            })
            .collect()
    }
}
