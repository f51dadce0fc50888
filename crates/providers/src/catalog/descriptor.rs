//! Provider descriptors: the auth-field schema the settings form renders,
//! and building a provider from validated field values.

use std::collections::BTreeMap;
use std::sync::Arc;

use pizza_llm::{Error, Result};
use serde::Serialize;

use crate::bedrock::load_profile;
use crate::transport::TransportConfig;
use crate::{
    ANTHROPIC_BASE_URL, AccessKeys, AnthropicAuth, AnthropicConfig, AnthropicProvider,
    AwsProfileFiles, BEDROCK_DEFAULT_REGION, BedrockAuth, BedrockConfig, BedrockProvider,
    GEMINI_BASE_URL, GeminiConfig, GeminiProvider, OLLAMA_BASE_URL, OPENAI_BASE_URL, OllamaConfig,
    OllamaProvider, OpenAiApi, OpenAiConfig, OpenAiProvider, Provider,
};

pub const OPENROUTER_BASE_URL: &str = "https://openrouter.ai/api/v1";
/// Where OpenRouter's attribution headers say requests come from.
const OPENROUTER_REFERER: &str = "https://github.com/pizza-bot/pizza-bot";
const OPENROUTER_TITLE: &str = "Pizza Bot";

/// Ids of the person's own OpenAI-compatible servers: `compatible:<slug>`.
pub const COMPATIBLE_PREFIX: &str = "compatible:";
/// The descriptor every compatible server shares.
const COMPATIBLE: &str = "compatible";
const SLUG_MAX: usize = 40;

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
            id: "openrouter",
            display_name: "OpenRouter",
            fields: vec![
                secret("api_key", "API key", true),
                text("base_url", "Base URL", false, Some(OPENROUTER_BASE_URL)),
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
        // One of the API key, the access-key pair or a profile is needed;
        // the form cannot say "one of", so `build_provider` checks it.
        ProviderDescriptor {
            id: "bedrock",
            display_name: "Amazon Bedrock",
            fields: vec![
                // No default: a profile's region wins over us-east-1.
                text("region", "Region", false, None),
                secret("api_key", "Bedrock API key", false),
                text("access_key_id", "Access key ID", false, None),
                secret("secret_access_key", "Secret access key", false),
                secret("session_token", "Session token", false),
                text("profile", "AWS profile (~/.aws)", false, None),
                // No default: it follows the region unless set.
                text("base_url", "Runtime base URL", false, None),
            ],
        },
    ]
}

/// The form of a compatible server (LM Studio, llama.cpp, vLLM, a gateway):
/// its name, where it is, and a key if it wants one.
fn compatible_descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: COMPATIBLE,
        display_name: "OpenAI-compatible server",
        fields: vec![
            text("name", "Name", true, None),
            text("base_url", "Base URL", true, None),
            secret("api_key", "API key", false),
        ],
    }
}

/// The descriptor of `provider_id`: a built-in one, or the compatible
/// servers' form for a `compatible:<slug>` id.
pub fn provider_descriptor(provider_id: &str) -> Option<ProviderDescriptor> {
    match provider_id.strip_prefix(COMPATIBLE_PREFIX) {
        Some(slug) => is_slug(slug).then(compatible_descriptor),
        None => provider_descriptors()
            .into_iter()
            .find(|d| d.id == provider_id),
    }
}

/// `compatible:<slug>` for a server named `name` ("LM Studio" →
/// `compatible:lm-studio`); `None` when the name has no letter or digit.
pub fn compatible_id(name: &str) -> Option<String> {
    let mut slug = String::new();
    for c in name.trim().chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug: String = slug.chars().take(SLUG_MAX).collect();
    let slug = slug.trim_end_matches('-');
    (!slug.is_empty()).then(|| format!("{COMPATIBLE_PREFIX}{slug}"))
}

fn is_slug(slug: &str) -> bool {
    !slug.is_empty()
        && slug.len() <= SLUG_MAX
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !slug.starts_with('-')
        && !slug.ends_with('-')
}

/// Validates `fields` against the descriptor of `provider_id` and builds the
/// provider. Bad input (unknown provider, empty required field, a base URL
/// that is not http(s)) is `INVALID_INPUT`.
pub fn build_provider(
    provider_id: &str,
    fields: &BTreeMap<String, String>,
    transport: TransportConfig,
) -> Result<Arc<dyn Provider>> {
    let descriptor = provider_descriptor(provider_id)
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
    if descriptor.id == COMPATIBLE {
        return Ok(Arc::new(OpenAiProvider::new(OpenAiConfig {
            id: provider_id.to_owned(),
            api_key: values.get("api_key").cloned(),
            base_url: get("base_url"),
            // Compatible servers speak Chat Completions; few have Responses.
            api: OpenAiApi::Chat,
            headers: Vec::new(),
            transport,
        })?));
    }
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
            headers: Vec::new(),
            transport,
        })?),
        "openrouter" => Arc::new(OpenAiProvider::new(OpenAiConfig {
            id: "openrouter".into(),
            api_key: values.get("api_key").cloned(),
            base_url: get("base_url"),
            api: OpenAiApi::Chat,
            headers: vec![
                ("http-referer", OPENROUTER_REFERER.to_owned()),
                ("x-title", OPENROUTER_TITLE.to_owned()),
            ],
            transport,
        })?),
        "gemini" => Arc::new(GeminiProvider::new(GeminiConfig {
            api_key: get("api_key"),
            base_url: get("base_url"),
            transport,
        })?),
        "bedrock" => {
            let (auth, region) = bedrock_auth(&values, &AwsProfileFiles::from_env())?;
            Arc::new(BedrockProvider::new(BedrockConfig {
                auth,
                region,
                base_url: values.get("base_url").cloned(),
                control_base_url: None,
                transport,
            })?)
        }
        _ => Arc::new(OllamaProvider::new(OllamaConfig {
            base_url: get("base_url"),
            transport,
        })?),
    };
    Ok(provider)
}

/// An API key, an access key id with its secret, or a shared-file
/// profile: exactly one of them; and the region: the field, else the
/// profile's, else us-east-1.
fn bedrock_auth(
    values: &BTreeMap<&str, String>,
    files: &AwsProfileFiles,
) -> Result<(BedrockAuth, String)> {
    let region = |from_profile: Option<String>| {
        values
            .get("region")
            .cloned()
            .or(from_profile)
            .unwrap_or_else(|| BEDROCK_DEFAULT_REGION.to_owned())
    };
    let get = |key: &str| values.get(key).cloned();
    let given = [
        get("api_key").is_some(),
        get("access_key_id").is_some() || get("secret_access_key").is_some(),
        get("profile").is_some(),
    ];
    if given.iter().filter(|g| **g).count() > 1 {
        return Err(Error::invalid_input(
            "give one of a Bedrock API key, access keys or an AWS profile, not several",
        ));
    }
    if let Some(name) = get("profile") {
        let profile = load_profile(files, &name)?;
        return Ok((
            BedrockAuth::AccessKeys(profile.keys),
            region(profile.region),
        ));
    }
    let auth = match (
        get("api_key"),
        get("access_key_id"),
        get("secret_access_key"),
    ) {
        (Some(key), _, _) => BedrockAuth::ApiKey(key),
        (None, Some(access_key_id), Some(secret_access_key)) => {
            BedrockAuth::AccessKeys(AccessKeys {
                access_key_id,
                secret_access_key,
                session_token: get("session_token"),
            })
        }
        (None, Some(_), None) => {
            return Err(Error::invalid_input("Secret access key is required"));
        }
        (None, None, Some(_)) => return Err(Error::invalid_input("Access key ID is required")),
        (None, None, None) => {
            return Err(Error::invalid_input(
                "a Bedrock API key, access keys or an AWS profile are required",
            ));
        }
    };
    Ok((auth, region(None)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_bedrock_profile_gives_keys_and_its_region_unless_one_is_set() {
        let dir = tempfile::tempdir().unwrap();
        let files = AwsProfileFiles {
            credentials: dir.path().join("credentials"),
            config: dir.path().join("config"),
        };
        std::fs::write(
            &files.credentials,
            "[bedrock]\naws_access_key_id = AKIAPROFILE\naws_secret_access_key = s3cr3t\naws_session_token = tok\n",
        )
        .unwrap();
        std::fs::write(&files.config, "[profile bedrock]\nregion = eu-central-1\n").unwrap();
        let values = |pairs: &[(&'static str, &str)]| -> BTreeMap<&'static str, String> {
            pairs.iter().map(|(k, v)| (*k, (*v).to_owned())).collect()
        };

        let (auth, region) = bedrock_auth(&values(&[("profile", "bedrock")]), &files).unwrap();
        assert_eq!(
            auth,
            BedrockAuth::AccessKeys(AccessKeys {
                access_key_id: "AKIAPROFILE".into(),
                secret_access_key: "s3cr3t".into(),
                session_token: Some("tok".into()),
            })
        );
        assert_eq!(region, "eu-central-1");
        let (_, region) = bedrock_auth(
            &values(&[("profile", "bedrock"), ("region", "us-west-2")]),
            &files,
        )
        .unwrap();
        assert_eq!(region, "us-west-2", "the field wins over the profile");
        let (_, region) = bedrock_auth(&values(&[("api_key", "k")]), &files).unwrap();
        assert_eq!(region, BEDROCK_DEFAULT_REGION);

        let missing = bedrock_auth(&values(&[("profile", "other")]), &files).unwrap_err();
        assert_eq!(missing.code(), "INVALID_INPUT");
        let both = bedrock_auth(
            &values(&[("profile", "bedrock"), ("access_key_id", "AKIA")]),
            &files,
        )
        .unwrap_err();
        assert_eq!(both.code(), "INVALID_INPUT");
    }
}
