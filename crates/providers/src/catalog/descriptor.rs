//! Provider descriptors: the auth-field schema the settings form renders,
//! and building a provider from validated field values.

use std::collections::BTreeMap;
use std::sync::Arc;

use pizza_llm::{Error, Result};
use serde::Serialize;

use crate::transport::TransportConfig;
use crate::{
    ANTHROPIC_BASE_URL, AccessKeys, AnthropicAuth, AnthropicConfig, AnthropicProvider,
    BEDROCK_DEFAULT_REGION, BedrockAuth, BedrockConfig, BedrockProvider, GEMINI_BASE_URL,
    GeminiConfig, GeminiProvider, OLLAMA_BASE_URL, OPENAI_BASE_URL, OllamaConfig, OllamaProvider,
    OpenAiApi, OpenAiConfig, OpenAiProvider, Provider,
};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FieldKind {
    Text,
    Password,
    Select { options: Vec<String> },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuthField {
    pub key: &'static str,
    pub label: &'static str,
    pub kind: FieldKind,
    pub required: bool,
    /// Stored in the keychain, never returned to the UI.
    pub secret: bool,
    pub default: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProviderDescriptor {
    pub id: &'static str,
    pub display_name: &'static str,
    pub fields: Vec<AuthField>,
}

fn text(
    key: &'static str,
    label: &'static str,
    required: bool,
    default: Option<&str>,
) -> AuthField {
    AuthField {
        key,
        label,
        kind: FieldKind::Text,
        required,
        secret: false,
        default: default.map(str::to_owned),
    }
}

fn secret(key: &'static str, label: &'static str, required: bool) -> AuthField {
    AuthField {
        key,
        label,
        kind: FieldKind::Password,
        required,
        secret: true,
        default: None,
    }
}

fn select(key: &'static str, label: &'static str, options: &[&str]) -> AuthField {
    AuthField {
        key,
        label,
        kind: FieldKind::Select {
            options: options.iter().map(|o| (*o).to_owned()).collect(),
        },
        required: true,
        secret: false,
        default: options.first().map(|o| (*o).to_owned()),
    }
}

/// Every built-in provider.
pub fn provider_descriptors() -> Vec<ProviderDescriptor> {
    vec![
        ProviderDescriptor {
            id: "anthropic",
            display_name: "Anthropic",
            fields: vec![
                secret("api_key", "API key", true),
                select("auth", "Send key as", &["x-api-key", "bearer"]),
                text("base_url", "Base URL", false, Some(ANTHROPIC_BASE_URL)),
            ],
        },
        ProviderDescriptor {
            id: "openai",
            display_name: "OpenAI / compatible",
            fields: vec![
                secret("api_key", "API key", false),
                text("base_url", "Base URL", false, Some(OPENAI_BASE_URL)),
                select("api", "API", &["automatic", "responses", "chat"]),
            ],
        },
        ProviderDescriptor {
            id: "gemini",
            display_name: "Google Gemini",
            fields: vec![
                secret("api_key", "API key", true),
                text("base_url", "Base URL", false, Some(GEMINI_BASE_URL)),
            ],
        },
        ProviderDescriptor {
            id: "ollama",
            display_name: "Ollama",
            fields: vec![text("base_url", "Base URL", false, Some(OLLAMA_BASE_URL))],
        },
        // Either the API key or the access-key pair is needed; the form
        // cannot say "one of", so `build_provider` checks it.
        ProviderDescriptor {
            id: "bedrock",
            display_name: "Amazon Bedrock",
            fields: vec![
                text("region", "Region", true, Some(BEDROCK_DEFAULT_REGION)),
                secret("api_key", "Bedrock API key", false),
                text("access_key_id", "Access key ID", false, None),
                secret("secret_access_key", "Secret access key", false),
                secret("session_token", "Session token", false),
                // No default: it follows the region unless set.
                text("base_url", "Runtime base URL", false, None),
            ],
        },
    ]
}

/// Validates `fields` against the descriptor of `provider_id` and builds the
/// provider. Bad input (unknown provider, empty required field, a base URL
/// that is not http(s)) is `INVALID_INPUT`.
pub fn build_provider(
    provider_id: &str,
    fields: &BTreeMap<String, String>,
    transport: TransportConfig,
) -> Result<Arc<dyn Provider>> {
    let descriptor = provider_descriptors()
        .into_iter()
        .find(|d| d.id == provider_id)
        .ok_or_else(|| Error::invalid_input(format!("unknown provider `{provider_id}`")))?;
    let mut values: BTreeMap<&str, String> = BTreeMap::new();
    for field in &descriptor.fields {
        let value = fields
            .get(field.key)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty());
        let value = value.or_else(|| field.default.clone());
        match (value, field.required) {
            (Some(value), _) => {
                if let FieldKind::Select { options } = &field.kind
                    && !options.contains(&value)
                {
                    return Err(Error::invalid_input(format!(
                        "{} must be one of {}",
                        field.label,
                        options.join(", ")
                    )));
                }
                values.insert(field.key, value);
            }
            (None, true) => {
                return Err(Error::invalid_input(format!("{} is required", field.label)));
            }
            (None, false) => {}
        }
    }
    if let Some(url) = values.get("base_url") {
        validate_base_url(url)?;
    }
    let get = |key: &str| values.get(key).cloned().unwrap_or_default();
    let provider: Arc<dyn Provider> = match provider_id {
        "anthropic" => Arc::new(AnthropicProvider::new(AnthropicConfig {
            api_key: get("api_key"),
            auth: if get("auth") == "bearer" {
                AnthropicAuth::Bearer
            } else {
                AnthropicAuth::ApiKey
            },
            base_url: get("base_url"),
            transport,
        })?),
        "openai" => Arc::new(OpenAiProvider::new(OpenAiConfig {
            id: "openai".into(),
            api_key: values.get("api_key").cloned(),
            base_url: get("base_url"),
            api: match get("api").as_str() {
                "responses" => OpenAiApi::Responses,
                "chat" => OpenAiApi::Chat,
                _ => OpenAiApi::Automatic,
            },
            transport,
        })?),
        "gemini" => Arc::new(GeminiProvider::new(GeminiConfig {
            api_key: get("api_key"),
            base_url: get("base_url"),
            transport,
        })?),
        "bedrock" => Arc::new(BedrockProvider::new(BedrockConfig {
            auth: bedrock_auth(&values)?,
            region: get("region"),
            base_url: values.get("base_url").cloned(),
            control_base_url: None,
            transport,
        })?),
        _ => Arc::new(OllamaProvider::new(OllamaConfig {
            base_url: get("base_url"),
            transport,
        })?),
    };
    Ok(provider)
}

/// An API key, or an access key id with its secret: exactly one of them.
fn bedrock_auth(values: &BTreeMap<&str, String>) -> Result<BedrockAuth> {
    let get = |key: &str| values.get(key).cloned();
    match (
        get("api_key"),
        get("access_key_id"),
        get("secret_access_key"),
    ) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(Error::invalid_input(
            "give either a Bedrock API key or access keys, not both",
        )),
        (Some(key), None, None) => Ok(BedrockAuth::ApiKey(key)),
        (None, Some(access_key_id), Some(secret_access_key)) => {
            Ok(BedrockAuth::AccessKeys(AccessKeys {
                access_key_id,
                secret_access_key,
                session_token: get("session_token"),
            }))
        }
        (None, Some(_), None) => Err(Error::invalid_input("Secret access key is required")),
        (None, None, Some(_)) => Err(Error::invalid_input("Access key ID is required")),
        (None, None, None) => Err(Error::invalid_input(
            "a Bedrock API key or access keys are required",
        )),
    }
}

fn validate_base_url(url: &str) -> Result<()> {
    let parsed = reqwest::Url::parse(url)
        .map_err(|_| Error::invalid_input(format!("`{url}` is not a valid URL")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(Error::invalid_input(format!(
            "`{url}` must be an http(s) URL"
        )));
    }
    Ok(())
}
