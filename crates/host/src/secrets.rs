//! Where provider secrets live: the OS keychain, behind a trait that
//! `src-tauri` implements (the host must not know `keyring`).
//!
//! There is deliberately no plaintext fallback: when the keychain cannot be
//! used, the error says so and points at the `${ENV_VAR}` alternative.

use pizza_protocol::{ApiError, ErrorCode};

/// Blocking secret storage keyed by a short name (`provider.openai.api_key`).
///
/// Calls block (D-Bus, Keychain Services, Credential Manager): the host only
/// calls them through `spawn_blocking`.
pub trait SecretStore: Send + Sync + std::fmt::Debug {
    fn set(&self, key: &str, value: &str) -> Result<(), SecretError>;
    /// `Ok(None)` when nothing is stored under `key`.
    fn get(&self, key: &str) -> Result<Option<String>, SecretError>;
    /// Deleting a missing key succeeds.
    fn delete(&self, key: &str) -> Result<(), SecretError>;
}

const ENV_HINT: &str = "or enter the key as ${ENV_VAR} to read it from an environment variable";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SecretError {
    /// No keychain service to talk to (no session bus, no Secret Service).
    #[error(
        "Secure storage (the OS keychain) is unavailable: {reason}. Start a keychain service such as GNOME Keyring, {ENV_HINT}."
    )]
    Unavailable { reason: String },
    /// The keychain exists but refuses access (locked, no default collection).
    #[error("The OS keychain is locked: {reason}. Unlock it and try again, {ENV_HINT}.")]
    Locked { reason: String },
    #[error("The OS keychain failed: {reason}. Try again, {ENV_HINT}.")]
    Other { reason: String },
}

impl From<SecretError> for ApiError {
    fn from(err: SecretError) -> Self {
        let code = match err {
            SecretError::Unavailable { .. } => ErrorCode::DependencyDisabled,
            SecretError::Locked { .. } => ErrorCode::PermissionDenied,
            SecretError::Other { .. } => ErrorCode::General,
        };
        ApiError::new(code, err.to_string())
    }
}

/// The default store: no keychain at all. Every call fails with
/// [`SecretError::Unavailable`]; nothing is ever kept in plaintext.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSecretStore;

impl NoSecretStore {
    fn error() -> SecretError {
        SecretError::Unavailable {
            reason: "this build has no keychain backend".to_owned(),
        }
    }
}

impl SecretStore for NoSecretStore {
    fn set(&self, _key: &str, _value: &str) -> Result<(), SecretError> {
        Err(Self::error())
    }

    fn get(&self, _key: &str) -> Result<Option<String>, SecretError> {
        Err(Self::error())
    }

    fn delete(&self, _key: &str) -> Result<(), SecretError> {
        Err(Self::error())
    }
}

/// An in-memory store for the host's own tests, with a switch to act locked.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct MemorySecrets {
    pub(crate) values: std::sync::Mutex<std::collections::BTreeMap<String, String>>,
    pub(crate) locked: std::sync::atomic::AtomicBool,
}

#[cfg(test)]
impl MemorySecrets {
    fn check(&self) -> Result<(), SecretError> {
        if self.locked.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(SecretError::Locked {
                reason: "the default collection is locked".into(),
            });
        }
        Ok(())
    }

    pub(crate) fn snapshot(&self) -> std::collections::BTreeMap<String, String> {
        self.values.lock().unwrap().clone()
    }
}

#[cfg(test)]
impl SecretStore for MemorySecrets {
    fn set(&self, key: &str, value: &str) -> Result<(), SecretError> {
        self.check()?;
        self.values.lock().unwrap().insert(key.into(), value.into());
        Ok(())
    }

    fn get(&self, key: &str) -> Result<Option<String>, SecretError> {
        self.check()?;
        Ok(self.values.lock().unwrap().get(key).cloned())
    }

    fn delete(&self, key: &str) -> Result<(), SecretError> {
        self.check()?;
        self.values.lock().unwrap().remove(key);
        Ok(())
    }
}
