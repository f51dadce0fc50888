//! Model-call and catalog errors as the UI sees them.

use pizza_llm::ErrorKind;
use pizza_protocol::{ApiError, ErrorCode, ProviderStatus};
use pizza_providers::CatalogStatus;

pub(crate) fn llm_error(err: &pizza_llm::Error) -> ApiError {
    let code = match err.kind() {
        ErrorKind::AuthExpired => ErrorCode::AuthExpired,
        ErrorKind::RateLimit => ErrorCode::RateLimit,
        ErrorKind::ContextLength => ErrorCode::ContextLength,
        ErrorKind::Timeout => ErrorCode::Timeout,
        ErrorKind::ModelUnavailable => ErrorCode::ModelUnavailable,
        ErrorKind::StreamError => ErrorCode::StreamError,
        ErrorKind::Cancelled => ErrorCode::Cancelled,
        ErrorKind::InvalidInput => ErrorCode::InvalidInput,
        _ => ErrorCode::General,
    };
    // The llm crate's invalid-input text is "invalid input: <what>"; the
    // user only needs the what.
    let text = match err {
        pizza_llm::Error::InvalidInput { message } => message.clone(),
        other => other.to_string(),
    };
    let api = ApiError::new(code, sentence(&text)).retryable(err.retryable());
    match err.provider_message() {
        Some(details) if !details.is_empty() => api.with_details(details),
        _ => api,
    }
}

pub(crate) fn code_from_str(code: &str) -> ErrorCode {
    match code {
        "AUTH_EXPIRED" => ErrorCode::AuthExpired,
        "RATE_LIMIT" => ErrorCode::RateLimit,
        "CONTEXT_LENGTH" => ErrorCode::ContextLength,
        "TIMEOUT" => ErrorCode::Timeout,
        "MODEL_UNAVAILABLE" => ErrorCode::ModelUnavailable,
        "STREAM_ERROR" => ErrorCode::StreamError,
        "CANCELLED" => ErrorCode::Cancelled,
        "INVALID_INPUT" => ErrorCode::InvalidInput,
        _ => ErrorCode::General,
    }
}

/// What to tell the user about a failed model listing, by code.
fn listing_message(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::AuthExpired => "The provider rejected the credentials; check the API key.",
        ErrorCode::RateLimit => "The provider is rate limiting requests; try again shortly.",
        ErrorCode::Timeout => {
            "The provider did not answer in time; check the base URL and your connection."
        }
        ErrorCode::ModelUnavailable => "The provider's model list is not available.",
        ErrorCode::InvalidInput => "The provider refused the request; check its settings.",
        _ => "Could not load the provider's models; check the base URL and your connection.",
    }
}

pub(crate) fn catalog_status(status: &CatalogStatus) -> ProviderStatus {
    match status {
        CatalogStatus::Ready => ProviderStatus::Ready,
        CatalogStatus::Degraded { code, retryable } => {
            let code = code_from_str(code);
            ProviderStatus::Degraded {
                code,
                retryable: *retryable,
                message: format!(
                    "{} Showing the last list that loaded.",
                    listing_message(code)
                ),
            }
        }
        CatalogStatus::Error { code, retryable } => {
            let code = code_from_str(code);
            ProviderStatus::Error {
                code,
                retryable: *retryable,
                message: listing_message(code).to_owned(),
            }
        }
    }
}

pub(crate) fn error_status(err: &ApiError) -> ProviderStatus {
    ProviderStatus::Error {
        code: err.code,
        retryable: err.retryable,
        message: err.message.clone(),
    }
}

/// Our error texts are lower-case clauses; the UI shows sentences.
pub(crate) fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => return "The provider failed.".to_owned(),
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}
