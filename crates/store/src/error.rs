use std::path::PathBuf;

use pizza_protocol::ErrorCode;

/// Everything the store can refuse or fail with.
///
/// [`Error::code`] is the one map to protocol error codes; every crate that
/// reports a store failure uses it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("{what} {id} was not found")]
    NotFound { what: &'static str, id: String },

    #[error("{0}")]
    Conflict(String),

    #[error("{0}")]
    InvalidInput(String),

    #[error(
        "the database at {path} has schema version {found}, newer than this app supports \
         ({supported}); update Pizza Bot to open it"
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    #[error(
        "this system's SQLite is {found}; Pizza Bot needs {needed} or newer \
         (install a newer libsqlite3)"
    )]
    OldSqlite { found: String, needed: &'static str },

    #[error("migration {version} ({name}) failed on {path}; nothing was changed: {source}")]
    Migration {
        path: PathBuf,
        version: i64,
        name: &'static str,
        #[source]
        source: DatabaseError,
    },

    #[error("cannot prepare the database file {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("cannot read or write the attachment file {path}: {source}")]
    AttachmentFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("stored data is corrupt: {0}")]
    Corrupt(String),

    #[error("database error: {0}")]
    Database(#[from] DatabaseError),
}

impl Error {
    /// True when trying again later may succeed (the database was busy or locked).
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Database(e) => e.is_busy(),
            _ => false,
        }
    }

    /// The protocol code this failure reaches the user with: a busy database
    /// is `RESOURCE_IN_USE` (and [retryable](Self::is_retryable)), a schema
    /// from a newer app `CONFLICT`, damage or I/O `GENERAL`.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::NotFound { .. } => ErrorCode::NotFound,
            Self::Conflict(_) | Self::NewerSchema { .. } => ErrorCode::Conflict,
            Self::InvalidInput(_) => ErrorCode::InvalidInput,
            Self::Database(e) if e.is_busy() => ErrorCode::ResourceInUse,
            Self::Migration { .. }
            | Self::OldSqlite { .. }
            | Self::Io { .. }
            | Self::AttachmentFile { .. }
            | Self::Corrupt(_)
            | Self::Database(_) => ErrorCode::General,
        }
    }

    pub(crate) fn not_found(what: &'static str, id: impl Into<String>) -> Self {
        Self::NotFound {
            what,
            id: id.into(),
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidInput(message.into())
    }
}

impl From<sqlx::Error> for Error {
    fn from(e: sqlx::Error) -> Self {
        Self::Database(DatabaseError(e))
    }
}

/// An error from SQLite, kept opaque so sqlx stays this crate's own dependency.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct DatabaseError(pub(crate) sqlx::Error);

impl DatabaseError {
    fn is_busy(&self) -> bool {
        match &self.0 {
            sqlx::Error::Database(db) => {
                // SQLITE_BUSY (5) and SQLITE_LOCKED (6), including extended codes.
                db.code()
                    .and_then(|c| c.parse::<i64>().ok())
                    .is_some_and(|c| matches!(c & 0xff, 5 | 6))
            }
            sqlx::Error::PoolTimedOut => true,
            _ => false,
        }
    }

    /// True for a UNIQUE or PRIMARY KEY violation.
    pub(crate) fn is_unique_violation(&self) -> bool {
        matches!(&self.0, sqlx::Error::Database(db) if db.is_unique_violation())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
