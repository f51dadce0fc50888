//! Model providers and models: `provider_*` and `model_*` commands.
//!
//! No DTO here ever carries a secret value: a secret field only says whether
//! one is stored (and, for the `${ENV_VAR}` form, which variable it names).

use crate::ErrorCode;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a provider stands right now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ProviderStatus {
    /// Configured (or detected) and its model list loaded.
    Ready,
    /// The last model listing failed; the models shown are the last good list.
    Degraded {
        code: ErrorCode,
        retryable: bool,
        message: String,
    },
    /// Configured but unusable: no model list was ever loaded, or its key
    /// could not be read.
    Error {
        code: ErrorCode,
        retryable: bool,
        message: String,
    },
    /// Not configured.
    Unconfigured,
}

/// How the settings form renders a field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AuthFieldKind {
    Text,
    Password,
    Select { options: Vec<String> },
}

/// One field of a provider's settings form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthField {
    pub key: String,
    pub label: String,
    pub kind: AuthFieldKind,
    pub required: bool,
    /// Kept in the OS keychain (or read from an environment variable).
    pub secret: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// For a secret: whether a value is stored. Never the value itself.
    #[serde(default)]
    pub stored: bool,
    /// For a secret given as `${ENV_VAR}`: that reference (not a secret).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_ref: Option<String>,
}

/// Which of a provider's models the model picker offers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ModelEnablement {
    #[default]
    All,
    /// Only these provider model ids (without the `provider:` prefix).
    Selected { models: Vec<String> },
}

impl ModelEnablement {
    pub fn allows(&self, model_id: &str) -> bool {
        match self {
            Self::All => true,
            Self::Selected { models } => models.iter().any(|m| m == model_id),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderInfo {
    pub id: String,
    pub name: String,
    pub status: ProviderStatus,
    /// Saved by the user.
    pub configured: bool,
    /// One of the person's own OpenAI-compatible servers (`compatible:<slug>`):
    /// named by them, and gone entirely when removed.
    #[serde(default)]
    pub compatible: bool,
    pub fields: Vec<AuthField>,
    /// The stored values of the non-secret fields.
    #[serde(default)]
    pub values: BTreeMap<String, String>,
    #[serde(default)]
    pub enablement: ModelEnablement,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderListParams {}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderList {
    pub providers: Vec<ProviderInfo>,
}

/// Saves a provider's settings. Fields not sent keep their stored value; an
/// empty secret keeps the stored secret; `${ENV_VAR}` reads the secret from
/// that environment variable instead of the keychain.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfigureParams {
    pub id: String,
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enablement: Option<ModelEnablement>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderIdParams {
    pub id: String,
}

/// The outcome of listing a provider's models now, bypassing the cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderTestResult {
    pub status: ProviderStatus,
    pub models: Vec<ModelInfo>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// `provider:model`.
    pub id: String,
    pub provider: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u32>,
    pub tools: bool,
    pub vision: bool,
    pub reasoning: bool,
    pub enabled: bool,
    /// Where `context_window` comes from; `None` when nobody knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_source: Option<ContextSource>,
    /// The window without the person's override: what clearing it restores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_context_window: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<ModelPrice>,
}

/// Where a model's context window comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextSource {
    /// The provider's model listing.
    Provider,
    /// The model catalog bundled with the app.
    Catalog,
    /// The person's own value.
    Override,
}

/// What a model costs, in millionths of a US dollar per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelPrice {
    pub input_micros_per_mtok: u64,
    pub output_micros_per_mtok: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelListParams {
    /// Also list models the user disabled.
    #[serde(default)]
    pub include_disabled: bool,
}

/// A provider's catalog state next to its models, for a Retry affordance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderCatalogState {
    pub id: String,
    pub name: String,
    pub status: ProviderStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelList {
    pub models: Vec<ModelInfo>,
    pub providers: Vec<ProviderCatalogState>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelDefaultGetParams {}

/// The default model: the user's choice, else the automatic pick.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelDefault {
    /// What the user chose; `None` means "Automatic".
    #[serde(default)]
    pub chosen: Option<String>,
    /// The model new threads use: the choice, else the automatic pick.
    #[serde(default)]
    pub effective: Option<String>,
}

/// `model: None` switches back to the automatic pick.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelDefaultSetParams {
    #[serde(default)]
    pub model: Option<String>,
}

/// Sets (or with `None` clears) the context window of `provider:model`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelOverrideSetParams {
    pub model: String,
    #[serde(default)]
    pub context_window: Option<u32>,
}

/// Adds one of the person's OpenAI-compatible servers (LM Studio,
/// llama.cpp, vLLM, a company gateway) as a provider of its own, with an id
/// made from its name (`compatible:<slug>`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderAddParams {
    pub name: String,
    pub base_url: String,
    /// A key, `${ENV_VAR}`, or blank for servers that need none.
    #[serde(default)]
    pub api_key: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderDiscoverParams {}

/// A kind of model server that runs on the person's own machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LocalServerKind {
    Ollama,
    LlamaCpp,
    LmStudio,
}

/// A model server found answering on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalServer {
    pub kind: LocalServerKind,
    /// "Ollama", "llama.cpp server", "LM Studio".
    pub name: String,
    /// What adding it configures (`http://127.0.0.1:1234/v1`).
    pub base_url: String,
    /// The models it offers now.
    pub models: Vec<String>,
    /// The provider already configured at this address, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalServerList {
    pub servers: Vec<LocalServer>,
}

/// The provider id of a compatible server: `compatible:<slug>`.
pub const COMPATIBLE_PREFIX: &str = "compatible:";

/// Splits `provider:model`; a compatible server's id has a colon of its own
/// (`compatible:lm-studio:qwen3:8b`), and model ids may too (`qwen3:8b`).
pub fn split_model_id(id: &str) -> Option<(&str, &str)> {
    let (provider, model) = match id.strip_prefix(COMPATIBLE_PREFIX) {
        Some(rest) => {
            let at = COMPATIBLE_PREFIX.len() + rest.find(':')?;
            (&id[..at], &id[at + 1..])
        }
        None => id.split_once(':')?,
    };
    (!provider.is_empty() && !model.is_empty()).then_some((provider, model))
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelOverride {
    pub model: String,
    #[serde(default)]
    pub context_window: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn status_and_kind_are_tagged() {
        let status = ProviderStatus::Degraded {
            code: ErrorCode::Timeout,
            retryable: true,
            message: "Slow.".into(),
        };
        assert_eq!(
            serde_json::to_value(&status).unwrap(),
            serde_json::json!({"type": "degraded", "code": "TIMEOUT", "retryable": true, "message": "Slow."})
        );
        let kind = AuthFieldKind::Select {
            options: vec!["a".into()],
        };
        assert_eq!(
            serde_json::to_value(&kind).unwrap(),
            serde_json::json!({"type": "select", "options": ["a"]})
        );
    }

    #[test]
    fn model_ids_split_after_the_provider() {
        assert_eq!(split_model_id("openai:gpt-4o"), Some(("openai", "gpt-4o")));
        assert_eq!(
            split_model_id("ollama:qwen3:8b"),
            Some(("ollama", "qwen3:8b"))
        );
        assert_eq!(
            split_model_id("compatible:lm-studio:qwen3:8b"),
            Some(("compatible:lm-studio", "qwen3:8b"))
        );
        assert_eq!(split_model_id("compatible:lm-studio"), None);
        assert_eq!(split_model_id("openai:"), None);
    }

    #[test]
    fn enablement_allows() {
        assert!(ModelEnablement::All.allows("x"));
        let selected = ModelEnablement::Selected {
            models: vec!["a".into()],
        };
        assert!(selected.allows("a") && !selected.allows("b"));
    }
}
