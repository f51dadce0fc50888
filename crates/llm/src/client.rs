//! The seam between the agent and model providers.

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::error::Result;
use crate::event::StreamEvent;
use crate::request::ModelRequest;

/// The events of one model call.
pub type EventStream = BoxStream<'static, Result<StreamEvent>>;

/// A model that streams. Object-safe so the app can hold `Arc<dyn ModelClient>`.
///
/// Contract: the future resolves once the provider accepted the request (or
/// with its error); the stream then yields events and ends after
/// `StreamEvent::Stop`, or yields one `Err` and ends. Cancelling `cancel`
/// makes the stream yield `Error::Cancelled` promptly and drops the
/// connection; dropping the stream does the same silently.
pub trait ModelClient: Send + Sync + std::fmt::Debug {
    fn stream(
        &self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<EventStream>>;
}

/// What the app knows about one model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelDescriptor {
    /// The provider's model id (without the `provider:` prefix).
    pub id: String,
    pub name: String,
    pub context_window: Option<u32>,
    pub max_output_tokens: Option<u32>,
    pub supports_tools: bool,
    pub supports_vision: bool,
    pub supports_reasoning: bool,
}

impl ModelDescriptor {
    /// A descriptor with only an id; capabilities unknown (tools assumed).
    pub fn bare(id: impl Into<String>) -> Self {
        let id = id.into();
        Self {
            name: id.clone(),
            id,
            context_window: None,
            max_output_tokens: None,
            supports_tools: true,
            supports_vision: false,
            supports_reasoning: false,
        }
    }
}

/// What a provider takes inline in a request, for the attachment inliner
/// (each provider declares its own documented caps).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentLimits {
    /// The provider's name in sentences ("Bedrock takes images up to …").
    pub provider: String,
    /// Whether it takes PDF documents as document parts.
    pub documents: bool,
    /// The largest image it takes, in bytes (before base64).
    pub image_max_bytes: u64,
    /// The largest document it takes, in bytes (before base64).
    pub document_max_bytes: u64,
}

impl AttachmentLimits {
    /// Images up to `image_max_bytes`, no documents.
    pub fn images_only(provider: impl Into<String>, image_max_bytes: u64) -> Self {
        Self {
            provider: provider.into(),
            documents: false,
            image_max_bytes,
            document_max_bytes: 0,
        }
    }
}

/// What one model of one provider can be sent: the provider's limits and
/// whether the model sees images.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentSupport {
    pub vision: bool,
    pub limits: AttachmentLimits,
}

impl Default for AttachmentSupport {
    /// A vision model whose provider takes images up to the transport cap
    /// and no documents (scripted models, tests).
    fn default() -> Self {
        Self {
            vision: true,
            limits: AttachmentLimits::images_only("the provider", u64::MAX),
        }
    }
}
