//! `model_list`, the default model and context-window overrides.

use super::ProviderService;
use super::errors::catalog_status;
use crate::HostError;
use crate::settings::keys;
use pizza_llm::ModelDescriptor;
use pizza_protocol::{
    ApiError, COMPATIBLE_PREFIX, ModelDefault, ModelDefaultGetParams, ModelDefaultSetParams,
    ModelInfo, ModelList, ModelListParams, ModelOverride, ModelOverrideSetParams, ModelPrice,
    ProviderCatalogState,
};
use pizza_providers::{
    CatalogListing, ContextSource, automatic_default_model, provider_descriptors,
};
use std::collections::BTreeMap;

/// Larger than any real model, small enough to catch a typo of zeros.
const CONTEXT_WINDOW_MAX: u32 = 100_000_000;

pub(super) fn model_info(
    provider_id: &str,
    model: &ModelDescriptor,
    listing: &CatalogListing,
    enabled: bool,
) -> ModelInfo {
    let facts = listing.facts.get(&model.id).copied().unwrap_or_default();
    ModelInfo {
        id: format!("{provider_id}:{}", model.id),
        provider: provider_id.to_owned(),
        name: model.name.clone(),
        context_window: model.context_window,
        tools: model.supports_tools,
        vision: model.supports_vision,
        reasoning: model.supports_reasoning,
        enabled,
        context_source: facts.context_source.map(|source| match source {
            ContextSource::Provider => pizza_protocol::ContextSource::Provider,
            ContextSource::Snapshot => pizza_protocol::ContextSource::Catalog,
            ContextSource::Override => pizza_protocol::ContextSource::Override,
        }),
        default_context_window: facts.default_context_window,
        price: facts.price.map(|price| ModelPrice {
            input_micros_per_mtok: price.input_micros_per_mtok,
            output_micros_per_mtok: price.output_micros_per_mtok,
        }),
    }
}

fn store_error(err: pizza_store::Error) -> ApiError {
    ApiError::from(HostError::from(err))
}

/// `provider:model` with both parts present.
fn split_model_key(key: &str) -> Result<(&str, &str), ApiError> {
    pizza_protocol::split_model_id(key).ok_or_else(|| {
        ApiError::invalid_input(format!(
            "“{key}” is not a model id of the form provider:model."
        ))
    })
}

impl ProviderService {
    /// Every listing with the user's enablement applied (disabled models dropped).
    async fn enabled_listings(&self) -> Vec<CatalogListing> {
        let state = self.providers_loaded().await;
        let mut listings = state.catalog.list_all().await;
        for listing in &mut listings {
            let enablement = self.enablement_of(&listing.provider_id);
            listing.models.retain(|m| enablement.allows(&m.id));
        }
        listings
    }

    pub(crate) async fn model_list(&self, params: ModelListParams) -> Result<ModelList, ApiError> {
        let state = self.providers_loaded().await;
        let listings = state.catalog.list_all().await;
        let mut names: BTreeMap<String, String> = provider_descriptors()
            .iter()
            .map(|d| (d.id.to_owned(), d.display_name.to_owned()))
            .collect();
        names.extend(
            self.memory()
                .configs
                .iter()
                .filter(|(id, _)| id.starts_with(COMPATIBLE_PREFIX))
                .filter_map(|(id, stored)| Some((id.clone(), stored.values.get("name")?.clone()))),
        );
        let mut models = Vec::new();
        let mut providers = Vec::new();
        for listing in &listings {
            let id = listing.provider_id.as_str();
            let enablement = self.enablement_of(id);
            providers.push(ProviderCatalogState {
                id: id.to_owned(),
                name: names.get(id).cloned().unwrap_or_else(|| id.to_owned()),
                status: catalog_status(&listing.status),
            });
            models.extend(
                listing
                    .models
                    .iter()
                    .map(|m| model_info(id, m, listing, enablement.allows(&m.id)))
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
