//! HTTP for every provider: timeouts, retries before the first token,
//! cancellation, error classification.

mod classify;
mod retry;

use std::time::Duration;

use futures::StreamExt;
use pizza_llm::{CancellationToken, Error, Result};

pub(crate) use classify::classify_aws;
pub use classify::{classify_message, classify_status};
pub(crate) use retry::backoff_delay;

use crate::framing::ByteStream;

/// Timeouts and retry policy shared by all providers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportConfig {
    pub connect_timeout: Duration,
    /// From sending the request to the response headers.
    pub response_timeout: Duration,
    /// Longest silence allowed inside a streaming body.
    pub idle_timeout: Duration,
    /// Retries after the first attempt, for 429, 5xx and connection errors.
    pub max_retries: u32,
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// A `retry-after` longer than this is not waited for; the error is returned.
    pub max_retry_after: Duration,
}

impl Default for TransportConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            response_timeout: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(90),
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// A `reqwest::Client` plus policy. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Transport {
    client: reqwest::Client,
    config: TransportConfig,
}

impl Transport {
    pub fn new(config: TransportConfig) -> Result<Self> {
        // reqwest is built without a crypto provider (ring is the one in the
        // tree): the process-wide one must be installed before a client is
        // built. Err means one is installed already, which serves as well.
        let _installed = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|error| Error::general(format!("could not build the HTTP client: {error}")))?;
        Ok(Self { client, config })
    }

    pub fn config(&self) -> &TransportConfig {
        &self.config
    }

    pub(crate) fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Sends the request built by `build` until it succeeds, retrying 429,
    /// 5xx and connection failures with backoff (honouring `retry-after`).
    /// Nothing has been streamed yet, so a retry cannot duplicate output.
    pub(crate) async fn send(
        &self,
        build: &(dyn Fn(&reqwest::Client) -> reqwest::RequestBuilder + Send + Sync),
        model: &str,
        cancel: &CancellationToken,
    ) -> Result<reqwest::Response> {
        let mut attempt = 0;
        loop {
            let outcome = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(Error::Cancelled),
                outcome = self.attempt(build, model) => outcome,
            };
            let (error, retry_after) = match outcome {
                Ok(response) => return Ok(response),
                Err(failure) => failure,
            };
            let retry = retry_after.is_some() || is_transient(&error);
            if !retry || attempt >= self.config.max_retries {
                return Err(error);
            }
            let delay = match retry_after {
                Some(Some(wait)) if wait > self.config.max_retry_after => return Err(error),
                Some(Some(wait)) => wait,
                _ => backoff_delay(&self.config, attempt),
            };
            tracing::debug!(
                attempt,
                ?delay,
                code = error.code(),
                "retrying model request"
            );
            tokio::select! {
                () = cancel.cancelled() => return Err(Error::Cancelled),
                () = tokio::time::sleep(delay) => {}
            }
            attempt += 1;
        }
    }

    /// On failure: the error, and `Some(retry-after)` when the status says
    /// "retry" (429/5xx).
    async fn attempt(
        &self,
        build: &(dyn Fn(&reqwest::Client) -> reqwest::RequestBuilder + Send + Sync),
        model: &str,
    ) -> std::result::Result<reqwest::Response, (Error, Option<Option<Duration>>)> {
        let sent =
            tokio::time::timeout(self.config.response_timeout, build(&self.client).send()).await;
        let response = match sent {
            Err(_) => {
                let error = Error::Timeout {
                    message: "the provider did not respond in time".into(),
                };
                return Err((error, None));
            }
            Ok(Err(error)) => return Err((request_error(&error), None)),
            Ok(Ok(response)) => response,
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(response);
        }
        let retry_after = retry::retry_after(response.headers());
        let aws_kind = aws_error_type(response.headers());
        let body = tokio::time::timeout(self.config.response_timeout, response.text())
            .await
            .ok()
            .and_then(std::result::Result::ok)
            .unwrap_or_default();
        let error = classify_response(status, aws_kind.as_deref(), &body, model, retry_after);
        let retry = (status == 429 || status >= 500).then_some(retry_after);
        Err((error, retry))
    }

    /// The body as a stream of chunks; transport errors become STREAM_ERROR.
    pub(crate) fn body(response: reqwest::Response) -> ByteStream {
        response
            .bytes_stream()
            .map(|chunk| {
                chunk.map_err(|error| Error::stream(format!("the connection broke: {error}")))
            })
            .boxed()
    }

    /// GET + JSON for catalog calls (no retries: the catalog has its own cache).
    pub(crate) async fn get_json(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<serde_json::Value> {
        let sent = tokio::time::timeout(self.config.response_timeout, request.send()).await;
        let response = match sent {
            Err(_) => {
                return Err(Error::Timeout {
                    message: "the provider did not respond in time".into(),
                });
            }
            Ok(result) => result.map_err(|error| request_error(&error))?,
        };
        let status = response.status().as_u16();
        let retry_after = retry::retry_after(response.headers());
        let aws_kind = aws_error_type(response.headers());
        let body = response
            .text()
            .await
            .map_err(|error| Error::stream(format!("could not read the response: {error}")))?;
        if !(200..300).contains(&status) {
            return Err(classify_response(
                status,
                aws_kind.as_deref(),
                &body,
                "",
                retry_after,
            ));
        }
        serde_json::from_str(&body)
            .map_err(|error| Error::stream(format!("the provider sent invalid JSON: {error}")))
    }
}

/// AWS services name the error type in a header, not in the body.
fn aws_error_type(headers: &reqwest::header::HeaderMap) -> Option<String> {
    headers
        .get("x-amzn-errortype")
        .and_then(|value| value.to_str().ok())
        .filter(|value| !value.is_empty())
        .map(str::to_owned)
}

fn classify_response(
    status: u16,
    aws_kind: Option<&str>,
    body: &str,
    model: &str,
    retry_after: Option<Duration>,
) -> Error {
    match aws_kind {
        Some(kind) => classify_aws(
            Some(status),
            kind,
            &classify::provider_message(body),
            model,
            retry_after,
        ),
        None => classify_status(status, body, model, retry_after),
    }
}

fn is_transient(error: &Error) -> bool {
    matches!(
        error,
        Error::General {
            retryable: true,
            ..
        }
    )
}

fn request_error(error: &reqwest::Error) -> Error {
    if error.is_timeout() {
        Error::Timeout {
            message: format!("connecting to the provider timed out: {error}"),
        }
    } else if error.is_connect() || error.is_request() {
        Error::General {
            message: format!("could not reach the provider: {error}"),
            provider_message: None,
            retryable: true,
        }
    } else {
        Error::general(format!("the request failed: {error}"))
    }
}
