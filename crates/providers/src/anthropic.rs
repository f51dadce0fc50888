//! Anthropic Messages API.

mod decode;
mod request;

use futures::FutureExt;
use futures::future::BoxFuture;
use pizza_llm::{
    AttachmentLimits, CancellationToken, EventStream, ModelClient, ModelDescriptor, ModelRequest,
    Result,
};
use serde_json::Value;

pub use decode::AnthropicDecoder;

use crate::Provider;
use crate::framing::Framing;
use crate::http::{JsonPost, join, stream_post};
use crate::transport::{Transport, TransportConfig};

pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
const API_VERSION: &str = "2023-06-01";

/// How the key is sent: Anthropic's own `x-api-key`, or `Authorization:
/// Bearer` for gateways and proxies that expect it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AnthropicAuth {
    #[default]
    ApiKey,
    Bearer,
}

#[derive(Debug, Clone)]
pub struct AnthropicConfig {
    pub api_key: String,
    pub auth: AnthropicAuth,
    /// Without `/v1`.
    pub base_url: String,
    pub transport: TransportConfig,
}

impl Default for AnthropicConfig {
    fn default() -> Self {
        Self {
            api_key: String::new(),
            auth: AnthropicAuth::ApiKey,
            base_url: ANTHROPIC_BASE_URL.into(),
            transport: TransportConfig::default(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct AnthropicProvider {
    config: AnthropicConfig,
    transport: Transport,
}

impl AnthropicProvider {
    pub fn new(config: AnthropicConfig) -> Result<Self> {
        let transport = Transport::new(config.transport.clone())?;
        Ok(Self { config, transport })
    }

    fn authorize(&self, post: JsonPost) -> JsonPost {
        let post = post.header("anthropic-version", API_VERSION);
        match self.config.auth {
            AnthropicAuth::ApiKey => post.header("x-api-key", self.config.api_key.clone()),
            AnthropicAuth::Bearer => {
                post.header("authorization", format!("Bearer {}", self.config.api_key))
            }
        }
    }
}

impl ModelClient for AnthropicProvider {
    fn stream(
        &self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<EventStream>> {
        let prepared = request::messages_body(&request)
            .and_then(|body| JsonPost::new(join(&self.config.base_url, "v1/messages"), &body));
        match prepared {
            Ok(post) => stream_post(
                self.transport.clone(),
                self.authorize(post).header("accept", "text/event-stream"),
                request.model.clone(),
                Framing::Sse,
                Box::new(AnthropicDecoder::new(&request.model)),
                cancel,
            ),
            Err(error) => futures::future::ready(Err(error)).boxed(),
        }
    }
}

impl Provider for AnthropicProvider {
    fn provider_id(&self) -> &str {
        "anthropic"
    }

    fn attachment_limits(&self) -> AttachmentLimits {
        // 5 MB per image; PDFs up to the 32 MB request limit.
        AttachmentLimits {
            provider: "Anthropic".into(),
            documents: true,
            image_max_bytes: 5 * 1024 * 1024,
            document_max_bytes: 32 * 1024 * 1024,
        }
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelDescriptor>>> {
        async move {
            let mut request = self
                .transport
                .client()
                .get(join(&self.config.base_url, "v1/models?limit=1000"))
                .header("anthropic-version", API_VERSION);
            request = match self.config.auth {
                AnthropicAuth::ApiKey => request.header("x-api-key", &self.config.api_key),
                AnthropicAuth::Bearer => request.bearer_auth(&self.config.api_key),
            };
            let json = self.transport.get_json(request).await?;
            let items = json
                .get("data")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            Ok(items
                .iter()
                .filter_map(|item| {
                    let id = item.get("id")?.as_str()?;
                    let mut model = ModelDescriptor::bare(id);
                    if let Some(name) = item.get("display_name").and_then(Value::as_str) {
                        model.name = name.to_owned();
                    }
                    model.supports_vision = true;
                    Some(model)
                })
                .collect())
        }
        .boxed()
    }
}
