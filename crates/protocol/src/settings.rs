//! `settings_get` / `settings_update`: preferences, and how the agent works.
//! A refused field's message starts with its name (`persona: …`).

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
    /// How the agent works: the person's addendum to its instructions and
    /// its tool-call limit per run.
    pub agent: AgentSettings,
}

/// The longest persona, in characters.
pub const PERSONA_MAX_CHARS: usize = 8_000;
/// Tool calls per run when the person set none.
pub const DEFAULT_MAX_TOOL_CALLS: i64 = 100;
/// The highest tool-call limit that can be set (`-1` is no limit).
pub const MAX_TOOL_CALLS_LIMIT: i64 = 10_000;
/// Tool calls per subagent invocation when the person set none.
pub const DEFAULT_MAX_SUBAGENT_TOOL_CALLS: i64 = 150;
/// Seconds one MCP tool call may take when the person set none.
pub const DEFAULT_MCP_TOOL_TIMEOUT_SECS: i64 = 60;
/// The longest MCP tool-call timeout that can be set, in seconds.
pub const MCP_TOOL_TIMEOUT_MAX_SECS: i64 = 3_600;
/// Seconds one `eval` program may run by default, bridge work included.
pub const DEFAULT_EVAL_TIMEOUT_SECS: i64 = 120;
/// The longest `eval` timeout that can be set, in seconds.
pub const EVAL_TIMEOUT_MAX_SECS: i64 = 3_600;

/// The agent's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentSettings {
    /// Added to the agent's instructions for every run (may be empty).
    pub persona: String,
    /// The orchestrator's tool calls per run; `-1`: no limit (runs are still
    /// bounded by their model calls).
    pub max_tool_calls: i64,
    /// A skill's tool calls each time the agent delegates to it; `-1`: no
    /// limit (it is still bounded by its model calls).
    pub max_subagent_tool_calls: i64,
    /// Seconds one MCP tool call may take before it is cancelled.
    pub mcp_tool_timeout_secs: i64,
    /// Seconds one `eval` program may run (its file reads and skills
    /// included) before it is stopped.
    pub eval_timeout_secs: i64,
}

impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            persona: String::new(),
            max_tool_calls: DEFAULT_MAX_TOOL_CALLS,
            max_subagent_tool_calls: DEFAULT_MAX_SUBAGENT_TOOL_CALLS,
            mcp_tool_timeout_secs: DEFAULT_MCP_TOOL_TIMEOUT_SECS,
            eval_timeout_secs: DEFAULT_EVAL_TIMEOUT_SECS,
        }
    }
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
    /// At most [`PERSONA_MAX_CHARS`]; blank clears it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persona: Option<String>,
    /// `-1` or 1 to [`MAX_TOOL_CALLS_LIMIT`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<i64>,
    /// `-1` or 1 to [`MAX_TOOL_CALLS_LIMIT`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_subagent_tool_calls: Option<i64>,
    /// 1 to [`MCP_TOOL_TIMEOUT_MAX_SECS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_tool_timeout_secs: Option<i64>,
    /// 1 to [`EVAL_TIMEOUT_MAX_SECS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_timeout_secs: Option<i64>,
}
