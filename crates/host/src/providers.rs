//! `provider_list` / `provider_configure` / `provider_remove` / `provider_test`,
//! and the person's own OpenAI-compatible servers (`provider_add`).
//!
//! Secrets go to the [`SecretStore`](crate::SecretStore) (the OS keychain);
//! the database keeps only references. No answer ever carries a secret.

mod compatible;
mod config;
mod errors;
mod local;
mod models;
mod state;

pub(crate) use config::StoredProvider;
pub use local::{LOCAL_PROBES_ENV, LocalProbe};
pub(crate) use state::ProviderService;

use crate::Host;
use config::{
    SecretInput, SecretRef, keychain_key, parse_secret_input, read_env, validate_enablement,
};
use errors::{catalog_status, error_status, llm_error};
use pizza_protocol::{
    ApiError, AuthField, AuthFieldKind, COMPATIBLE_PREFIX, LocalServerList, ModelEnablement,
    ModelInfo, ProviderAddParams, ProviderConfigureParams, ProviderDiscoverParams,
    ProviderIdParams, ProviderInfo, ProviderList, ProviderListParams, ProviderStatus,
    ProviderTestResult,
};
use pizza_protocol::{
    ModelDefault, ModelDefaultGetParams, ModelDefaultSetParams, ModelList, ModelListParams,
    ModelOverride, ModelOverrideSetParams,
};
use pizza_providers::ModelCatalog;
use pizza_providers::{
    FieldKind, ProviderDescriptor, build_provider, provider_descriptor, provider_descriptors,
};
use state::unknown_provider;
use std::collections::BTreeMap;

fn descriptor(id: &str) -> Result<ProviderDescriptor, ApiError> {
    provider_descriptor(id).ok_or_else(|| unknown_provider(id))
}

/// A provider's name in the window: a compatible server's own name.
fn display_name(
    id: &str,
    descriptor: &ProviderDescriptor,
    stored: Option<&StoredProvider>,
) -> String {
    stored
        .filter(|_| id.starts_with(COMPATIBLE_PREFIX))
        .and_then(|s| s.values.get("name").cloned())
        .unwrap_or_else(|| descriptor.display_name.to_owned())
}

impl ProviderService {
    pub(crate) async fn provider_list(
        &self,
        _params: ProviderListParams,
    ) -> Result<ProviderList, ApiError> {
        self.providers_loaded().await;
        let compatible: Vec<String> = self
            .memory()
            .configs
            .keys()
            .filter(|id| id.starts_with(COMPATIBLE_PREFIX))
            .cloned()
            .collect();
        let ids: Vec<String> = provider_descriptors()
            .iter()
            .map(|d| d.id.to_owned())
            .chain(compatible)
            .collect();
        let statuses =
            futures::future::join_all(ids.iter().map(|id| self.provider_status(id))).await;
        let providers = ids
            .iter()
            .zip(statuses)
            .filter_map(|(id, status)| {
                let descriptor = provider_descriptor(id)?;
                Some(self.provider_info(id, &descriptor, status))
            })
            .collect();
        Ok(ProviderList { providers })
    }

    pub(crate) async fn provider_configure(
        &self,
        params: ProviderConfigureParams,
    ) -> Result<ProviderInfo, ApiError> {
        let state = self.providers_loaded().await;
        let id = params.id.trim();
        let descriptor = descriptor(id)?;
        let _write = state.writes.lock().await;
        // A compatible server is made by `provider_add`; configure edits it.
        if id.starts_with(COMPATIBLE_PREFIX) && !state.memory().configs.contains_key(id) {
            return Err(ApiError::not_found(format!(
                "There is no server “{id}”; add it first."
            )));
        }
        self.configure_locked(id, &descriptor, &params.fields, params.enablement)
            .await
    }

    /// Validates and saves `fields`; the caller holds `writes`.
    pub(super) async fn configure_locked(
        &self,
        id: &str,
        descriptor: &ProviderDescriptor,
        fields: &BTreeMap<String, String>,
        enablement: Option<ModelEnablement>,
    ) -> Result<ProviderInfo, ApiError> {
        let state = self;
        if let Some(unknown) = fields
            .keys()
            .find(|k| !descriptor.fields.iter().any(|f| f.key == k.as_str()))
        {
            return Err(ApiError::invalid_input(format!(
                "{} has no setting “{unknown}”.",
                descriptor.display_name
            )));
        }
        let previous = state.memory().configs.get(id).cloned();
        let mut next = previous.clone().unwrap_or_default();
        if let Some(enablement) = enablement {
            validate_enablement(&enablement)?;
            next.enablement = enablement;
        }
        // Secrets typed in now: written to the keychain only once everything validated.
        let mut new_secrets: Vec<(String, String)> = Vec::new();
        for field in &descriptor.fields {
            let Some(input) = fields.get(field.key) else {
                continue;
            };
            if field.secret {
                match parse_secret_input(input)? {
                    SecretInput::Keep => {}
                    SecretInput::Env(var) => {
                        read_env(var)?;
                        next.secrets
                            .insert(field.key.to_owned(), SecretRef::Env(var.to_owned()));
                    }
                    SecretInput::Value(value) => {
                        new_secrets.push((field.key.to_owned(), value.to_owned()));
                        let key = keychain_key(id, field.key);
                        next.secrets
                            .insert(field.key.to_owned(), SecretRef::Keychain(key));
                    }
                }
            } else if input.trim().is_empty() {
                next.values.remove(field.key);
            } else {
                next.values
                    .insert(field.key.to_owned(), input.trim().to_owned());
            }
        }

        // Validate with the real values: typed-in, env, or already stored.
        let mut resolved = next.values.clone();
        for (field, reference) in &next.secrets {
            let typed = new_secrets
                .iter()
                .find(|(k, _)| k == field)
                .map(|(_, v)| v.clone());
            let value = match typed {
                Some(value) => Some(value),
                None => state.resolve(reference).await?,
            };
            if let Some(value) = value {
                resolved.insert(field.clone(), value);
            }
        }
        let provider =
            build_provider(id, &resolved, state.transport()).map_err(|e| llm_error(&e))?;

        for (field, value) in new_secrets {
            let key = keychain_key(id, &field);
            state.secrets_call(move |s| s.set(&key, &value)).await?;
        }
        self.save_provider_config(id, &next).await?;
        // A secret that moved from the keychain to `${ENV_VAR}` leaves no copy behind.
        for (field, old) in previous.map(|p| p.secrets).unwrap_or_default() {
            if let SecretRef::Keychain(key) = old
                && !matches!(next.secrets.get(&field), Some(SecretRef::Keychain(_)))
            {
                self.delete_secret_quietly(id, key).await;
            }
        }
        {
            let mut memory = state.memory();
            memory.configs.insert(id.to_owned(), next);
            memory.broken.remove(id);
        }
        state.catalog.register(provider);
        tracing::info!(provider_id = id, "provider configured");
        let status = self.provider_status(id).await;
        Ok(self.provider_info(id, descriptor, status))
    }

    pub(crate) async fn provider_remove(
        &self,
        params: ProviderIdParams,
    ) -> Result<ProviderList, ApiError> {
        let state = self.providers_loaded().await;
        let id = params.id.trim();
        let descriptor = descriptor(id)?;
        {
            let _write = state.writes.lock().await;
            let Some(stored) = state.memory().configs.get(id).cloned() else {
                return Err(ApiError::not_found(format!(
                    "{} is not configured.",
                    display_name(id, &descriptor, None)
                )));
            };
            if id.starts_with(COMPATIBLE_PREFIX) {
                // Off the list first: a crash between the two writes leaves
                // an orphaned config, never a listed server without one.
                self.forget_compatible(id).await?;
            }
            self.delete_provider_config(id).await?;
            {
                let mut memory = state.memory();
                memory.configs.remove(id);
                memory.broken.remove(id);
            }
            state.catalog.unregister(id);
            for reference in stored.secrets.into_values() {
                if let SecretRef::Keychain(key) = reference {
                    self.delete_secret_quietly(id, key).await;
                }
            }
            tracing::info!(provider_id = id, "provider removed");
        }
        self.provider_list(ProviderListParams {}).await
    }

    /// Lists the provider's models now, bypassing the cache; a failure is a
    /// status in the answer, not an error of the command.
    pub(crate) async fn provider_test(
        &self,
        params: ProviderIdParams,
    ) -> Result<ProviderTestResult, ApiError> {
        let state = self.providers_loaded().await;
        let id = params.id.trim();
        let descriptor = descriptor(id)?;
        // A working provider is only asked again: rebuilding it would drop the
        // last good list that a failed retry must keep (Degraded, not Error).
        let healthy = !state.memory().broken.contains_key(id)
            && state.catalog.provider_ids().iter().any(|p| p == id);
        if healthy {
            state.catalog.invalidate(id);
            let listing = state.catalog.list(id).await.map_err(|e| llm_error(&e))?;
            let enablement = self.enablement_of(id);
            return Ok(ProviderTestResult {
                status: catalog_status(&listing.status),
                models: listing
                    .models
                    .iter()
                    .map(|m| models::model_info(id, m, &listing, enablement.allows(&m.id)))
                    .collect::<Vec<ModelInfo>>(),
            });
        }
        let stored = state.memory().configs.get(id).cloned();
        let provider = match stored {
            Some(stored) => state.build_stored(id, &stored).await,
            None => {
                return Err(ApiError::invalid_input(format!(
                    "{} is not configured.",
                    descriptor.display_name
                )));
            }
        };
        let provider = match provider {
            Ok(provider) => provider,
            Err(error) => {
                state.memory().broken.insert(id.to_owned(), error.clone());
                return Ok(ProviderTestResult {
                    status: error_status(&error),
                    models: Vec::new(),
                });
            }
        };
        state.memory().broken.remove(id);
        state.catalog.register(provider);
        let listing = state.catalog.list(id).await.map_err(|e| llm_error(&e))?;
        let enablement = self.enablement_of(id);
        Ok(ProviderTestResult {
            status: catalog_status(&listing.status),
            models: listing
                .models
                .iter()
                .map(|m| models::model_info(id, m, &listing, enablement.allows(&m.id)))
                .collect::<Vec<ModelInfo>>(),
        })
    }

    async fn provider_status(&self, id: &str) -> ProviderStatus {
        let state = self;
        if let Some(error) = state.memory().broken.get(id) {
            return error_status(error);
        }
        if !state.catalog.provider_ids().iter().any(|p| p == id) {
            return ProviderStatus::Unconfigured;
        }
        match state.catalog.list(id).await {
            Ok(listing) => catalog_status(&listing.status),
            Err(error) => error_status(&llm_error(&error)),
        }
    }

    pub(super) fn provider_info(
        &self,
        id: &str,
        descriptor: &ProviderDescriptor,
        status: ProviderStatus,
    ) -> ProviderInfo {
        let memory = self.memory();
        let stored = memory.configs.get(id);
        let fields = descriptor
            .fields
            .iter()
            .map(|f| {
                let reference = stored.and_then(|s| s.secrets.get(f.key));
                AuthField {
                    key: f.key.to_owned(),
                    label: f.label.to_owned(),
                    kind: match &f.kind {
                        FieldKind::Text => AuthFieldKind::Text,
                        FieldKind::Password => AuthFieldKind::Password,
                        FieldKind::Select { options } => AuthFieldKind::Select {
                            options: options.clone(),
                        },
                    },
                    required: f.required,
                    secret: f.secret,
                    default: f.default.clone(),
                    stored: f.secret && reference.is_some(),
                    env_ref: match reference {
                        Some(SecretRef::Env(var)) => Some(format!("${{{var}}}")),
                        _ => None,
                    },
                }
            })
            .collect();
        ProviderInfo {
            id: id.to_owned(),
            name: display_name(id, descriptor, stored),
            status,
            configured: stored.is_some(),
            compatible: id.starts_with(COMPATIBLE_PREFIX),
            fields,
            values: stored.map(|s| s.values.clone()).unwrap_or_default(),
            enablement: stored.map(|s| s.enablement.clone()).unwrap_or_default(),
        }
    }

    fn enablement_of(&self, id: &str) -> pizza_protocol::ModelEnablement {
        let memory = self.memory();
        memory
            .configs
            .get(id)
            .map(|s| s.enablement.clone())
            .unwrap_or_default()
    }

    /// Removing a secret that no config points at any more: a keychain that
    /// is unavailable now must not block the removal, so it is logged only.
    async fn delete_secret_quietly(&self, id: &str, key: String) {
        if let Err(error) = self.secrets_call(move |s| s.delete(&key)).await {
            tracing::warn!(provider_id = id, code = %error.code, "could not delete a keychain entry");
        }
    }
}

impl Host {
    pub(crate) fn providers(&self) -> &ProviderService {
        &self.inner.providers
    }

    /// The catalog the agent resolves `provider:model` through, with the
    /// saved providers loaded into it.
    pub async fn model_catalog(&self) -> &ModelCatalog {
        self.providers().model_catalog().await
    }

    pub async fn provider_list(
        &self,
        params: ProviderListParams,
    ) -> Result<ProviderList, ApiError> {
        self.providers().provider_list(params).await
    }

    pub async fn provider_configure(
        &self,
        params: ProviderConfigureParams,
    ) -> Result<ProviderInfo, ApiError> {
        self.providers().provider_configure(params).await
    }

    pub async fn provider_remove(
        &self,
        params: ProviderIdParams,
    ) -> Result<ProviderList, ApiError> {
        self.providers().provider_remove(params).await
    }

    /// Lists the provider's models now, bypassing the cache; a failure is a
    /// status in the answer, not an error of the command.
    pub async fn provider_test(
        &self,
        params: ProviderIdParams,
    ) -> Result<ProviderTestResult, ApiError> {
        self.providers().provider_test(params).await
    }

    /// Adds one of the person's OpenAI-compatible servers as its own provider.
    pub async fn provider_add(&self, params: ProviderAddParams) -> Result<ProviderInfo, ApiError> {
        self.providers().provider_add(params).await
    }

    /// Looks for model servers on this machine (short timeouts).
    pub async fn provider_discover(
        &self,
        params: ProviderDiscoverParams,
    ) -> Result<LocalServerList, ApiError> {
        self.providers().provider_discover(params).await
    }

    pub async fn model_list(&self, params: ModelListParams) -> Result<ModelList, ApiError> {
        self.providers().model_list(params).await
    }

    /// The model new work uses: the user's choice, else the automatic pick
    /// (remembered, so a degraded catalog never moves it).
    pub async fn default_model(&self) -> Result<Option<String>, ApiError> {
        self.providers().default_model().await
    }

    pub async fn model_default_get(
        &self,
        params: ModelDefaultGetParams,
    ) -> Result<ModelDefault, ApiError> {
        self.providers().model_default_get(params).await
    }

    pub async fn model_default_set(
        &self,
        params: ModelDefaultSetParams,
    ) -> Result<ModelDefault, ApiError> {
        self.providers().model_default_set(params).await
    }

    pub async fn model_override_set(
        &self,
        params: ModelOverrideSetParams,
    ) -> Result<ModelOverride, ApiError> {
        self.providers().model_override_set(params).await
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod compatible_tests;
