//! The command table: every IPC command is declared here exactly once.

use serde::{Serialize, de::DeserializeOwned};

/// One IPC command: its wire name and its params/response types.
///
/// The UI calls `invoke::<C>(params)` and the host registers one handler per
/// command; both sides name the command only through this trait.
pub trait Command {
    /// The wire name, `resource_verb`.
    const NAME: &'static str;
    /// What the UI sends.
    type Params: Serialize + DeserializeOwned + Send + 'static;
    /// What the host answers on success.
    type Response: Serialize + DeserializeOwned + Send + 'static;
}

macro_rules! commands {
    ($( $(#[$doc:meta])* $ty:ident = $name:literal, $params:ty => $response:ty; )*) => {
        /// Marker types, one per command; use them with `invoke::<cmd::X>`.
        pub mod cmd {
            $(
                $(#[$doc])*
                #[derive(Debug, Clone, Copy)]
                pub struct $ty;

                impl super::Command for $ty {
                    const NAME: &'static str = $name;
                    type Params = $params;
                    type Response = $response;
                }
            )*
        }

        /// Every declared command name, in declaration order.
        pub const COMMANDS: &[&str] = &[$($name),*];
    };
}

commands! {
    /// Name, version, data root and build of the running app.
    AppInfo = "app_info", crate::AppInfoParams => crate::AppInfo;
    /// The UI preferences.
    SettingsGet = "settings_get", crate::SettingsGetParams => crate::Settings;
    /// Changes some UI preferences; answers the whole new value.
    SettingsUpdate = "settings_update", crate::SettingsPatch => crate::Settings;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn names_are_unique_and_resource_verb() {
        let unique: BTreeSet<_> = COMMANDS.iter().collect();
        assert_eq!(unique.len(), COMMANDS.len(), "duplicate command name");
        for name in COMMANDS {
            let (resource, verb) = name.split_once('_').unwrap_or(("", ""));
            assert!(
                !resource.is_empty()
                    && !verb.is_empty()
                    && name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{name} is not resource_verb"
            );
        }
    }

    #[test]
    fn marker_names_match_the_table() {
        assert_eq!(cmd::AppInfo::NAME, "app_info");
        assert_eq!(cmd::SettingsUpdate::NAME, "settings_update");
    }
}
