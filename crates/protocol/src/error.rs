//! The one error type that crosses the IPC boundary.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Stable error codes. The UI decides what to show from the code, never from
/// the message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ErrorCode {
    AuthExpired,
    RateLimit,
    ContextLength,
    Timeout,
    ModelUnavailable,
    StreamError,
    Cancelled,
    NotFound,
    InvalidInput,
    Conflict,
    DependencyDisabled,
    ResourceInUse,
    PermissionDenied,
    General,
}

impl ErrorCode {
    /// The wire spelling, e.g. `INVALID_INPUT`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AuthExpired => "AUTH_EXPIRED",
            Self::RateLimit => "RATE_LIMIT",
            Self::ContextLength => "CONTEXT_LENGTH",
            Self::Timeout => "TIMEOUT",
            Self::ModelUnavailable => "MODEL_UNAVAILABLE",
            Self::StreamError => "STREAM_ERROR",
            Self::Cancelled => "CANCELLED",
            Self::NotFound => "NOT_FOUND",
            Self::InvalidInput => "INVALID_INPUT",
            Self::Conflict => "CONFLICT",
            Self::DependencyDisabled => "DEPENDENCY_DISABLED",
            Self::ResourceInUse => "RESOURCE_IN_USE",
            Self::PermissionDenied => "PERMISSION_DENIED",
            Self::General => "GENERAL",
        }
    }

    /// Whether trying the same thing again later can succeed.
    pub fn default_retryable(self) -> bool {
        matches!(
            self,
            Self::RateLimit | Self::Timeout | Self::StreamError | Self::ResourceInUse
        )
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A finer reason beside the code, for the few refusals a client answers
/// with a specific action (never parsed from the message).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorReason {
    /// A folder grant overlaps the app's data folder: ask the user, then
    /// repeat the call with `acknowledge_data_root`.
    OverlapsDataRoot,
    /// The thread waits for a decision on a tool call: answer it first (or
    /// queue the message; it sends after the decision).
    AwaitingDecision,
}

/// A failure as the UI sees it: a stable code, a sentence that says what to
/// do, and whether retrying can help.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub retryable: bool,
    /// The underlying cause (e.g. a provider's own message) for a details view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<ErrorReason>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            retryable: code.default_retryable(),
            details: None,
            reason: None,
        }
    }

    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    pub fn general(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::General, message)
    }

    #[must_use]
    pub fn with_details(mut self, details: impl Into<String>) -> Self {
        self.details = Some(details.into());
        self
    }

    #[must_use]
    pub fn with_reason(mut self, reason: ErrorReason) -> Self {
        self.reason = Some(reason);
        self
    }

    #[must_use]
    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn wire_shape_is_stable() {
        let err = ApiError::invalid_input("Name is empty.");
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            serde_json::json!({"code": "INVALID_INPUT", "message": "Name is empty.", "retryable": false})
        );
        let back: ApiError = serde_json::from_value(serde_json::to_value(&err).unwrap()).unwrap();
        assert_eq!(back, err);

        let overlap = ApiError::new(ErrorCode::Conflict, "Overlaps the data folder.")
            .with_reason(ErrorReason::OverlapsDataRoot);
        assert_eq!(
            serde_json::to_value(&overlap).unwrap()["reason"],
            serde_json::json!("overlaps_data_root")
        );
    }

    #[test]
    fn as_str_matches_serde() {
        for code in [
            ErrorCode::AuthExpired,
            ErrorCode::RateLimit,
            ErrorCode::ContextLength,
            ErrorCode::Timeout,
            ErrorCode::ModelUnavailable,
            ErrorCode::StreamError,
            ErrorCode::Cancelled,
            ErrorCode::NotFound,
            ErrorCode::InvalidInput,
            ErrorCode::Conflict,
            ErrorCode::DependencyDisabled,
            ErrorCode::ResourceInUse,
            ErrorCode::PermissionDenied,
            ErrorCode::General,
        ] {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        }
    }
}
