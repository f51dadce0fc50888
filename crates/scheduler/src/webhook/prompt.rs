//! The prompt a webhook body carries: a JSON object's `prompt` (or `text`)
//! string, or a plain-text body. No prompt keeps the trigger's saved one.

use hyper::StatusCode;
use hyper::header::HeaderValue;
use serde_json::Value;

/// The JSON fields a prompt is read from, first found first.
const PROMPT_FIELDS: [&str; 2] = ["prompt", "text"];

/// A body the listener cannot take a prompt from, with the sentence the
/// client is answered.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct BodyRefusal {
    pub(super) status: StatusCode,
    pub(super) sentence: String,
}

impl BodyRefusal {
    fn bad_request(sentence: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            sentence: sentence.into(),
        }
    }
}

enum BodyKind {
    Json,
    Text,
}

/// The body's prompt override: `None` for an empty or blank body, or a
/// JSON object without one; surrounding whitespace is trimmed.
pub(super) fn prompt_of(
    content_type: Option<&HeaderValue>,
    body: &[u8],
) -> Result<Option<String>, BodyRefusal> {
    // `curl -X POST` with no data, or `-d ''`: nothing to override, whatever
    // the type says.
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let kind = body_kind(content_type)?;
    let Ok(text) = std::str::from_utf8(body) else {
        return Err(BodyRefusal::bad_request("the body is not UTF-8 text"));
    };
    match kind {
        BodyKind::Text => Ok(non_blank(text)),
        BodyKind::Json => prompt_of_json(text),
    }
}

fn body_kind(content_type: Option<&HeaderValue>) -> Result<BodyKind, BodyRefusal> {
    let Some(content_type) = content_type else {
        return Ok(BodyKind::Text);
    };
    let essence = content_type
        .to_str()
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if essence == "application/json" || essence.ends_with("+json") {
        return Ok(BodyKind::Json);
    }
    if essence == "text/plain" {
        return Ok(BodyKind::Text);
    }
    // Form encoding (curl's `-d` default) would hand the model `a+b%20c`.
    Err(BodyRefusal {
        status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
        sentence: format!(
            "send the prompt as JSON ({{\"prompt\": \"…\"}}, Content-Type: application/json) or as text/plain, not {}",
            if essence.is_empty() {
                "an unreadable type"
            } else {
                essence.as_str()
            }
        ),
    })
}

fn prompt_of_json(text: &str) -> Result<Option<String>, BodyRefusal> {
    let value: Value = serde_json::from_str(text).map_err(|error| {
        BodyRefusal::bad_request(format!("the body is not valid JSON: {error}"))
    })?;
    let Value::Object(fields) = value else {
        return Err(BodyRefusal::bad_request(
            "the JSON body must be an object such as {\"prompt\": \"…\"}",
        ));
    };
    for field in PROMPT_FIELDS {
        match fields.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::String(prompt)) => return Ok(non_blank(prompt)),
            Some(_) => {
                return Err(BodyRefusal::bad_request(format!(
                    "`{field}` must be a string"
                )));
            }
        }
    }
    Ok(None)
}

fn non_blank(text: &str) -> Option<String> {
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
