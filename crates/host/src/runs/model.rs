//! Which model a run uses: the one asked for, else the thread's, else the
//! default model; resolved through the host's [`ModelCatalog`](pizza_providers::ModelCatalog).
//!
//! Tests and benchmarks inject a scripted model by registering a provider in
//! that catalog (`host.model_catalog().await.register(..)`), so they exercise
//! the same resolution path as the app.

use std::sync::Arc;

use pizza_llm::ModelClient;
use pizza_protocol::{ApiError, ErrorCode};

use super::RunService;

/// A model ready to be called.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedModel {
    /// `provider:model`.
    pub(crate) key: String,
    pub(crate) client: Arc<dyn ModelClient>,
    /// The provider's model id.
    pub(crate) model_id: String,
    pub(crate) context_window: Option<u32>,
    /// What the model can be sent of the thread's attachments.
    pub(crate) attachments: pizza_llm::AttachmentSupport,
}

impl RunService {
    pub(crate) async fn resolve_model(
        &self,
        requested: Option<&str>,
        thread_model: Option<&str>,
    ) -> Result<ResolvedModel, ApiError> {
        let chosen = requested
            .or(thread_model)
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(str::to_owned);
        let key = match chosen {
            Some(key) => key,
            None => self.providers.default_model().await?.ok_or_else(|| {
                ApiError::new(
                    ErrorCode::ModelUnavailable,
                    "No model is available. Add a provider in Settings.",
                )
            })?,
        };
        let catalog = self.providers.model_catalog().await;
        let (client, model_id) = catalog.resolve(&key).map_err(|e| {
            ApiError::new(
                ErrorCode::ModelUnavailable,
                format!("The model “{key}” cannot be used."),
            )
            .with_details(e.to_string())
        })?;
        Ok(ResolvedModel {
            context_window: catalog.context_window(&key, None),
            attachments: catalog.attachment_support(&key).unwrap_or_default(),
            key,
            client,
            model_id,
        })
    }
}
