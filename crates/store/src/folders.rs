//! User folders: a single-folder organisation layer over threads.

use serde::{Deserialize, Serialize};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::clock::new_id;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::text::{FOLDER_NAME_MAX_CHARS, required};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Folder {
    pub id: String,
    pub name: String,
    pub sort_order: i64,
    pub created_at: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FolderUpdate {
    pub name: Option<String>,
    pub sort_order: Option<i64>,
}

/// Validated name and its case-folded uniqueness key.
fn folder_name(name: &str) -> Result<(String, String)> {
    let name = required("folder name", name, FOLDER_NAME_MAX_CHARS)?;
    let key = name.to_lowercase();
    Ok((name, key))
}

fn folder_from_row(row: &SqliteRow) -> Result<Folder> {
    Ok(Folder {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        sort_order: row.try_get("sort_order")?,
        created_at: row.try_get("created_at")?,
    })
}

fn duplicate(name: &str) -> Error {
    Error::Conflict(format!("a folder named {name:?} already exists"))
}

pub(crate) async fn ensure_folder(conn: &mut SqliteConnection, id: &str) -> Result<()> {
    let found: Option<i64> = sqlx::query_scalar("SELECT 1 FROM folders WHERE id = ?")
        .bind(id)
        .fetch_optional(conn)
        .await?;
    found
        .map(|_| ())
        .ok_or_else(|| Error::not_found("folder", id))
}

impl Store {
    /// Creates a folder at the end of the list.
    pub async fn create_folder(&self, name: &str) -> Result<Folder> {
        let (name, key) = folder_name(name)?;
        let id = new_id();
        let mut tx = self.write_tx().await?;
        let inserted = sqlx::query(
            "INSERT INTO folders (id, name, name_key, sort_order, created_at) \
             VALUES (?, ?, ?, (SELECT COALESCE(MAX(sort_order), -1) + 1 FROM folders), ?)",
        )
        .bind(&id)
        .bind(&name)
        .bind(&key)
        .bind(self.now())
        .execute(&mut *tx)
        .await;
        match inserted {
            Err(e) => {
                let e = Error::from(e);
                return Err(match &e {
                    Error::Database(db) if db.is_unique_violation() => duplicate(&name),
                    _ => e,
                });
            }
            Ok(_) => tx.commit().await?,
        }
        self.folder(&id).await
    }

    pub async fn folder(&self, id: &str) -> Result<Folder> {
        let row = sqlx::query("SELECT id, name, sort_order, created_at FROM folders WHERE id = ?")
            .bind(id)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| Error::not_found("folder", id))?;
        folder_from_row(&row)
    }

    /// All folders by sort order, then name.
    pub async fn list_folders(&self) -> Result<Vec<Folder>> {
        let rows = sqlx::query(
            "SELECT id, name, sort_order, created_at FROM folders ORDER BY sort_order, name_key, id",
        )
        .fetch_all(self.reader())
        .await?;
        rows.iter().map(folder_from_row).collect()
    }

    pub async fn update_folder(&self, id: &str, update: FolderUpdate) -> Result<Folder> {
        let name = update.name.as_deref().map(folder_name).transpose()?;
        let mut tx = self.write_tx().await?;
        ensure_folder(&mut tx, id).await?;
        if let Some((name, key)) = &name {
            let renamed = sqlx::query("UPDATE folders SET name = ?, name_key = ? WHERE id = ?")
                .bind(name)
                .bind(key)
                .bind(id)
                .execute(&mut *tx)
                .await;
            if let Err(e) = renamed {
                let e = Error::from(e);
                return Err(match &e {
                    Error::Database(db) if db.is_unique_violation() => duplicate(name),
                    _ => e,
                });
            }
        }
        if let Some(order) = update.sort_order {
            sqlx::query("UPDATE folders SET sort_order = ? WHERE id = ?")
                .bind(order)
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        self.folder(id).await
    }

    /// Deletes the folder; its threads move back to no folder.
    pub async fn delete_folder(&self, id: &str) -> Result<()> {
        let mut tx = self.write_tx().await?;
        let done = sqlx::query("DELETE FROM folders WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(Error::not_found("folder", id));
        }
        tx.commit().await?;
        Ok(())
    }
}
