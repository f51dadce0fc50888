//! Folder grants: host folders the agent may use, read-only unless a grant
//! allows writes. The store keeps the rows; which grants may coexist (overlap
//! rules, the data root) is decided before a row gets here.

use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use crate::error::{Error, Result};
use crate::store::Store;

/// Longest grant id, in characters.
pub const GRANT_ID_MAX_CHARS: usize = 48;
/// Longest granted path, in characters.
pub const GRANT_PATH_MAX_CHARS: usize = 4_096;

/// One granted folder as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub id: String,
    /// The canonical absolute host path.
    pub path: String,
    /// Whether the agent may create and change files there.
    pub writable: bool,
    pub created_at: i64,
}

fn access(writable: bool) -> &'static str {
    if writable { "read_write" } else { "read_only" }
}

fn grant_from_row(row: &SqliteRow) -> Result<Grant> {
    let access: String = row.try_get("access")?;
    Ok(Grant {
        id: row.try_get("id")?,
        path: row.try_get("path")?,
        writable: match access.as_str() {
            "read_write" => true,
            "read_only" => false,
            other => return Err(Error::Corrupt(format!("grant access {other:?}"))),
        },
        created_at: row.try_get("created_at")?,
    })
}

fn check_lengths(id: &str, path: &str) -> Result<()> {
    let id_len = id.chars().count();
    if id_len == 0 || id_len > GRANT_ID_MAX_CHARS {
        return Err(Error::invalid(format!(
            "a grant id must have 1 to {GRANT_ID_MAX_CHARS} characters"
        )));
    }
    let path_len = path.chars().count();
    if path_len == 0 || path_len > GRANT_PATH_MAX_CHARS {
        return Err(Error::invalid(format!(
            "a granted path must have 1 to {GRANT_PATH_MAX_CHARS} characters"
        )));
    }
    Ok(())
}

const COLUMNS: &str = "id, path, access, created_at";

impl Store {
    /// Every grant, by id.
    pub async fn list_grants(&self) -> Result<Vec<Grant>> {
        let rows = sqlx::query(&format!("SELECT {COLUMNS} FROM grants ORDER BY id"))
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(grant_from_row).collect()
    }

    pub async fn grant(&self, id: &str) -> Result<Grant> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM grants WHERE id = ?"))
            .bind(id)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| Error::not_found("grant", id))?;
        grant_from_row(&row)
    }

    /// Adds a grant. `Conflict` when the id or the path is already granted.
    pub async fn add_grant(&self, id: &str, path: &str, writable: bool) -> Result<Grant> {
        check_lengths(id, path)?;
        let mut tx = self.write_tx().await?;
        let taken: Option<String> =
            sqlx::query_scalar("SELECT id FROM grants WHERE id = ? OR path = ?")
                .bind(id)
                .bind(path)
                .fetch_optional(&mut *tx)
                .await?;
        if let Some(taken) = taken {
            return Err(Error::Conflict(if taken == id {
                format!("a grant named {id:?} already exists")
            } else {
                format!("{path} is already granted as {taken:?}")
            }));
        }
        sqlx::query("INSERT INTO grants (id, path, access, created_at) VALUES (?, ?, ?, ?)")
            .bind(id)
            .bind(path)
            .bind(access(writable))
            .bind(self.now())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.grant(id).await
    }

    /// Changes whether the grant allows writes.
    pub async fn set_grant_writable(&self, id: &str, writable: bool) -> Result<Grant> {
        let mut tx = self.write_tx().await?;
        let done = sqlx::query("UPDATE grants SET access = ? WHERE id = ?")
            .bind(access(writable))
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::not_found("grant", id));
        }
        tx.commit().await?;
        self.grant(id).await
    }

    pub async fn delete_grant(&self, id: &str) -> Result<()> {
        let mut tx = self.write_tx().await?;
        let done = sqlx::query("DELETE FROM grants WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::not_found("grant", id));
        }
        tx.commit().await?;
        Ok(())
    }
}
