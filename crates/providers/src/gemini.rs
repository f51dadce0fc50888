//! Google Gemini `streamGenerateContent?alt=sse`.

mod decode;
mod request;

use futures::FutureExt;
use futures::future::BoxFuture;
use pizza_llm::{
    AttachmentLimits, CancellationToken, EventStream, ModelClient, ModelDescriptor, ModelRequest,
    Result,
};
use serde_json::Value;

pub use decode::GeminiDecoder;

use crate::Provider;
use crate::framing::Framing;
use crate::http::{JsonPost, join, stream_post};
use crate::transport::{Transport, TransportConfig};

pub const GEMINI_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

#[derive(Debug, Clone)]
pub struct GeminiConfig {
    pub api_key: String,
    /// Including the API version (`.../v1beta`).
    pub base_url: String,
    pub transport: TransportConfig,
}

impl Default for GeminiConfig {
    fn default() -> Self {
        Self {
            api_key: String::new(),
            base_url: GEMINI_BASE_URL.into(),
            transport: TransportConfig::default(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct GeminiProvider {
    config: GeminiConfig,
    transport: Transport,
}

impl GeminiProvider {
    pub fn new(config: GeminiConfig) -> Result<Self> {
        let transport = Transport::new(config.transport.clone())?;
        Ok(Self { config, transport })
    }
}

impl ModelClient for GeminiProvider {
    fn stream(
        &self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<EventStream>> {
        let model = request.model.trim_start_matches("models/").to_owned();
        let url = join(
            &self.config.base_url,
            &format!("models/{model}:streamGenerateContent?alt=sse"),
        );
        let prepared = request::generate_body(&request).and_then(|body| JsonPost::new(url, &body));
        match prepared {
            Ok(post) => stream_post(
                self.transport.clone(),
                post.header("x-goog-api-key", self.config.api_key.clone()),
                model.clone(),
                Framing::Sse,
                Box::new(GeminiDecoder::new(&model)),
                cancel,
            ),
            Err(error) => futures::future::ready(Err(error)).boxed(),
        }
    }
}

impl Provider for GeminiProvider {
    fn provider_id(&self) -> &str {
        "gemini"
    }

    fn attachment_limits(&self) -> AttachmentLimits {
        // Inline data: 20 MB per request.
        AttachmentLimits {
            provider: "Gemini".into(),
            documents: true,
            image_max_bytes: 20 * 1000 * 1000,
            document_max_bytes: 20 * 1000 * 1000,
        }
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelDescriptor>>> {
        async move {
            let request = self
                .transport
                .client()
                .get(join(&self.config.base_url, "models?pageSize=1000"))
                .header("x-goog-api-key", &self.config.api_key);
            let json = self.transport.get_json(request).await?;
            let items = json
                .get("models")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            Ok(items
                .iter()
                .filter(|item| {
                    item.get("supportedGenerationMethods")
                        .and_then(Value::as_array)
                        .is_some_and(|methods| methods.iter().any(|m| m == "generateContent"))
                })
                .filter_map(|item| {
                    let id = item.get("name")?.as_str()?.trim_start_matches("models/");
                    let mut model = ModelDescriptor::bare(id);
                    if let Some(name) = item.get("displayName").and_then(Value::as_str) {
                        model.name = name.to_owned();
                    }
                    let limit = |key: &str| {
                        item.get(key)
                            .and_then(Value::as_u64)
                            .and_then(|n| u32::try_from(n).ok())
                    };
                    model.context_window = limit("inputTokenLimit");
                    model.max_output_tokens = limit("outputTokenLimit");
                    model.supports_vision = true;
                    model.supports_reasoning = item
                        .get("thinking")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    Some(model)
                })
                .collect())
        }
        .boxed()
    }
}
