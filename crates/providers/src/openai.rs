//! The OpenAI provider: Responses or Chat Completions per configuration.

use futures::FutureExt;
use futures::future::BoxFuture;
use pizza_llm::{
    AttachmentLimits, CancellationToken, EventStream, ModelClient, ModelDescriptor, ModelRequest,
    Result,
};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::Provider;
use crate::catalog::ModelPrice;
use crate::framing::Framing;
use crate::http::{JsonPost, join, stream_post};
use crate::openai_chat::{ChatDecoder, ChatOptions, chat_body};
use crate::openai_responses::{ResponsesDecoder, responses_body};
use crate::transport::{Transport, TransportConfig};

pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// Which OpenAI wire format to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OpenAiApi {
    /// Responses for OpenAI itself, Chat Completions for anything else
    /// (most compatible servers only have Chat Completions).
    #[default]
    Automatic,
    Responses,
    Chat,
}

#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// Provider id in the registry (`openai`, `openrouter`, a user's server).
    pub id: String,
    /// Optional: local compatible servers often need none.
    pub api_key: Option<String>,
    pub base_url: String,
    pub api: OpenAiApi,
    /// Sent with every request (OpenRouter's attribution headers).
    pub headers: Vec<(&'static str, String)>,
    pub transport: TransportConfig,
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        Self {
            id: "openai".into(),
            api_key: None,
            base_url: OPENAI_BASE_URL.into(),
            api: OpenAiApi::Automatic,
            headers: Vec::new(),
            transport: TransportConfig::default(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct OpenAiProvider {
    config: OpenAiConfig,
    transport: Transport,
    /// Prices from the last listing that carried them (OpenRouter's does).
    prices: Arc<Mutex<HashMap<String, ModelPrice>>>,
}

impl OpenAiProvider {
    pub fn new(config: OpenAiConfig) -> Result<Self> {
        let transport = Transport::new(config.transport.clone())?;
        Ok(Self {
            config,
            transport,
            prices: Arc::default(),
        })
    }

    fn is_openai(&self) -> bool {
        self.config.base_url.contains("api.openai.com")
    }

    /// The format `stream` will use.
    pub fn effective_api(&self) -> OpenAiApi {
        match self.config.api {
            OpenAiApi::Automatic if self.is_openai() => OpenAiApi::Responses,
            OpenAiApi::Automatic => OpenAiApi::Chat,
            other => other,
        }
    }

    fn authorize(&self, mut post: JsonPost) -> JsonPost {
        for (name, value) in &self.config.headers {
            post = post.header(name, value.clone());
        }
        match self.config.api_key.as_deref().filter(|k| !k.is_empty()) {
            Some(key) => post.header("authorization", format!("Bearer {key}")),
            None => post,
        }
    }
}

impl ModelClient for OpenAiProvider {
    fn stream(
        &self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<EventStream>> {
        let prepared = (|| {
            let (path, body, decoder): (_, _, Box<dyn crate::framing::Decoder>) =
                match self.effective_api() {
                    OpenAiApi::Responses => (
                        "responses",
                        responses_body(&request)?,
                        Box::new(ResponsesDecoder::new(&request.model)),
                    ),
                    _ => {
                        let options = ChatOptions {
                            max_completion_tokens: self.is_openai(),
                        };
                        (
                            "chat/completions",
                            chat_body(&request, options)?,
                            Box::new(ChatDecoder::new(&request.model)),
                        )
                    }
                };
            let post = self
                .authorize(JsonPost::new(join(&self.config.base_url, path), &body)?)
                .header("accept", "text/event-stream");
            Ok((post, decoder))
        })();
        match prepared {
            Ok((post, decoder)) => stream_post(
                self.transport.clone(),
                post,
                request.model,
                Framing::Sse,
                decoder,
                cancel,
            ),
            Err(error) => futures::future::ready(Err(error)).boxed(),
        }
    }
}

impl Provider for OpenAiProvider {
    fn provider_id(&self) -> &str {
        &self.config.id
    }

    fn attachment_limits(&self) -> AttachmentLimits {
        // 20 MB per image; the Responses API takes PDFs as input files up
        // to 32 MB. Chat Completions servers (compatible ones above all)
        // are sent no documents.
        let provider = if self.is_openai() {
            "OpenAI".to_owned()
        } else {
            self.config.id.clone()
        };
        AttachmentLimits {
            provider,
            documents: self.effective_api() == OpenAiApi::Responses,
            image_max_bytes: 20 * 1024 * 1024,
            document_max_bytes: 32 * 1024 * 1024,
        }
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelDescriptor>>> {
        async move {
            let mut request = self
                .transport
                .client()
                .get(join(&self.config.base_url, "models"));
            for (name, value) in &self.config.headers {
                request = request.header(*name, value);
            }
            if let Some(key) = self.config.api_key.as_deref().filter(|k| !k.is_empty()) {
                request = request.bearer_auth(key);
            }
            let json = self.transport.get_json(request).await?;
            *self.prices.lock().unwrap_or_else(PoisonError::into_inner) = parse_prices(&json);
            Ok(parse_model_list(&json))
        }
        .boxed()
    }

    fn price(&self, model_id: &str) -> Option<ModelPrice> {
        self.prices
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(model_id)
            .copied()
    }
}

/// OpenRouter's `pricing: {prompt, completion}`: US dollars per token as
/// decimal strings. A negative price (its `openrouter/auto` router says
/// `-1`: "depends on the model picked") is no price.
pub(crate) fn parse_prices(json: &Value) -> HashMap<String, ModelPrice> {
    let per_token = |item: &Value, key: &str| -> Option<f64> {
        let value = item.get("pricing")?.get(key)?;
        let price = match value {
            Value::String(text) => text.trim().parse::<f64>().ok()?,
            other => other.as_f64()?,
        };
        (price.is_finite() && price >= 0.0).then_some(price)
    };
    json.get("data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let id = item.get("id")?.as_str()?;
            let price = ModelPrice::from_usd_per_token(
                per_token(item, "prompt")?,
                per_token(item, "completion")?,
            );
            Some((id.to_owned(), price))
        })
        .collect()
}

/// `{"data": [{"id": ...}, ...]}`; OpenRouter-style extras are read when present.
pub(crate) fn parse_model_list(json: &Value) -> Vec<ModelDescriptor> {
    let Some(items) = json.get("data").and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let id = item.get("id")?.as_str()?;
            let mut model = ModelDescriptor::bare(id);
            if let Some(name) = item.get("name").and_then(Value::as_str) {
                model.name = name.to_owned();
            }
            model.context_window = item
                .get("context_length")
                .or_else(|| item.get("context_window"))
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok());
            Some(model)
        })
        .collect()
}
