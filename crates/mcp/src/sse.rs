//! Placeholder until the legacy SSE transport lands.

#[derive(Debug, thiserror::Error)]
#[error("legacy SSE is not supported yet")]
pub struct SseError;

pub async fn connect_sse(
    _client: reqwest13::Client,
    _url: &str,
    _headers: http::HeaderMap,
) -> Result<(tokio::io::DuplexStream, tokio::io::DuplexStream), SseError> {
    Err(SseError)
}
