//! One webhook request, checked in an order that gives nothing away: the
//! route, the method, whether the trigger exists, the rate limit (before
//! the secret, so guesses count), the secret, the body's size and shape —
//! and only then `fire`. Every answer is JSON; nothing logs a header.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{
    ALLOW, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, RETRY_AFTER,
    WWW_AUTHENTICATE,
};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;
use tokio_util::task::TaskTracker;

use super::body::{BodyError, RequestBody};
use super::prompt::prompt_of;
use super::rate_limit::{RequestWindows, retry_after_seconds};
use super::secret::verify_secret;
use super::server::{MAX_BODY_BYTES, RateLimit};
use super::{SecretHash, WebhookFired, WebhookRefusal, WebhookTarget};

/// The header a caller that cannot set `Authorization` sends the secret in.
const SECRET_HEADER: HeaderName = HeaderName::from_static("x-trigger-secret");
const ROUTE_PREFIX: &str = "/triggers/";
/// Longer than any id the store makes; a longer path is not a trigger.
const MAX_TRIGGER_ID_BYTES: usize = 200;
/// How long a checked request may take to send its body.
const BODY_DEADLINE: Duration = Duration::from_secs(30);

pub(super) type WebhookResponse = Response<Full<Bytes>>;

/// What every connection of one listener shares.
pub(super) struct ListenerState {
    target: Arc<dyn WebhookTarget>,
    windows: Mutex<RequestWindows>,
    /// Fires run as tasks of the server so a client hanging up mid-request
    /// cannot cancel one half way, and `stop` waits for them.
    tasks: TaskTracker,
}

impl std::fmt::Debug for ListenerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListenerState").finish_non_exhaustive()
    }
}

impl ListenerState {
    pub(super) fn new(
        target: Arc<dyn WebhookTarget>,
        rate_limit: RateLimit,
        tasks: TaskTracker,
    ) -> Self {
        Self {
            target,
            windows: Mutex::new(RequestWindows::new(rate_limit)),
            tasks,
        }
    }

    fn admit(&self, trigger_id: &str) -> Result<(), Duration> {
        self.windows
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .admit(trigger_id, Instant::now())
    }
}

/// Answers one request; a refused one has its unread body drained first so
/// the client reads the answer rather than a reset connection.
pub(super) async fn answer(
    request: Request<Incoming>,
    state: Arc<ListenerState>,
) -> WebhookResponse {
    let (parts, incoming) = request.into_parts();
    let mut body = RequestBody::new(incoming, &parts.headers);
    let (response, known_trigger) = check_and_fire(
        &parts.method,
        parts.uri.path(),
        &parts.headers,
        &mut body,
        &state,
    )
    .await;
    body.discard_rest().await;
    // Only a trigger the target knows is named: any other path is the
    // client's text, and a secret pasted into a URL must not reach a log.
    tracing::debug!(
        method = %parts.method,
        trigger = known_trigger.unwrap_or("-"),
        status = response.status().as_u16(),
        "webhook request answered"
    );
    response
}

/// The answer, and the trigger id once the target has recognised it.
async fn check_and_fire<'path>(
    method: &Method,
    path: &'path str,
    headers: &HeaderMap,
    body: &mut RequestBody,
    state: &Arc<ListenerState>,
) -> (WebhookResponse, Option<&'path str>) {
    let Some(trigger_id) = trigger_id_of(path) else {
        return (not_found(), None);
    };
    if method != Method::POST {
        let mut response = error(StatusCode::METHOD_NOT_ALLOWED, "use POST to fire a trigger");
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("POST"));
        return (response, None);
    }
    let Some(stored) = state.target.secret_of(trigger_id).await else {
        return (not_found(), None);
    };
    let response = check_known_and_fire(trigger_id, &stored, headers, body, state).await;
    (response, Some(trigger_id))
}

async fn check_known_and_fire(
    trigger_id: &str,
    stored: &SecretHash,
    headers: &HeaderMap,
    body: &mut RequestBody,
    state: &Arc<ListenerState>,
) -> WebhookResponse {
    if let Err(wait) = state.admit(trigger_id) {
        let seconds = retry_after_seconds(wait);
        let mut response = error(
            StatusCode::TOO_MANY_REQUESTS,
            &format!("too many requests for this trigger; try again in {seconds} s"),
        );
        response
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from(seconds));
        return response;
    }
    if !secret_of_request(headers).is_some_and(|given| verify_secret(given, stored)) {
        let mut response = error(StatusCode::UNAUTHORIZED, "unauthorized");
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return response;
    }
    if body.declared_over(MAX_BODY_BYTES) {
        return too_large();
    }
    let bytes = match tokio::time::timeout(BODY_DEADLINE, body.read_at_most(MAX_BODY_BYTES)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(BodyError::TooLarge)) => return too_large(),
        Ok(Err(BodyError::Broken)) => {
            return error(
                StatusCode::BAD_REQUEST,
                "the body was cut off before its end",
            );
        }
        Err(_) => {
            return error(
                StatusCode::REQUEST_TIMEOUT,
                "the body did not arrive in time",
            );
        }
    };
    let prompt = match prompt_of(headers.get(CONTENT_TYPE), &bytes) {
        Ok(prompt) => prompt,
        Err(refusal) => return error(refusal.status, &refusal.sentence),
    };
    fire(state, trigger_id, prompt).await
}

async fn fire(
    state: &Arc<ListenerState>,
    trigger_id: &str,
    prompt: Option<String>,
) -> WebhookResponse {
    let target = state.target.clone();
    let trigger_id = trigger_id.to_owned();
    let fired = state
        .tasks
        .spawn(async move { target.fire(&trigger_id, prompt).await })
        .await;
    match fired {
        Ok(Ok(WebhookFired { thread_id, run_id })) => json_response(
            StatusCode::ACCEPTED,
            &json!({ "thread_id": thread_id, "run_id": run_id }),
        ),
        Ok(Err(WebhookRefusal::Busy(sentence))) => error(StatusCode::CONFLICT, &sentence),
        Ok(Err(WebhookRefusal::Unavailable(sentence))) => {
            error(StatusCode::SERVICE_UNAVAILABLE, &sentence)
        }
        Err(_) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the trigger could not be fired; try again",
        ),
    }
}

/// `<id>` of `/triggers/<id>`: one non-empty segment.
fn trigger_id_of(path: &str) -> Option<&str> {
    let id = path.strip_prefix(ROUTE_PREFIX)?;
    let is_one_segment = !id.is_empty() && !id.contains('/') && id.len() <= MAX_TRIGGER_ID_BYTES;
    is_one_segment.then_some(id)
}

/// The secret as `Authorization: Bearer <s>`, or else `X-Trigger-Secret: <s>`.
fn secret_of_request(headers: &HeaderMap) -> Option<&str> {
    let bearer = headers
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            let (scheme, token) = value.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        });
    bearer
        .or_else(|| {
            headers
                .get(SECRET_HEADER)
                .and_then(|value| value.to_str().ok())
                .map(str::trim)
        })
        .filter(|secret| !secret.is_empty())
}

fn not_found() -> WebhookResponse {
    error(StatusCode::NOT_FOUND, "not found")
}

fn too_large() -> WebhookResponse {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("the body is over {} KiB", MAX_BODY_BYTES / 1024),
    )
}

fn error(status: StatusCode, sentence: &str) -> WebhookResponse {
    json_response(status, &json!({ "error": sentence }))
}

fn json_response(status: StatusCode, value: &serde_json::Value) -> WebhookResponse {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
