//! A small migration runner over SQL files embedded at build time.
//!
//! The schema version lives in `PRAGMA user_version`, which SQLite writes in the
//! same transaction as the DDL, so a failed upgrade leaves both untouched.

use std::path::Path;

use sqlx::{Connection, SqliteConnection};

use crate::error::{DatabaseError, Error, Result};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Migration {
    pub(crate) version: i64,
    pub(crate) name: &'static str,
    pub(crate) sql: &'static str,
}

/// Ordered by version, starting at 1 with no gaps.
pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "init",
        sql: include_str!("../migrations/0001_init.sql"),
    },
    Migration {
        version: 2,
        name: "grants",
        sql: include_str!("../migrations/0002_grants.sql"),
    },
    Migration {
        version: 3,
        name: "queue_resumable",
        sql: include_str!("../migrations/0003_queue_resumable.sql"),
    },
    Migration {
        version: 4,
        name: "transcript",
        sql: include_str!("../migrations/0004_transcript.sql"),
    },
    Migration {
        version: 5,
        name: "tool_allowances",
        sql: include_str!("../migrations/0005_tool_allowances.sql"),
    },
    Migration {
        version: 6,
        name: "triggers",
        sql: include_str!("../migrations/0006_triggers.sql"),
    },
    Migration {
        version: 7,
        name: "enablement",
        sql: include_str!("../migrations/0007_enablement.sql"),
    },
    Migration {
        version: 8,
        name: "tasks",
        sql: include_str!("../migrations/0008_tasks.sql"),
    },
    Migration {
        version: 9,
        name: "mcp_tool_reviews",
        sql: include_str!("../migrations/0009_mcp_tool_reviews.sql"),
    },
    Migration {
        version: 10,
        name: "attachments",
        sql: include_str!("../migrations/0010_attachments.sql"),
    },
    Migration {
        version: 11,
        name: "drafts",
        sql: include_str!("../migrations/0011_drafts.sql"),
    },
];

/// The schema version this build of the app writes.
pub const SCHEMA_VERSION: i64 = 11;

/// Brings the database to the newest schema in `migrations`, all pending steps in one
/// transaction. Refuses a database whose schema is newer than `migrations` knows.
pub(crate) async fn migrate(
    conn: &mut SqliteConnection,
    path: &Path,
    migrations: &[Migration],
) -> Result<()> {
    let supported = migrations.last().map_or(0, |m| m.version);
    let found = user_version(conn).await?;
    if found > supported {
        return Err(Error::NewerSchema {
            path: path.to_path_buf(),
            found,
            supported,
        });
    }
    let pending: Vec<&Migration> = migrations.iter().filter(|m| m.version > found).collect();
    if pending.is_empty() {
        return Ok(());
    }

    // IMMEDIATE: take the write lock up front so two openers cannot both upgrade.
    let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
    // Re-read under the lock: another process may have upgraded meanwhile.
    let found = user_version(&mut tx).await?;
    for m in pending.into_iter().filter(|m| m.version > found) {
        let applied = async {
            sqlx::raw_sql(m.sql).execute(&mut *tx).await?;
            // PRAGMA takes no bound parameters; the value is our own integer.
            sqlx::raw_sql(&format!("PRAGMA user_version = {}", m.version))
                .execute(&mut *tx)
                .await?;
            Ok::<_, sqlx::Error>(())
        }
        .await;
        if let Err(source) = applied {
            // Dropping `tx` would roll back too; doing it explicitly reports a failed rollback.
            tx.rollback().await?;
            return Err(Error::Migration {
                path: path.to_path_buf(),
                version: m.version,
                name: m.name,
                source: DatabaseError(source),
            });
        }
        tracing::info!(
            version = m.version,
            name = m.name,
            "applied store migration"
        );
    }
    tx.commit().await?;
    Ok(())
}

async fn user_version(conn: &mut SqliteConnection) -> Result<i64> {
    let v: i64 = sqlx::query_scalar("PRAGMA user_version")
        .fetch_one(conn)
        .await?;
    Ok(v)
}
