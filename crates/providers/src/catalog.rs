//! The model catalog: listings per provider with a short cache, in-flight
//! de-duplication and last-good fallback; context limits; the registry
//! keyed `provider:model`.

mod default_pick;
mod descriptor;
mod facts;
mod snapshot;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use pizza_llm::{AttachmentSupport, Error, ModelClient, ModelDescriptor, Result};

pub use default_pick::automatic_default_model;
pub use descriptor::{
    AuthField, COMPATIBLE_PREFIX, FieldKind, OPENROUTER_BASE_URL, ProviderDescriptor,
    build_provider, compatible_id, provider_descriptor, provider_descriptors,
};
pub use facts::{ContextSource, ModelFacts, ModelPrice};
pub use snapshot::snapshot_model;

use crate::Provider;

/// How a provider's listing stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogStatus {
    Ready,
    /// The last fetch failed; `models` is the last good list.
    Degraded {
        code: &'static str,
        retryable: bool,
    },
    /// No list has ever been fetched.
    Error {
        code: &'static str,
        retryable: bool,
    },
}

/// One provider's models as the UI shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogListing {
    pub provider_id: String,
    pub status: CatalogStatus,
    pub models: Vec<ModelDescriptor>,
    /// Per model id: where its context window comes from, its price.
    pub facts: BTreeMap<String, ModelFacts>,
}

type Fetch = Shared<BoxFuture<'static, Result<Vec<ModelDescriptor>>>>;

#[derive(Default)]
struct Entry {
    fetched_at: Option<Instant>,
    last_good: Option<Vec<ModelDescriptor>>,
    status: Option<CatalogStatus>,
    in_flight: Option<Fetch>,
}

#[derive(Default)]
struct State {
    entries: HashMap<String, Entry>,
    /// `provider:model` → context window the user set.
    overrides: HashMap<String, u32>,
}

/// Configured providers and their listings. Cheap to clone.
#[derive(Clone)]
pub struct ModelCatalog {
    providers: Arc<Mutex<HashMap<String, Arc<dyn Provider>>>>,
    state: Arc<Mutex<State>>,
    ttl: Duration,
}

impl std::fmt::Debug for ModelCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelCatalog")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl Default for ModelCatalog {
    fn default() -> Self {
        Self::new(Duration::from_secs(30))
    }
}

impl ModelCatalog {
    /// `ttl`: how long a listing is served from cache (30 s in the app).
    pub fn new(ttl: Duration) -> Self {
        Self {
            providers: Arc::default(),
            state: Arc::default(),
            ttl,
        }
    }

    /// Adds or replaces a provider (a settings change); its cache is dropped.
    pub fn register(&self, provider: Arc<dyn Provider>) {
        let id = provider.provider_id().to_owned();
        lock(&self.state).entries.remove(&id);
        lock(&self.providers).insert(id, provider);
    }

    /// Makes the next [`list`](Self::list) fetch again, keeping the last good
    /// list so a failed retry reads as `Degraded`, not as an empty `Error`.
    pub fn invalidate(&self, provider_id: &str) {
        if let Some(entry) = lock(&self.state).entries.get_mut(provider_id) {
            entry.fetched_at = None;
        }
    }

    pub fn unregister(&self, provider_id: &str) {
        lock(&self.state).entries.remove(provider_id);
        lock(&self.providers).remove(provider_id);
    }

    pub fn provider_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = lock(&self.providers).keys().cloned().collect();
        ids.sort();
        ids
    }

    /// A user's context-window override for `provider:model`; wins over
    /// provider metadata and the snapshot. `None` clears it.
    pub fn set_context_override(&self, key: &str, tokens: Option<u32>) {
        let mut state = lock(&self.state);
        match tokens {
            Some(tokens) => state.overrides.insert(key.to_owned(), tokens),
            None => state.overrides.remove(key),
        };
    }

    /// The provider id, model id and configured provider of `provider:model`.
    fn provider_of<'k>(&self, key: &'k str) -> Result<(&'k str, &'k str, Arc<dyn Provider>)> {
        let (provider_id, model) = split_key(key)?;
        let provider = lock(&self.providers)
            .get(provider_id)
            .cloned()
            .ok_or_else(|| Error::ModelUnavailable {
                model: key.to_owned(),
                provider_message: format!("provider `{provider_id}` is not configured"),
            })?;
        Ok((provider_id, model, provider))
    }

    /// The client and provider model id for `provider:model`.
    pub fn resolve(&self, key: &str) -> Result<(Arc<dyn ModelClient>, String)> {
        let (_, model, provider) = self.provider_of(key)?;
        let client: Arc<dyn ModelClient> = provider;
        Ok((client, model.to_owned()))
    }

    /// What `provider:model` can be sent. Vision comes from the provider's
    /// listing, else the bundled snapshot; a model neither knows is trusted
    /// with images (the person chose to attach them), so only a model known
    /// to be blind gets the "no vision" notice instead.
    pub fn attachment_support(&self, key: &str) -> Result<AttachmentSupport> {
        let (provider_id, model, provider) = self.provider_of(key)?;
        let listed = lock(&self.state)
            .entries
            .get(provider_id)
            .and_then(|entry| entry.last_good.as_ref())
            .and_then(|models| models.iter().find(|m| m.id == model).cloned());
        let known = snapshot_model(model);
        let vision = match (&listed, &known) {
            (None, None) => true,
            _ => {
                listed.as_ref().is_some_and(|m| m.supports_vision)
                    || known.as_ref().is_some_and(|m| m.supports_vision)
            }
        };
        Ok(AttachmentSupport {
            vision,
            limits: provider.attachment_limits(),
        })
    }

    /// The effective context window of `provider:model`.
    pub fn context_window(&self, key: &str, reported: Option<u32>) -> Option<u32> {
        if let Some(tokens) = lock(&self.state).overrides.get(key) {
            return Some(*tokens);
        }
        let model = split_key(key).map(|(_, model)| model).unwrap_or(key);
        reported.or_else(|| snapshot_model(model).and_then(|m| m.context_window))
    }

    /// One provider's listing: cached for `ttl`, concurrent callers share
    /// one fetch, a failed fetch keeps the last good list (`Degraded`).
    pub async fn list(&self, provider_id: &str) -> Result<CatalogListing> {
        let fetch = {
            let mut state = lock(&self.state);
            let entry = state.entries.entry(provider_id.to_owned()).or_default();
            let fresh = entry.fetched_at.is_some_and(|at| at.elapsed() < self.ttl);
            match (&entry.status, fresh, &entry.in_flight) {
                (Some(status), true, _) => {
                    let status = status.clone();
                    let models = entry.last_good.clone().unwrap_or_default();
                    drop(state);
                    return Ok(self.listing(provider_id, status, models));
                }
                (_, _, Some(fetch)) => fetch.clone(),
                _ => {
                    let provider =
                        lock(&self.providers)
                            .get(provider_id)
                            .cloned()
                            .ok_or_else(|| {
                                Error::invalid_input(format!(
                                    "provider `{provider_id}` is not configured"
                                ))
                            })?;
                    let fetch = async move { provider.list_models().await }.boxed().shared();
                    entry.in_flight = Some(fetch.clone());
                    fetch
                }
            }
        };
        let outcome = fetch.await;
        let (status, models) = {
            let mut state = lock(&self.state);
            let entry = state.entries.entry(provider_id.to_owned()).or_default();
            // Only the first waiter records the outcome.
            if entry.in_flight.take().is_some() {
                entry.fetched_at = Some(Instant::now());
                match &outcome {
                    Ok(models) => {
                        entry.last_good = Some(models.clone());
                        entry.status = Some(CatalogStatus::Ready);
                    }
                    Err(error) => {
                        tracing::warn!(provider_id, code = error.code(), %error, "model listing failed");
                        let (code, retryable) = (error.code(), error.retryable());
                        entry.status = Some(if entry.last_good.is_some() {
                            CatalogStatus::Degraded { code, retryable }
                        } else {
                            CatalogStatus::Error { code, retryable }
                        });
                    }
                }
            }
            let status = entry.status.clone().unwrap_or(CatalogStatus::Ready);
            (status, entry.last_good.clone().unwrap_or_default())
        };
        Ok(self.listing(provider_id, status, models))
    }

    /// Every provider's listing, fetched concurrently.
    pub async fn list_all(&self) -> Vec<CatalogListing> {
        let ids = self.provider_ids();
        let listings = futures::future::join_all(ids.iter().map(|id| self.list(id))).await;
        listings.into_iter().filter_map(Result::ok).collect()
    }

    /// Fills gaps from the snapshot and applies overrides.
    fn listing(
        &self,
        provider_id: &str,
        status: CatalogStatus,
        models: Vec<ModelDescriptor>,
    ) -> CatalogListing {
        let provider = lock(&self.providers).get(provider_id).cloned();
        let overrides = lock(&self.state).overrides.clone();
        let mut facts = BTreeMap::new();
        let models = models
            .into_iter()
            .map(|mut model| {
                let mut source = model.context_window.map(|_| ContextSource::Provider);
                if let Some(known) = snapshot_model(&model.id) {
                    if model.context_window.is_none() && known.context_window.is_some() {
                        source = Some(ContextSource::Snapshot);
                    }
                    model.context_window = model.context_window.or(known.context_window);
                    model.max_output_tokens = model.max_output_tokens.or(known.max_output_tokens);
                    model.supports_vision |= known.supports_vision;
                    model.supports_reasoning |= known.supports_reasoning;
                    if model.name == model.id {
                        model.name = known.name;
                    }
                }
                let default_context_window = model.context_window;
                let key = format!("{provider_id}:{}", model.id);
                if let Some(tokens) = overrides.get(&key) {
                    model.context_window = Some(*tokens);
                    source = Some(ContextSource::Override);
                }
                facts.insert(
                    model.id.clone(),
                    ModelFacts {
                        context_source: source,
                        default_context_window,
                        price: provider.as_ref().and_then(|p| p.price(&model.id)),
                    },
                );
                model
            })
            .collect();
        CatalogListing {
            provider_id: provider_id.to_owned(),
            status,
            models,
            facts,
        }
    }
}

/// `provider:model`; a compatible server's provider id has a colon of its
/// own (`compatible:lm-studio:qwen3:8b`), model ids may too (`qwen3:8b`).
pub fn split_key(key: &str) -> Result<(&str, &str)> {
    let split = match key.strip_prefix(COMPATIBLE_PREFIX) {
        Some(rest) => rest
            .find(':')
            .map(|at| key.split_at(COMPATIBLE_PREFIX.len() + at))
            .map(|(provider, model)| (provider, &model[1..])),
        None => key.split_once(':'),
    };
    split
        .filter(|(provider, model)| !provider.is_empty() && !model.is_empty())
        .ok_or_else(|| Error::invalid_input(format!("`{key}` is not a `provider:model` id")))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
