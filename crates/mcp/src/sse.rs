//! The legacy HTTP+SSE client transport (MCP 2024-11-05), which rmcp 3 no
//! longer ships.
//!
//! One long GET carries the server's messages as SSE events; its first
//! event, `endpoint`, names the URL the client POSTs each of its messages
//! to. The stream ending is the transport closing. Framing is rmcp's SSE
//! parser (`sse-stream`), the HTTP client rmcp's reqwest.

use futures::StreamExt;
use futures::stream::BoxStream;
use http::header::{ACCEPT, CONTENT_TYPE};
use http::{HeaderMap, HeaderValue, StatusCode};
use reqwest::Url;
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use sse_stream::{Sse, SseStream};
use std::time::Duration;

/// How long the server may take to name its message endpoint.
const ENDPOINT_WAIT: Duration = Duration::from_secs(20);

/// How long one POST may take: the server only queues the message (its
/// answer comes on the stream), so a slow POST is a stuck server.
const POST_TIMEOUT: Duration = Duration::from_secs(60);

/// Why an SSE connection could not be opened or a message not sent.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    #[error("{url:?} is not a URL: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("could not reach {url}: {source}")]
    Request {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("the server answered {}", .0.as_u16())]
    Status(StatusCode),
    #[error("no endpoint event within {} s", .0.as_secs())]
    NoEndpoint(Duration),
    #[error("the event stream ended before its endpoint event")]
    EndedBeforeEndpoint,
    #[error("the event stream broke: {0}")]
    Stream(String),
    #[error("the endpoint event names {endpoint:?}, which is not a URL: {reason}")]
    BadEndpoint { endpoint: String, reason: String },
    #[error("the endpoint {endpoint} is on another origin than {url}")]
    ForeignEndpoint { endpoint: String, url: String },
    #[error("could not encode the message: {0}")]
    Encode(#[from] serde_json::Error),
}

type EventStream = BoxStream<'static, Result<Sse, sse_stream::Error>>;

/// An open legacy SSE connection; an rmcp client transport.
pub struct SseTransport {
    client: reqwest::Client,
    headers: HeaderMap,
    endpoint: Url,
    /// `None` once closed: dropping the stream ends the GET.
    events: Option<EventStream>,
}

impl std::fmt::Debug for SseTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Headers may carry credentials: name the endpoint only.
        f.debug_struct("SseTransport")
            .field("endpoint", &self.endpoint.as_str())
            .field("open", &self.events.is_some())
            .finish_non_exhaustive()
    }
}

impl SseTransport {
    /// The URL messages are POSTed to, as the server named it.
    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }
}

/// Opens the event stream at `url` (sending `headers` on it and on every
/// POST) and waits for the server to name its message endpoint.
pub async fn connect_sse(
    client: reqwest::Client,
    url: &str,
    headers: HeaderMap,
) -> Result<SseTransport, SseError> {
    connect_sse_within(client, url, headers, ENDPOINT_WAIT).await
}

/// [`connect_sse`] with the endpoint wait given, so tests need not wait 20 s.
pub(crate) async fn connect_sse_within(
    client: reqwest::Client,
    url: &str,
    headers: HeaderMap,
    endpoint_wait: Duration,
) -> Result<SseTransport, SseError> {
    let base = Url::parse(url).map_err(|e| SseError::InvalidUrl {
        url: url.to_owned(),
        reason: e.to_string(),
    })?;
    let response = client
        .get(base.clone())
        .headers(headers.clone())
        .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
        .send()
        .await
        .map_err(|source| SseError::Request {
            url: base.to_string(),
            source,
        })?;
    if !response.status().is_success() {
        return Err(SseError::Status(response.status()));
    }
    let mut events: EventStream = SseStream::from_bytes_stream(response.bytes_stream()).boxed();
    let data = tokio::time::timeout(endpoint_wait, endpoint_event(&mut events))
        .await
        .map_err(|_elapsed| SseError::NoEndpoint(endpoint_wait))??;
    let endpoint = resolve_endpoint(&base, &data)?;
    Ok(SseTransport {
        client,
        headers,
        endpoint,
        events: Some(events),
    })
}

/// The data of the first `endpoint` event; anything before it is dropped,
/// as the server has no session to send on yet.
async fn endpoint_event(events: &mut EventStream) -> Result<String, SseError> {
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| SseError::Stream(e.to_string()))?;
        if event.event.as_deref() == Some("endpoint") {
            return Ok(event.data.unwrap_or_default().trim().to_owned());
        }
    }
    Err(SseError::EndedBeforeEndpoint)
}

/// Resolves the endpoint against the stream's URL. It must stay on the same
/// origin: the configured headers (often a bearer token) go with every POST.
fn resolve_endpoint(base: &Url, data: &str) -> Result<Url, SseError> {
    let endpoint = base.join(data).map_err(|e| SseError::BadEndpoint {
        endpoint: data.to_owned(),
        reason: e.to_string(),
    })?;
    if endpoint.origin() != base.origin() {
        return Err(SseError::ForeignEndpoint {
            endpoint: endpoint.to_string(),
            url: base.to_string(),
        });
    }
    Ok(endpoint)
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn name() -> std::borrow::Cow<'static, str> {
        "legacy SSE".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let request = serde_json::to_vec(&item).map(|body| {
            self.client
                .post(self.endpoint.clone())
                .headers(self.headers.clone())
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .timeout(POST_TIMEOUT)
                .body(body)
        });
        let url = self.endpoint.to_string();
        async move {
            let response = request?
                .send()
                .await
                .map_err(|source| SseError::Request { url, source })?;
            // 202 Accepted is the norm; some servers answer 200 or 204.
            if response.status().is_success() {
                Ok(())
            } else {
                Err(SseError::Status(response.status()))
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let events = self.events.as_mut()?;
        loop {
            let event = match events.next().await {
                Some(Ok(event)) => event,
                Some(Err(error)) => {
                    tracing::warn!(%error, endpoint = %self.endpoint, "the SSE stream broke");
                    break;
                }
                None => break,
            };
            // Unnamed events are messages too (the SSE default type).
            if !matches!(event.event.as_deref(), None | Some("message")) {
                continue;
            }
            let Some(data) = event.data else { continue };
            match serde_json::from_str(&data) {
                Ok(message) => return Some(message),
                // One bad message must not end the session; the request it
                // answered times out on its own.
                Err(error) => {
                    tracing::warn!(%error, endpoint = %self.endpoint, "an SSE message is not JSON-RPC");
                }
            }
        }
        self.events = None;
        None
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.events = None;
        Ok(())
    }
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
