//! A provider's saved settings: non-secret values in the store's settings
//! table, and for each secret only a reference — `keychain:<key>` or the
//! literal `${ENV_VAR}` form, resolved when the provider is built.

use pizza_protocol::{ApiError, ModelEnablement};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The keychain entry holding one secret field of one provider.
pub(crate) fn keychain_key(provider_id: &str, field: &str) -> String {
    format!("provider.{provider_id}.{field}")
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct StoredProvider {
    /// Non-secret field values.
    pub(crate) values: BTreeMap<String, String>,
    /// Secret field → reference (never the value).
    pub(crate) secrets: BTreeMap<String, SecretRef>,
    pub(crate) enablement: ModelEnablement,
}

/// Where a secret is: stored as text, so the database row reads plainly as a
/// reference (`keychain:provider.openai.api_key` or `${OPENAI_API_KEY}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub(crate) enum SecretRef {
    Keychain(String),
    Env(String),
}

impl From<SecretRef> for String {
    fn from(value: SecretRef) -> Self {
        match value {
            SecretRef::Keychain(key) => format!("keychain:{key}"),
            SecretRef::Env(var) => format!("${{{var}}}"),
        }
    }
}

impl TryFrom<String> for SecretRef {
    type Error = String;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        if let Some(key) = value.strip_prefix("keychain:") {
            return Ok(Self::Keychain(key.to_owned()));
        }
        env_var_name(&value)
            .map(|var| Self::Env(var.to_owned()))
            .ok_or_else(|| "not a secret reference".to_owned())
    }
}

/// The variable named by `${NAME}`, if `text` is exactly that form.
pub(crate) fn env_var_name(text: &str) -> Option<&str> {
    let name = text.strip_prefix("${")?.strip_suffix('}')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some(name)
}

/// What the user typed into a secret field.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SecretInput<'a> {
    /// Blank: keep whatever is stored.
    Keep,
    Env(&'a str),
    Value(&'a str),
}

pub(crate) fn parse_secret_input(text: &str) -> Result<SecretInput<'_>, ApiError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(SecretInput::Keep);
    }
    if let Some(var) = env_var_name(text) {
        return Ok(SecretInput::Env(var));
    }
    if text.starts_with("${") {
        return Err(ApiError::invalid_input(
            "An environment variable reference looks like ${NAME}: letters, digits and _.",
        ));
    }
    Ok(SecretInput::Value(text))
}

/// `Some(name)` when the env var is unset: the caller explains it.
pub(crate) fn read_env(var: &str) -> Result<String, ApiError> {
    match std::env::var(var) {
        Ok(value) if !value.trim().is_empty() => Ok(value.trim().to_owned()),
        _ => Err(ApiError::invalid_input(format!(
            "The environment variable {var} is not set; set it before starting Pizza Bot, or enter the key itself."
        ))),
    }
}

pub(crate) fn validate_enablement(enablement: &ModelEnablement) -> Result<(), ApiError> {
    if let ModelEnablement::Selected { models } = enablement
        && models.iter().any(|m| m.trim().is_empty())
    {
        return Err(ApiError::invalid_input("A selected model id is empty."));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn references_round_trip_as_text() {
        let stored = StoredProvider {
            secrets: BTreeMap::from([
                (
                    "api_key".into(),
                    SecretRef::Keychain("provider.openai.api_key".into()),
                ),
                ("token".into(), SecretRef::Env("MY_TOKEN".into())),
            ]),
            ..StoredProvider::default()
        };
        let json = serde_json::to_value(&stored).unwrap();
        assert_eq!(
            json["secrets"]["api_key"],
            "keychain:provider.openai.api_key"
        );
        assert_eq!(json["secrets"]["token"], "${MY_TOKEN}");
        assert_eq!(
            serde_json::from_value::<StoredProvider>(json).unwrap(),
            stored
        );
    }

    #[test]
    fn secret_input_forms() {
        assert_eq!(parse_secret_input("  ").unwrap(), SecretInput::Keep);
        assert_eq!(
            parse_secret_input("${A_1}").unwrap(),
            SecretInput::Env("A_1")
        );
        assert_eq!(
            parse_secret_input(" sk-x ").unwrap(),
            SecretInput::Value("sk-x")
        );
        assert!(parse_secret_input("${1A}").is_err());
        assert!(parse_secret_input("${A B}").is_err());
    }
}
