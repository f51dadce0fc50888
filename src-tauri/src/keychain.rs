//! Provider secrets in the OS keychain: Secret Service on Linux, Keychain
//! Services on macOS, Credential Manager on Windows (through `keyring`).

use pizza_host::{SecretError, SecretStore};

/// The keychain "service" every Pizza Bot entry is filed under.
pub const KEYCHAIN_SERVICE: &str = "pizza-bot";

/// [`SecretStore`] over the OS keychain. Blocking: the host calls it through
/// `spawn_blocking`.
#[derive(Debug, Clone)]
pub struct KeychainSecrets {
    service: String,
}

impl Default for KeychainSecrets {
    fn default() -> Self {
        Self::new(KEYCHAIN_SERVICE)
    }
}

impl KeychainSecrets {
    /// Entries are `(service, key)`; tests use their own service name.
    pub fn new(service: impl Into<String>) -> Self {
        Self {
            service: service.into(),
        }
    }

    fn entry(&self, key: &str) -> Result<keyring::Entry, SecretError> {
        keyring::Entry::new(&self.service, key).map_err(map_error)
    }
}

impl SecretStore for KeychainSecrets {
    fn set(&self, key: &str, value: &str) -> Result<(), SecretError> {
        crate::logging::remember_secret(value);
        self.entry(key)?.set_password(value).map_err(map_error)
    }

    fn get(&self, key: &str) -> Result<Option<String>, SecretError> {
        match self.entry(key)?.get_password() {
            Ok(value) => {
                crate::logging::remember_secret(&value);
                Ok(Some(value))
            }
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(error) => Err(map_error(error)),
        }
    }

    fn delete(&self, key: &str) -> Result<(), SecretError> {
        match self.entry(key)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(error) => Err(map_error(error)),
        }
    }
}

/// No session bus or no Secret Service answers as a platform failure; a
/// locked keyring or a missing default collection as no storage access.
fn map_error(error: keyring::Error) -> SecretError {
    match error {
        keyring::Error::PlatformFailure(cause) => SecretError::Unavailable {
            reason: unavailable_reason(&cause.to_string()),
        },
        keyring::Error::NoStorageAccess(cause) => SecretError::Locked {
            reason: cause.to_string(),
        },
        other => SecretError::Other {
            reason: other.to_string(),
        },
    }
}

/// D-Bus errors are cryptic; name the two common causes in plain words.
fn unavailable_reason(cause: &str) -> String {
    if cause.contains("ServiceUnknown") || cause.contains("org.freedesktop.secrets") {
        format!("no Secret Service provider is running ({cause})")
    } else if cause.contains("DBUS_SESSION_BUS_ADDRESS")
        || cause.contains("session bus")
        || cause.contains("dbus-launch")
    {
        format!("there is no D-Bus session bus ({cause})")
    } else {
        cause.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_problem_and_the_env_alternative() {
        let unavailable = map_error(keyring::Error::PlatformFailure(
            "org.freedesktop.DBus.Error.ServiceUnknown".into(),
        ));
        assert!(matches!(unavailable, SecretError::Unavailable { .. }));
        let text = unavailable.to_string();
        assert!(
            text.contains("no Secret Service provider") && text.contains("${ENV_VAR}"),
            "{text}"
        );

        let locked = map_error(keyring::Error::NoStorageAccess(
            "collection is locked".into(),
        ));
        assert!(matches!(locked, SecretError::Locked { .. }));
        assert!(locked.to_string().contains("locked"));
    }
}
