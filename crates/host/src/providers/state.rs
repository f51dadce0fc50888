//! The host's provider state: saved configs and the model catalog the agent
//! resolves `provider:model` through.

use super::LocalProbe;
use super::config::{SecretRef, StoredProvider, read_env};
use super::errors::llm_error;
use crate::HostError;
use crate::secrets::{SecretError, SecretStore};
use crate::settings::keys;
use pizza_protocol::{ApiError, ErrorCode};
use pizza_providers::{
    ModelCatalog, Provider, TransportConfig, build_provider, provider_descriptors,
};
use pizza_store::Store;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

pub(crate) const OLLAMA: &str = "ollama";

/// Providers: saved configs and their secrets, the model catalog, the
/// default model and context overrides, and where to look for local servers.
#[derive(Debug)]
pub(crate) struct ProviderService {
    pub(super) store: Store,
    pub(crate) catalog: ModelCatalog,
    secrets: Arc<dyn SecretStore>,
    transport: TransportConfig,
    pub(super) local_probes: Vec<LocalProbe>,
    loaded: tokio::sync::OnceCell<()>,
    /// Serialises configure/remove so two saves never interleave.
    pub(crate) writes: tokio::sync::Mutex<()>,
    pub(crate) memory: Mutex<Memory>,
}

#[derive(Debug, Default)]
pub(crate) struct Memory {
    pub(crate) configs: BTreeMap<String, StoredProvider>,
    /// Configured providers that could not be built (unreadable key...).
    pub(crate) broken: HashMap<String, ApiError>,
}

impl ProviderService {
    pub(crate) fn new(
        store: Store,
        secrets: Arc<dyn SecretStore>,
        local_probes: Vec<LocalProbe>,
    ) -> Self {
        Self {
            store,
            catalog: ModelCatalog::default(),
            secrets,
            transport: TransportConfig::default(),
            local_probes,
            loaded: tokio::sync::OnceCell::new(),
            writes: tokio::sync::Mutex::new(()),
            memory: Mutex::default(),
        }
    }

    pub(crate) fn memory(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.memory.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn transport(&self) -> TransportConfig {
        self.transport.clone()
    }

    /// Runs a blocking keychain call off the async workers.
    pub(crate) async fn secrets_call<T, F>(&self, call: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn SecretStore) -> Result<T, SecretError> + Send + 'static,
    {
        let store = Arc::clone(&self.secrets);
        tokio::task::spawn_blocking(move || call(store.as_ref()))
            .await
            .map_err(|e| {
                ApiError::general("The keychain call did not finish.").with_details(e.to_string())
            })?
            .map_err(ApiError::from)
    }

    /// The value behind a stored reference; `None` when the keychain has no
    /// entry (the provider then reports the missing field).
    pub(crate) async fn resolve(&self, reference: &SecretRef) -> Result<Option<String>, ApiError> {
        match reference {
            SecretRef::Env(var) => read_env(var).map(Some),
            SecretRef::Keychain(key) => {
                let key = key.clone();
                self.secrets_call(move |s| s.get(&key)).await
            }
        }
    }

    /// Builds a provider from its saved config, reading its secrets.
    pub(crate) async fn build_stored(
        &self,
        id: &str,
        stored: &StoredProvider,
    ) -> Result<Arc<dyn Provider>, ApiError> {
        let mut values = stored.values.clone();
        for (field, reference) in &stored.secrets {
            if let Some(value) = self.resolve(reference).await? {
                values.insert(field.clone(), value);
            }
        }
        build_provider(id, &values, self.transport()).map_err(|e| llm_error(&e))
    }

    /// The catalog the agent resolves `provider:model` through, with the
    /// saved providers loaded into it.
    pub(crate) async fn model_catalog(&self) -> &ModelCatalog {
        &self.providers_loaded().await.catalog
    }

    /// Loads saved providers into the catalog once (lazily: reading the
    /// keychain can block on a prompt, which must not delay the window).
    pub(crate) async fn providers_loaded(&self) -> &Self {
        self.loaded.get_or_init(|| self.load_providers()).await;
        self
    }

    async fn load_providers(&self) {
        let state = self;
        match keys::CONTEXT_OVERRIDES.read_or_default(&self.store).await {
            Ok(overrides) => {
                for (key, tokens) in overrides {
                    state.catalog.set_context_override(&key, Some(tokens));
                }
            }
            Err(error) => tracing::warn!(%error, "context overrides unreadable"),
        }
        let compatible = keys::COMPATIBLE_PROVIDERS
            .read_or_default(&self.store)
            .await
            .unwrap_or_else(|error| {
                tracing::warn!(%error, "compatible servers unreadable");
                Default::default()
            });
        let ids = provider_descriptors()
            .into_iter()
            .map(|d| d.id.to_owned())
            .chain(compatible);
        for id in ids {
            let id = id.as_str();
            let stored = match keys::provider(id).read(&self.store).await {
                Ok(Some(stored)) => stored,
                Ok(None) => continue,
                Err(error) => {
                    tracing::warn!(provider_id = id, %error, "provider config unreadable");
                    continue;
                }
            };
            let built = state.build_stored(id, &stored).await;
            let mut memory = state.memory();
            memory.configs.insert(id.to_owned(), stored);
            match built {
                Ok(provider) => state.catalog.register(provider),
                Err(error) => {
                    tracing::warn!(provider_id = id, code = %error.code, "configured provider unusable");
                    memory.broken.insert(id.to_owned(), error);
                }
            }
        }
    }

    pub(crate) async fn save_provider_config(
        &self,
        id: &str,
        stored: &StoredProvider,
    ) -> Result<(), ApiError> {
        keys::provider(id)
            .write(&self.store, stored)
            .await
            .map_err(|e| ApiError::from(HostError::from(e)))
    }

    pub(crate) async fn delete_provider_config(&self, id: &str) -> Result<(), ApiError> {
        keys::provider(id)
            .delete(&self.store)
            .await
            .map_err(|e| ApiError::from(HostError::from(e)))
    }
}

pub(crate) fn unknown_provider(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidInput,
        format!("There is no provider “{id}”."),
    )
}
