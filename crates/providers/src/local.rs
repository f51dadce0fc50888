//! Looking for model servers on this machine: one cheap listing call each,
//! with a short timeout, so an absent server costs a refused connection.

use std::time::Duration;

use pizza_llm::{Error, Result};
use serde_json::Value;

use crate::http::join;
use crate::transport::{Transport, TransportConfig};

/// Which listing a local server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalListing {
    /// Ollama's `GET /api/tags`: `{"models": [{"name": ...}]}`.
    OllamaTags,
    /// `GET /models` under an OpenAI-style base URL: `{"data": [{"id": ...}]}`.
    OpenAiModels,
}

/// The model ids the server at `base_url` offers, within `timeout`; any
/// failure (nothing listening, a foreign server, a slow one) is an error.
pub async fn probe_local(
    base_url: &str,
    listing: LocalListing,
    timeout: Duration,
) -> Result<Vec<String>> {
    let transport = Transport::new(TransportConfig {
        connect_timeout: timeout,
        response_timeout: timeout,
        max_retries: 0,
        ..TransportConfig::default()
    })?;
    let path = match listing {
        LocalListing::OllamaTags => "api/tags",
        LocalListing::OpenAiModels => "models",
    };
    let request = transport.client().get(join(base_url, path));
    let json = tokio::time::timeout(timeout, transport.get_json(request))
        .await
        .map_err(|_| Error::Timeout {
            message: "the local server did not answer in time".into(),
        })??;
    let (list, key) = match listing {
        LocalListing::OllamaTags => ("models", "name"),
        LocalListing::OpenAiModels => ("data", "id"),
    };
    // A server of another kind on the port answers something else: not found.
    let items = json.get(list).and_then(Value::as_array).ok_or_else(|| {
        Error::general(format!(
            "the server at {base_url} is not of the kind probed"
        ))
    })?;
    Ok(items
        .iter()
        .filter_map(|item| item.get(key).and_then(Value::as_str))
        .map(str::to_owned)
        .collect())
}
