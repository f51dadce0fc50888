//! `model_list`, the default model and context-window overrides.

use super::ProviderService;
use super::errors::catalog_status;
use crate::HostError;
use crate::settings::keys;
use pizza_llm::ModelDescriptor;
use pizza_protocol::{
    ApiError, ModelDefault, ModelDefaultGetParams, ModelDefaultSetParams, ModelInfo, ModelList,
    ModelListParams, ModelOverride, ModelOverrideSetParams, ProviderCatalogState,
};
use pizza_providers::{CatalogListing, automatic_default_model, provider_descriptors};
use std::collections::BTreeMap;

/// Larger than any real model, small enough to catch a typo of zeros.
const CONTEXT_WINDOW_MAX: u32 = 100_000_000;

pub(super) fn model_info(provider_id: &str, model: &ModelDescriptor, enabled: bool) -> ModelInfo {
    ModelInfo {
        id: format!("{provider_id}:{}", model.id),
        provider: provider_id.to_owned(),
        name: model.name.clone(),
        context_window: model.context_window,
        tools: model.supports_tools,
        vision: model.supports_vision,
        reasoning: model.supports_reasoning,
        enabled,
    }
}

fn store_error(err: pizza_store::Error) -> ApiError {
    ApiError::from(HostError::from(err))
}

/// `provider:model` with both parts present.
fn split_model_key(key: &str) -> Result<(&str, &str), ApiError> {
    key.split_once(':')
        .filter(|(p, m)| !p.is_empty() && !m.is_empty())
        .ok_or_else(|| {
            ApiError::invalid_input(format!(
                "“{key}” is not a model id of the form provider:model."
            ))
        })
}

impl ProviderService {
    /// Every listing with the user's enablement applied (disabled models dropped).
    async fn enabled_listings(&self) -> Vec<CatalogListing> {
        let state = self.providers_loaded().await;
        self.detect_ollama().await;
        let mut listings = state.catalog.list_all().await;
        for listing in &mut listings {
            let enablement = self.enablement_of(&listing.provider_id);
            listing.models.retain(|m| enablement.allows(&m.id));
        }
        listings
    }

    pub(crate) async fn model_list(&self, params: ModelListParams) -> Result<ModelList, ApiError> {
        let state = self.providers_loaded().await;
        self.detect_ollama().await;
        let listings = state.catalog.list_all().await;
        let names: BTreeMap<&str, &str> = provider_descriptors()
            .iter()
            .map(|d| (d.id, d.display_name))
            .collect();
        let mut models = Vec::new();
        let mut providers = Vec::new();
        for listing in &listings {
            let id = listing.provider_id.as_str();
            let enablement = self.enablement_of(id);
            providers.push(ProviderCatalogState {
                id: id.to_owned(),
                name: names.get(id).copied().unwrap_or(id).to_owned(),
                status: catalog_status(&listing.status),
            });
            models.extend(
                listing
                    .models
                    .iter()
                    .map(|m| model_info(id, m, enablement.allows(&m.id)))
                    .filter(|m| m.enabled || params.include_disabled),
            );
        }
        Ok(ModelList { models, providers })
    }

    /// The model new work uses: the user's choice, else the automatic pick
    /// (remembered, so a degraded catalog never moves it).
    pub(crate) async fn default_model(&self) -> Result<Option<String>, ApiError> {
        Ok(self
            .model_default_get(ModelDefaultGetParams {})
            .await?
            .effective)
    }

    pub(crate) async fn model_default_get(
        &self,
        _params: ModelDefaultGetParams,
    ) -> Result<ModelDefault, ApiError> {
        let chosen = keys::DEFAULT_MODEL
            .read(&self.store)
            .await
            .map_err(store_error)?;
        if let Some(chosen) = chosen {
            return Ok(ModelDefault {
                chosen: Some(chosen.clone()),
                effective: Some(chosen),
            });
        }
        let remembered = keys::DEFAULT_MODEL_AUTO
            .read(&self.store)
            .await
            .map_err(store_error)?;
        let listings = self.enabled_listings().await;
        let pick = automatic_default_model(remembered.as_deref(), &listings);
        if let Some(pick) = &pick
            && remembered.as_ref() != Some(pick)
        {
            tracing::info!(model = %pick, "automatic default model picked");
            keys::DEFAULT_MODEL_AUTO
                .write(&self.store, pick)
                .await
                .map_err(store_error)?;
        }
        Ok(ModelDefault {
            chosen: None,
            effective: pick,
        })
    }

    /// Refuses a `provider:model` id whose provider is not configured, or
    /// that a complete listing of its provider does not offer.
    pub(crate) async fn check_model_offered(&self, model: &str) -> Result<(), ApiError> {
        let state = self.providers_loaded().await;
        let (provider_id, model_id) = split_model_key(model)?;
        self.detect_ollama().await;
        if !state
            .catalog
            .provider_ids()
            .iter()
            .any(|p| p == provider_id)
        {
            return Err(ApiError::invalid_input(format!(
                "The provider “{provider_id}” is not configured."
            )));
        }
        // Only a complete listing can prove the model is not offered.
        if let Ok(listing) = state.catalog.list(provider_id).await
            && listing.status == pizza_providers::CatalogStatus::Ready
            && !listing.models.iter().any(|m| m.id == model_id)
        {
            return Err(ApiError::invalid_input(format!(
                "The provider “{provider_id}” does not offer “{model_id}”."
            )));
        }
        Ok(())
    }

    pub(crate) async fn model_default_set(
        &self,
        params: ModelDefaultSetParams,
    ) -> Result<ModelDefault, ApiError> {
        match params.model.as_deref().map(str::trim) {
            None | Some("") => {
                keys::DEFAULT_MODEL
                    .delete(&self.store)
                    .await
                    .map_err(store_error)?;
            }
            Some(model) => {
                self.check_model_offered(model).await?;
                keys::DEFAULT_MODEL
                    .write(&self.store, &model.to_owned())
                    .await
                    .map_err(store_error)?;
            }
        }
        self.model_default_get(ModelDefaultGetParams {}).await
    }

    pub(crate) async fn model_override_set(
        &self,
        params: ModelOverrideSetParams,
    ) -> Result<ModelOverride, ApiError> {
        let state = self.providers_loaded().await;
        let model = params.model.trim();
        split_model_key(model)?;
        if let Some(tokens) = params.context_window
            && !(1..=CONTEXT_WINDOW_MAX).contains(&tokens)
        {
            return Err(ApiError::invalid_input(format!(
                "A context window is between 1 and {CONTEXT_WINDOW_MAX} tokens."
            )));
        }
        let _write = state.writes.lock().await;
        let mut overrides = keys::CONTEXT_OVERRIDES
            .read_or_default(&self.store)
            .await
            .map_err(store_error)?;
        match params.context_window {
            Some(tokens) => overrides.insert(model.to_owned(), tokens),
            None => overrides.remove(model),
        };
        keys::CONTEXT_OVERRIDES
            .write(&self.store, &overrides)
            .await
            .map_err(store_error)?;
        state
            .catalog
            .set_context_override(model, params.context_window);
        Ok(ModelOverride {
            model: model.to_owned(),
            context_window: params.context_window,
        })
    }
}
