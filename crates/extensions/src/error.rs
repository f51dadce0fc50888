use std::io;
use std::path::PathBuf;

use pizza_protocol::ErrorCode;

/// What loading, saving or importing a skill or a plugin can refuse or fail with.
///
/// Bad input is always [`Error::Invalid`], whose message starts with the
/// field or file it is about (`name: …`, `tools[2]: …`,
/// `references/big.bin: …`), so the host can answer `INVALID_INPUT` with it
/// as it is. Nothing is written when a save or an import is refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },

    #[error("skill {0} was not found")]
    NotFound(String),

    /// No installed plugin of that name (a shipped one cannot be removed).
    #[error("plugin {0} was not found")]
    PluginNotFound(String),

    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// The crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The field or file bad input is about; `None` for other failures.
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::Invalid { field, .. } => Some(field),
            Self::NotFound(_) | Self::PluginNotFound(_) | Self::Io { .. } => None,
        }
    }

    /// The protocol code this failure reaches the user with.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Invalid { .. } => ErrorCode::InvalidInput,
            Self::NotFound(_) | Self::PluginNotFound(_) => ErrorCode::NotFound,
            Self::Io { .. } => ErrorCode::General,
        }
    }

    pub(crate) fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }

    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
