//! What a tool call can fail with. Every variant becomes an error result the
//! model reads, so the messages are written for the model to act on.

/// A failed tool call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments do not match the tool's schema.
    #[error("invalid arguments for `{tool}`: {message}")]
    InvalidArguments { tool: String, message: String },
    /// No tool by that name is registered.
    #[error("unknown tool `{name}`; available tools: {available}")]
    UnknownTool { name: String, available: String },
    /// A path the filesystem refuses (relative, `..`, NUL, ...).
    #[error("invalid path {path:?}: {reason}")]
    InvalidPath { path: String, reason: String },
    #[error("{path}: no such file or directory")]
    NotFound { path: String },
    #[error("{path}: permission denied: {reason}")]
    PermissionDenied { path: String, reason: String },
    /// A file that is not UTF-8 text.
    #[error("{path} is a binary file (not UTF-8 text); only text files can be read")]
    Binary { path: String },
    #[error("cancelled")]
    Cancelled,
    /// Anything else; the message says what to do.
    #[error("{0}")]
    Failed(String),
}

impl ToolError {
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed(message.into())
    }

    pub fn invalid_arguments(tool: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidArguments {
            tool: tool.into(),
            message: message.into(),
        }
    }
}

pub type Result<T, E = ToolError> = std::result::Result<T, E>;
