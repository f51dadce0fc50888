//! `settings_get` / `settings_update`: UI preferences.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::Light => "light",
            Self::Dark => "dark",
        }
    }
}

/// The UI preferences. Unknown or invalid stored values read as defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub theme: Theme,
    /// Whether the agent reads and writes the memories folder (`/memories/`).
    pub memories_enabled: bool,
    /// Which run outcomes become native notifications on this device.
    pub notifications: NotificationPrefs,
}

/// Native notification toggles, kept per device. Both are on by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NotificationPrefs {
    /// A run finished, failed or timed out.
    pub run_finished: bool,
    /// A run waits for the user's decision.
    pub action_required: bool,
}

impl Default for NotificationPrefs {
    fn default() -> Self {
        Self {
            run_finished: true,
            action_required: true,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsGetParams {}

/// A partial update: absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<Theme>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memories_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notify_run_finished: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notify_action_required: Option<bool>,
}
