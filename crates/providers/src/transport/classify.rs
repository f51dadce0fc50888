//! Provider failures → stable error codes. Patterns cover every provider's
//! wording, so one classifier serves all wire formats.

use std::time::Duration;

use pizza_llm::Error;
use serde_json::Value;

/// Phrases providers use for "the prompt is too long".
const CONTEXT_PATTERNS: &[&str] = &[
    "context_length_exceeded",
    "context length",
    "context window",
    "prompt is too long",
    "input is too long",
    "too many tokens",
    "maximum context",
    "exceeds the maximum number of tokens",
    "input token count",
    "string_above_max_length",
];

const MODEL_PATTERNS: &[&str] = &[
    "model_not_found",
    "not_found_error",
    "unknown model",
    "no such model",
    "model not found",
    "is not found",
    "does not exist",
    "not supported for generatecontent",
    "invalid model",
];

/// The provider's message out of its error body (JSON shapes of all
/// providers, else the raw text).
pub(crate) fn provider_message(body: &str) -> String {
    let Ok(json) = serde_json::from_str::<Value>(body) else {
        return body.trim().to_owned();
    };
    let error = json.get("error").unwrap_or(&json);
    // Gemini wraps errors in arrays.
    let error = error.get(0).unwrap_or(error);
    let message = error
        .get("message")
        .or_else(|| error.get("Message"))
        .and_then(Value::as_str)
        .or_else(|| error.as_str());
    match message {
        Some(message) => {
            let kind = error
                .get("type")
                .or_else(|| error.get("code"))
                .or_else(|| error.get("status"))
                .and_then(Value::as_str);
            match kind {
                Some(kind) => format!("{kind}: {message}"),
                None => message.to_owned(),
            }
        }
        None => body.trim().to_owned(),
    }
}

/// An HTTP error status and body.
pub fn classify_status(
    status: u16,
    body: &str,
    model: &str,
    retry_after: Option<Duration>,
) -> Error {
    let message = provider_message(body);
    let lower = message.to_ascii_lowercase();
    match status {
        401 | 403 => Error::AuthExpired {
            provider_message: message,
        },
        429 | 529 => Error::RateLimit {
            provider_message: message,
            retry_after,
        },
        _ if CONTEXT_PATTERNS.iter().any(|p| lower.contains(p)) => Error::ContextLength {
            provider_message: message,
        },
        404 if lower.contains("model") || model_missing(&lower) => Error::ModelUnavailable {
            model: model.to_owned(),
            provider_message: message,
        },
        400 if model_missing(&lower) && lower.contains("model") => Error::ModelUnavailable {
            model: model.to_owned(),
            provider_message: message,
        },
        408 | 504 => Error::Timeout { message },
        _ if lower.contains("overloaded") || lower.contains("throttl") => Error::RateLimit {
            provider_message: message,
            retry_after,
        },
        _ => Error::General {
            message: format!("the provider answered HTTP {status}"),
            provider_message: Some(message),
            retryable: status >= 500,
        },
    }
}

fn model_missing(lower: &str) -> bool {
    MODEL_PATTERNS.iter().any(|p| lower.contains(p))
}

/// An error reported inside a stream: `kind` is the provider's error type
/// (`overloaded_error`, `rate_limit_exceeded`, `throttlingException`, ...).
pub fn classify_message(kind: Option<&str>, message: &str, model: &str) -> Error {
    let kind_lower = kind.unwrap_or_default().to_ascii_lowercase();
    let lower = message.to_ascii_lowercase();
    let provider_message = match kind {
        Some(kind) => format!("{kind}: {message}"),
        None => message.to_owned(),
    };
    let any = |patterns: &[&str]| {
        patterns
            .iter()
            .any(|p| kind_lower.contains(p) || lower.contains(p))
    };
    if any(&[
        "authentication",
        "permission",
        "unauthorized",
        "accessdenied",
    ]) {
        Error::AuthExpired { provider_message }
    } else if any(&[
        "overloaded",
        "rate_limit",
        "rate limit",
        "throttl",
        "resource_exhausted",
    ]) {
        Error::RateLimit {
            provider_message,
            retry_after: None,
        }
    } else if CONTEXT_PATTERNS.iter().any(|p| lower.contains(p)) {
        Error::ContextLength { provider_message }
    } else if model_missing(&lower) && lower.contains("model") {
        Error::ModelUnavailable {
            model: model.to_owned(),
            provider_message,
        }
    } else if any(&["timeout", "timed out"]) {
        Error::Timeout {
            message: provider_message,
        }
    } else {
        Error::Stream {
            message: provider_message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_codes() {
        let code = |status, body: &str| classify_status(status, body, "m", None).code();
        assert_eq!(code(401, "{}"), "AUTH_EXPIRED");
        assert_eq!(code(403, "nope"), "AUTH_EXPIRED");
        assert_eq!(code(429, "{}"), "RATE_LIMIT");
        assert_eq!(
            code(
                529,
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "RATE_LIMIT"
        );
        assert_eq!(
            code(
                400,
                r#"{"error":{"message":"This model's maximum context length is 128000 tokens.","code":"context_length_exceeded"}}"#
            ),
            "CONTEXT_LENGTH"
        );
        assert_eq!(
            code(
                400,
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#
            ),
            "CONTEXT_LENGTH"
        );
        assert_eq!(
            code(
                404,
                r#"{"error":{"message":"The model `x` does not exist","code":"model_not_found"}}"#
            ),
            "MODEL_UNAVAILABLE"
        );
        assert_eq!(
            code(
                404,
                r#"{"error":"model \"llama9\" not found, try pulling it first"}"#
            ),
            "MODEL_UNAVAILABLE"
        );
        assert_eq!(code(500, "oops"), "GENERAL");
        assert!(classify_status(500, "oops", "m", None).retryable());
        assert!(!classify_status(400, "bad", "m", None).retryable());
    }

    #[test]
    fn keeps_the_provider_message() {
        let error = classify_status(
            401,
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#,
            "m",
            None,
        );
        assert_eq!(
            error.provider_message(),
            Some("invalid_request_error: Incorrect API key provided")
        );
    }
}
