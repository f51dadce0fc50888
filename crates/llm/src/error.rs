//! Model-call errors and their stable codes.

use std::time::Duration;

/// The stable codes the UI matches on (DESIGN.md §7). Closed on purpose:
/// the agent maps each kind to the wire code by an exhaustive match, so a
/// new kind cannot reach the window unmapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    AuthExpired,
    RateLimit,
    ContextLength,
    Timeout,
    ModelUnavailable,
    StreamError,
    Cancelled,
    InvalidInput,
    General,
}

impl ErrorKind {
    pub fn code(self) -> &'static str {
        match self {
            Self::AuthExpired => "AUTH_EXPIRED",
            Self::RateLimit => "RATE_LIMIT",
            Self::ContextLength => "CONTEXT_LENGTH",
            Self::Timeout => "TIMEOUT",
            Self::ModelUnavailable => "MODEL_UNAVAILABLE",
            Self::StreamError => "STREAM_ERROR",
            Self::Cancelled => "CANCELLED",
            Self::InvalidInput => "INVALID_INPUT",
            Self::General => "GENERAL",
        }
    }
}

/// A failed model call. `provider_message` is the provider's own words, kept
/// for a details view; the `Display` text is ours.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("the provider rejected the credentials; check the API key")]
    AuthExpired { provider_message: String },
    #[error("the provider is rate limiting requests; try again shortly")]
    RateLimit {
        provider_message: String,
        retry_after: Option<Duration>,
    },
    #[error("the conversation is longer than the model's context window")]
    ContextLength { provider_message: String },
    #[error("the model did not answer in time ({message})")]
    Timeout { message: String },
    #[error("model `{model}` is not available from this provider")]
    ModelUnavailable {
        model: String,
        provider_message: String,
    },
    #[error("the model's response stream broke: {message}")]
    Stream { message: String },
    #[error("cancelled")]
    Cancelled,
    #[error("invalid input: {message}")]
    InvalidInput { message: String },
    #[error("the model call failed: {message}")]
    General {
        message: String,
        provider_message: Option<String>,
        retryable: bool,
    },
}

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::AuthExpired { .. } => ErrorKind::AuthExpired,
            Self::RateLimit { .. } => ErrorKind::RateLimit,
            Self::ContextLength { .. } => ErrorKind::ContextLength,
            Self::Timeout { .. } => ErrorKind::Timeout,
            Self::ModelUnavailable { .. } => ErrorKind::ModelUnavailable,
            Self::Stream { .. } => ErrorKind::StreamError,
            Self::Cancelled => ErrorKind::Cancelled,
            Self::InvalidInput { .. } => ErrorKind::InvalidInput,
            Self::General { .. } => ErrorKind::General,
        }
    }

    /// The stable code (`AUTH_EXPIRED`, ...).
    pub fn code(&self) -> &'static str {
        self.kind().code()
    }

    /// Whether trying the same call again later may succeed.
    pub fn retryable(&self) -> bool {
        match self {
            Self::RateLimit { .. } | Self::Timeout { .. } | Self::Stream { .. } => true,
            Self::General { retryable, .. } => *retryable,
            _ => false,
        }
    }

    /// The provider's own message, for a details view.
    pub fn provider_message(&self) -> Option<&str> {
        match self {
            Self::AuthExpired { provider_message }
            | Self::RateLimit {
                provider_message, ..
            }
            | Self::ContextLength { provider_message }
            | Self::ModelUnavailable {
                provider_message, ..
            } => Some(provider_message),
            Self::General {
                provider_message, ..
            } => provider_message.as_deref(),
            Self::Stream { message } | Self::Timeout { message } => Some(message),
            Self::Cancelled | Self::InvalidInput { .. } => None,
        }
    }

    pub fn stream(message: impl Into<String>) -> Self {
        Self::Stream {
            message: message.into(),
        }
    }

    pub fn general(message: impl Into<String>) -> Self {
        Self::General {
            message: message.into(),
            provider_message: None,
            retryable: false,
        }
    }

    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::InvalidInput {
            message: message.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
