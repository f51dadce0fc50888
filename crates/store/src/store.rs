use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Connection, Sqlite, SqliteConnection, Transaction};

use crate::clock::{Clock, SystemClock};
use crate::error::{Error, Result};
use crate::migrate::{MIGRATIONS, Migration, migrate};

/// The database file's name inside the data root.
pub const DB_FILE_NAME: &str = "pizza-bot.sqlite";
/// The folder inside the data root that holds attachments' bytes.
pub(crate) const ATTACHMENTS_DIR_NAME: &str = "attachments";

/// The oldest SQLite the store's SQL runs on (`RETURNING`). On Linux the
/// app uses the system's library, which a `.deb` requires by version; a
/// build run elsewhere finds out here, in words, at start.
pub(crate) const MIN_SQLITE: &str = "3.35.0";

/// Readers run beside the single writer thanks to WAL.
const READ_CONNECTIONS: u32 = 4;

/// How hard a commit waits for the disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Durability {
    /// `synchronous = FULL`: a commit that returned survives power loss, not only a
    /// crash. The app's setting.
    #[default]
    Full,
    /// `synchronous = NORMAL`: survives a process crash; the last commits may be lost
    /// on power loss. For bulk setup in benchmarks and tools.
    Normal,
}

/// Options for [`Store::open_with`].
#[derive(Debug, Clone)]
pub struct StoreOptions {
    pub clock: Arc<dyn Clock>,
    pub durability: Durability,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemClock),
            durability: Durability::Full,
        }
    }
}

/// The handle to the app database. Cheap to clone; all clones share the pools.
#[derive(Debug, Clone)]
pub struct Store {
    // One writer connection: in-process writes queue in the pool instead of
    // failing with SQLITE_BUSY, and transactions never need lock upgrades.
    writer: SqlitePool,
    reader: SqlitePool,
    clock: Arc<dyn Clock>,
    path: Arc<Path>,
    attachments: Arc<Path>,
}

impl Store {
    /// Opens (creating if needed) the database in `data_root` with the wall clock.
    pub async fn open(data_root: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(data_root, StoreOptions::default()).await
    }

    pub async fn open_with(data_root: impl AsRef<Path>, options: StoreOptions) -> Result<Self> {
        Self::open_with_migrations(data_root.as_ref(), options, MIGRATIONS).await
    }

    pub(crate) async fn open_with_migrations(
        data_root: &Path,
        options: StoreOptions,
        migrations: &[Migration],
    ) -> Result<Self> {
        let path = data_root.join(DB_FILE_NAME);
        prepare_file(data_root, &path)?;
        let connect = connect_options(&path, options.durability);

        let mut conn = SqliteConnection::connect_with(&connect).await?;
        let version: String = sqlx::query_scalar("SELECT sqlite_version()")
            .fetch_one(&mut conn)
            .await?;
        if !sqlite_supported(&version) {
            conn.close().await?;
            return Err(Error::OldSqlite {
                found: version,
                needed: MIN_SQLITE,
            });
        }
        let migrated = migrate(&mut conn, &path, migrations).await;
        conn.close().await?;
        migrated?;

        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(connect.clone())
            .await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(READ_CONNECTIONS)
            .connect_with(connect)
            .await?;
        Ok(Self {
            writer,
            reader,
            clock: options.clock,
            path: path.into(),
            attachments: data_root.join(ATTACHMENTS_DIR_NAME).into(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder of attachments' bytes: `attachments` beside the database file.
    pub fn attachments_dir(&self) -> PathBuf {
        self.attachments.to_path_buf()
    }

    /// Waits for in-flight work and closes every connection.
    pub async fn close(&self) {
        self.writer.close().await;
        self.reader.close().await;
    }

    /// Gives back what the idle connections hold for speed: their prepared
    /// statements and their page caches (`PRAGMA shrink_memory`), for when
    /// the app has settled. Connections in use are left alone. Each
    /// connection comes to hold its own copy of nearly every query the app
    /// makes (sqlx keeps 100) and up to 2 MB of pages: most of the 5 MB
    /// the app's process came to hold in use over 200 runs (glibc's
    /// `malloc_info`, heaptrack), which an idle app does not need; the
    /// next queries prepare their statements again, in tens of
    /// microseconds. Returns how many connections gave theirs back.
    pub async fn release_idle_memory(&self) -> Result<usize> {
        let mut released = 0;
        for pool in [&self.writer, &self.reader] {
            let mut idle = Vec::new();
            while let Some(conn) = pool.try_acquire() {
                idle.push(conn);
            }
            for conn in &mut idle {
                conn.clear_cached_statements().await?;
                // Not kept itself.
                sqlx::query("PRAGMA shrink_memory")
                    .persistent(false)
                    .execute(&mut **conn)
                    .await?;
                released += 1;
            }
        }
        Ok(released)
    }

    /// `PRAGMA integrity_check`; `Ok(())` when the database reports "ok".
    pub async fn integrity_check(&self) -> Result<()> {
        let rows: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check")
            .fetch_all(&self.reader)
            .await?;
        if rows.len() == 1 && rows[0] == "ok" {
            Ok(())
        } else {
            Err(Error::Corrupt(rows.join("; ")))
        }
    }

    pub(crate) fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    pub(crate) fn reader(&self) -> &SqlitePool {
        &self.reader
    }

    #[cfg(test)]
    pub(crate) fn writer(&self) -> &SqlitePool {
        &self.writer
    }

    pub(crate) async fn write_tx(&self) -> Result<Transaction<'static, Sqlite>> {
        Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
    }
}

/// Whether SQLite `version` ("3.40.1") is at least [`MIN_SQLITE`].
pub(crate) fn sqlite_supported(version: &str) -> bool {
    let parts = |text: &str| {
        let mut numbers = [0_u32; 3];
        for (number, part) in numbers.iter_mut().zip(text.split('.')) {
            *number = part.trim().parse().unwrap_or(0);
        }
        numbers
    };
    parts(version) >= parts(MIN_SQLITE)
}

fn connect_options(path: &Path, durability: Durability) -> SqliteConnectOptions {
    let synchronous = match durability {
        Durability::Full => SqliteSynchronous::Full,
        Durability::Normal => SqliteSynchronous::Normal,
    };
    SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(false)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(synchronous)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(5))
}

/// Creates the data root and an owner-only database file before SQLite touches it;
/// SQLite gives the -wal and -shm files the same mode as the database.
fn prepare_file(data_root: &Path, path: &PathBuf) -> Result<()> {
    let io = |source| Error::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(data_root).map_err(io)?;
    let mut open = std::fs::OpenOptions::new();
    open.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        open.mode(0o600);
        open.open(path).map_err(io)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io)?;
    }
    #[cfg(not(unix))]
    open.open(path).map_err(io)?;
    Ok(())
}
