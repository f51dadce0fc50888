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
    "model identifier is invalid",
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
    classify_status_message(status, provider_message(body), model, retry_after)
}

/// An AWS error: `kind` is the `x-amzn-errortype` header (HTTP errors) or
/// the `:exception-type` of an event-stream exception. AWS REST-JSON bodies
/// carry only `message`, so the type has to travel next to it.
pub(crate) fn classify_aws(
    status: Option<u16>,
    kind: &str,
    message: &str,
    model: &str,
    retry_after: Option<Duration>,
) -> Error {
    // The header reads `ValidationException:http://internal.amazon.com/...`.
    let kind = kind.split(':').next().unwrap_or(kind);
    let kind_lower = kind.to_ascii_lowercase();
    let provider_message = format!("{kind}: {message}");
    if kind_lower.contains("resourcenotfound") {
        // Every Bedrock runtime path names a model, so "not found" is the model.
        return Error::ModelUnavailable {
            model: model.to_owned(),
            provider_message,
        };
    }
    if kind_lower.contains("throttling")
        || kind_lower.contains("servicequotaexceeded")
        || kind_lower.contains("modelnotready")
    {
        return Error::RateLimit {
            provider_message,
            retry_after,
        };
    }
    match status {
        Some(status) => classify_status_message(status, provider_message, model, retry_after),
        None => classify_message(Some(kind), message, model),
    }
}

fn classify_status_message(
    status: u16,
    message: String,
    model: &str,
    retry_after: Option<Duration>,
) -> Error {
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
    fn aws_error_types_map_to_codes() {
        let code = |status, kind: &str, message: &str| {
            classify_aws(status, kind, message, "m", None).code()
        };
        let header = "ResourceNotFoundException:http://internal.amazon.com/coral/x/";
        assert_eq!(code(Some(404), header, "gone"), "MODEL_UNAVAILABLE");
        assert_eq!(code(Some(400), "ThrottlingException", "slow"), "RATE_LIMIT");
        assert_eq!(
            code(Some(403), "AccessDeniedException", "no"),
            "AUTH_EXPIRED"
        );
        assert_eq!(
            code(
                Some(400),
                "ValidationException",
                "Input is too long for requested model."
            ),
            "CONTEXT_LENGTH"
        );
        assert_eq!(code(None, "throttlingException", "slow"), "RATE_LIMIT");
        assert_eq!(code(None, "modelStreamErrorException", "x"), "STREAM_ERROR");
        assert_eq!(
            classify_aws(Some(404), header, "gone", "m", None).provider_message(),
            Some("ResourceNotFoundException: gone")
        );
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
