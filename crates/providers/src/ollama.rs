//! Ollama's native `/api/chat` (NDJSON), with capabilities from `/api/show`.

mod decode;
mod request;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt;
use futures::future::BoxFuture;
use pizza_llm::{
    AttachmentLimits, CancellationToken, EventStream, ModelClient, ModelDescriptor, ModelRequest,
    Result,
};
use serde_json::{Value, json};

pub use decode::OllamaDecoder;

use crate::Provider;
use crate::framing::Framing;
use crate::http::{JsonPost, join, stream_post};
use crate::transport::{Transport, TransportConfig};

pub const OLLAMA_BASE_URL: &str = "http://127.0.0.1:11434";

#[derive(Debug, Clone)]
pub struct OllamaConfig {
    pub base_url: String,
    pub transport: TransportConfig,
}

impl Default for OllamaConfig {
    fn default() -> Self {
        Self {
            base_url: OLLAMA_BASE_URL.into(),
            transport: TransportConfig::default(),
        }
    }
}

/// What `/api/show` says about a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OllamaCapabilities {
    pub tools: bool,
    pub vision: bool,
    pub thinking: bool,
    pub context_length: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct OllamaProvider {
    config: OllamaConfig,
    transport: Transport,
    capabilities: Arc<Mutex<HashMap<String, OllamaCapabilities>>>,
}

impl OllamaProvider {
    pub fn new(config: OllamaConfig) -> Result<Self> {
        let transport = Transport::new(config.transport.clone())?;
        Ok(Self {
            config,
            transport,
            capabilities: Arc::default(),
        })
    }

    /// `/api/show` for `model`, cached for the provider's life (a model's
    /// capabilities change only when it is re-pulled).
    pub async fn capabilities(&self, model: &str) -> Result<OllamaCapabilities> {
        let cached = self
            .capabilities
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(model)
            .copied();
        if let Some(cached) = cached {
            return Ok(cached);
        }
        let request = self
            .transport
            .client()
            .post(join(&self.config.base_url, "api/show"))
            .json(&json!({"model": model}));
        let show = self.transport.get_json(request).await?;
        let capabilities = parse_show(&show);
        self.capabilities
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(model.to_owned(), capabilities);
        Ok(capabilities)
    }
}

pub(crate) fn parse_show(show: &Value) -> OllamaCapabilities {
    let has = |name: &str| {
        show.get("capabilities")
            .and_then(Value::as_array)
            .is_some_and(|caps| caps.iter().any(|c| c == name))
    };
    // `model_info` keys are prefixed by architecture: `llama.context_length`.
    let context_length = show
        .get("model_info")
        .and_then(Value::as_object)
        .and_then(|info| {
            info.iter()
                .find(|(key, _)| key.ends_with(".context_length"))
                .and_then(|(_, value)| value.as_u64())
        })
        .and_then(|n| u32::try_from(n).ok());
    OllamaCapabilities {
        tools: has("tools"),
        vision: has("vision"),
        thinking: has("thinking"),
        context_length,
    }
}

impl ModelClient for OllamaProvider {
    fn stream(
        &self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<EventStream>> {
        async move {
            // Unknown capabilities: assume no vision, so images degrade to a
            // notice rather than an error from the daemon.
            let vision = self
                .capabilities(&request.model)
                .await
                .map(|caps| caps.vision)
                .unwrap_or(false);
            let body = request::chat_body(&request, vision);
            let post = JsonPost::new(join(&self.config.base_url, "api/chat"), &body)?;
            stream_post(
                self.transport.clone(),
                post,
                request.model.clone(),
                Framing::Ndjson,
                Box::new(OllamaDecoder::new(&request.model)),
                cancel,
            )
            .await
        }
        .boxed()
    }
}

impl Provider for OllamaProvider {
    fn provider_id(&self) -> &str {
        "ollama"
    }

    fn attachment_limits(&self) -> AttachmentLimits {
        // Ollama documents no image cap; the transport cap applies.
        AttachmentLimits::images_only("Ollama", u64::MAX)
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelDescriptor>>> {
        async move {
            let request = self
                .transport
                .client()
                .get(join(&self.config.base_url, "api/tags"));
            let tags = self.transport.get_json(request).await?;
            let names: Vec<String> = tags
                .get("models")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|m| {
                    m.get("name")
                        .or_else(|| m.get("model"))
                        .and_then(Value::as_str)
                })
                .map(str::to_owned)
                .collect();
            let shows =
                futures::future::join_all(names.iter().map(|name| self.capabilities(name))).await;
            Ok(names
                .into_iter()
                .zip(shows)
                .map(|(name, caps)| {
                    let caps = caps.unwrap_or_default();
                    let mut model = ModelDescriptor::bare(name);
                    model.supports_tools = caps.tools;
                    model.supports_vision = caps.vision;
                    model.supports_reasoning = caps.thinking;
                    model.context_window = caps.context_length;
                    model
                })
                .collect())
        }
        .boxed()
    }
}
