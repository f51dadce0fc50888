//! The person's own OpenAI-compatible servers (LM Studio, llama.cpp, vLLM,
//! a company gateway): each a provider of its own, `compatible:<slug>`,
//! with its own status, models, enablement and keychain entry.

use super::ProviderService;
use crate::HostError;
use crate::settings::keys;
use pizza_protocol::{ApiError, ErrorCode, ProviderAddParams, ProviderInfo};
use pizza_providers::{compatible_id, provider_descriptor};
use std::collections::BTreeMap;

/// Long enough for "Company gateway (staging, EU)".
const NAME_MAX_CHARS: usize = 60;

impl ProviderService {
    pub(crate) async fn provider_add(
        &self,
        params: ProviderAddParams,
    ) -> Result<ProviderInfo, ApiError> {
        let state = self.providers_loaded().await;
        let name = params.name.trim();
        if name.is_empty() {
            return Err(ApiError::invalid_input("Give the server a name."));
        }
        if name.chars().count() > NAME_MAX_CHARS {
            return Err(ApiError::invalid_input(format!(
                "A server name is at most {NAME_MAX_CHARS} characters."
            )));
        }
        let id = compatible_id(name).ok_or_else(|| {
            ApiError::invalid_input("A server name needs at least one letter or digit.")
        })?;
        let descriptor = provider_descriptor(&id)
            .ok_or_else(|| ApiError::general("The compatible-server form is missing."))?;
        let _write = state.writes.lock().await;
        if state.memory().configs.contains_key(&id) {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!("There is already a server named like “{name}”; choose another name."),
            ));
        }
        let fields = BTreeMap::from([
            ("name".to_owned(), name.to_owned()),
            ("base_url".to_owned(), params.base_url),
            ("api_key".to_owned(), params.api_key),
        ]);
        // Saved (and validated) before it is listed: a crash in between
        // leaves an orphaned config, never a listed server without one.
        let info = self
            .configure_locked(&id, &descriptor, &fields, None)
            .await?;
        let mut ids = keys::COMPATIBLE_PROVIDERS
            .read_or_default(&self.store)
            .await
            .map_err(|e| ApiError::from(HostError::from(e)))?;
        ids.insert(id.clone());
        keys::COMPATIBLE_PROVIDERS
            .write(&self.store, &ids)
            .await
            .map_err(|e| ApiError::from(HostError::from(e)))?;
        tracing::info!(provider_id = %id, "compatible server added");
        Ok(info)
    }

    /// Takes `id` off the list of compatible servers.
    pub(super) async fn forget_compatible(&self, id: &str) -> Result<(), ApiError> {
        let mut ids = keys::COMPATIBLE_PROVIDERS
            .read_or_default(&self.store)
            .await
            .map_err(|e| ApiError::from(HostError::from(e)))?;
        if ids.remove(id) {
            keys::COMPATIBLE_PROVIDERS
                .write(&self.store, &ids)
                .await
                .map_err(|e| ApiError::from(HostError::from(e)))?;
        }
        Ok(())
    }
}
