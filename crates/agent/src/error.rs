//! The agent's one error enum and its mapping to the wire error.

use pizza_protocol::{ApiError, ErrorCode};

/// What the agent can fail with before or while driving a run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Store(#[from] pizza_store::Error),
    #[error(transparent)]
    Model(#[from] pizza_llm::Error),
    /// The request contradicts the thread's state (a decision for an
    /// interrupt that is gone or already answered, a message while a
    /// decision is pending).
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    InvalidInput(String),
    /// A stored row the agent wrote cannot be read back.
    #[error("stored run data is unreadable: {0}")]
    Corrupt(String),
}

impl Error {
    pub(crate) fn conflict(message: impl Into<String>) -> Self {
        Self::Conflict(message.into())
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidInput(message.into())
    }

    /// The error as the UI sees it; a model error keeps its code.
    pub fn to_api_error(&self) -> ApiError {
        match self {
            Self::Model(e) => model_api_error(e),
            Self::Store(e) => ApiError::new(e.code(), e.to_string()).retryable(e.is_retryable()),
            Self::Conflict(m) => ApiError::new(ErrorCode::Conflict, m.clone()),
            Self::InvalidInput(m) => ApiError::invalid_input(m.clone()),
            Self::Corrupt(m) => ApiError::general(format!("stored run data is unreadable: {m}")),
        }
    }
}

/// The wire code of a model error's kind.
pub(crate) fn model_code(kind: pizza_llm::ErrorKind) -> ErrorCode {
    use pizza_llm::ErrorKind as K;
    match kind {
        K::AuthExpired => ErrorCode::AuthExpired,
        K::RateLimit => ErrorCode::RateLimit,
        K::ContextLength => ErrorCode::ContextLength,
        K::Timeout => ErrorCode::Timeout,
        K::ModelUnavailable => ErrorCode::ModelUnavailable,
        K::StreamError => ErrorCode::StreamError,
        K::Cancelled => ErrorCode::Cancelled,
        K::InvalidInput => ErrorCode::InvalidInput,
        K::General => ErrorCode::General,
    }
}

/// The kind's code, our sentence, the provider's words as details.
pub(crate) fn model_api_error(e: &pizza_llm::Error) -> ApiError {
    let code = model_code(e.kind());
    let mut api = ApiError::new(code, e.to_string()).retryable(e.retryable());
    if let Some(details) = e.provider_message() {
        api = api.with_details(details);
    }
    api
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_errors_keep_their_code() {
        let e = Error::from(pizza_llm::Error::RateLimit {
            provider_message: "slow down".into(),
            retry_after: None,
        });
        let api = e.to_api_error();
        assert_eq!(api.code, ErrorCode::RateLimit);
        assert!(api.retryable);
        assert_eq!(api.details.as_deref(), Some("slow down"));
        let api = Error::from(pizza_llm::Error::stream("eof")).to_api_error();
        assert_eq!(api.code.as_str(), pizza_llm::Error::stream("eof").code());
    }

    #[test]
    fn every_model_error_kind_keeps_its_code_on_the_wire() {
        use pizza_llm::ErrorKind as K;
        for kind in [
            K::AuthExpired,
            K::RateLimit,
            K::ContextLength,
            K::Timeout,
            K::ModelUnavailable,
            K::StreamError,
            K::Cancelled,
            K::InvalidInput,
            K::General,
        ] {
            assert_eq!(model_code(kind).as_str(), kind.code());
        }
    }
}
