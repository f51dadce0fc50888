#![doc = include_str!("../README.md")]

mod alternating;
mod anthropic;
mod bedrock;
mod catalog;
mod decoding;
mod framing;
mod gemini;
mod history;
mod http;
mod local;
mod ollama;
mod openai;
mod openai_chat;
mod openai_responses;
pub mod transport;

use futures::future::BoxFuture;
use pizza_llm::{AttachmentLimits, ModelClient, ModelDescriptor, Result};

pub use anthropic::{
    ANTHROPIC_BASE_URL, AnthropicAuth, AnthropicConfig, AnthropicDecoder, AnthropicProvider,
};
pub use bedrock::{
    AccessKeys, AwsProfile, AwsProfileFiles, BEDROCK_DEFAULT_REGION, BedrockAuth, BedrockConfig,
    BedrockDecoder, BedrockProvider,
};
pub use catalog::{
    AuthField, COMPATIBLE_PREFIX, CatalogListing, CatalogStatus, ContextSource, FieldKind,
    ModelCatalog, ModelFacts, ModelPrice, OPENROUTER_BASE_URL, ProviderDescriptor,
    automatic_default_model, build_provider, compatible_id, provider_descriptor,
    provider_descriptors, snapshot_model, split_key,
};
pub use framing::{Decoder, Frame, Framing, decode_stream};
pub use gemini::{GEMINI_BASE_URL, GeminiConfig, GeminiDecoder, GeminiProvider};
pub use local::{LocalListing, probe_local};
pub use ollama::{
    OLLAMA_BASE_URL, OllamaCapabilities, OllamaConfig, OllamaDecoder, OllamaProvider,
};
pub use openai::{OPENAI_BASE_URL, OpenAiApi, OpenAiConfig, OpenAiProvider};
pub use openai_chat::ChatDecoder;
pub use openai_responses::ResponsesDecoder;
pub use transport::{Transport, TransportConfig};

/// A configured provider: it streams (as a [`ModelClient`]) and lists its models.
pub trait Provider: ModelClient {
    /// The registry id (`anthropic`, `openai`, a user's compatible server...).
    fn provider_id(&self) -> &str;
    /// The models the provider offers now, as it reports them (the catalog
    /// fills gaps from the bundled snapshot).
    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelDescriptor>>>;
    /// What the provider takes inline: documents or not, and its caps.
    /// Unless it says otherwise: images up to the transport cap, no documents.
    fn attachment_limits(&self) -> AttachmentLimits {
        AttachmentLimits::images_only(self.provider_id(), u64::MAX)
    }
    /// What `model_id` costs, when the last listing said (OpenRouter's does).
    fn price(&self, _model_id: &str) -> Option<ModelPrice> {
        None
    }
}
