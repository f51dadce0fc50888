//! Plugins in the Claude Code format: a folder with
//! `.claude-plugin/plugin.json` that ships skills and MCP servers. The
//! Plugins section lists them; installing one shows what its servers will
//! run before anything is written.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PluginStatus {
    Loaded,
    Disabled,
    /// It parses but asks for something this app does not do.
    Incompatible,
    /// It cannot be read: the detail says why.
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginView {
    /// The manifest's kebab-case name (the folder name when it cannot be read).
    pub name: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub author: Option<String>,
    #[serde(default)]
    pub homepage: Option<String>,
    pub status: PluginStatus,
    /// Sentences for the detail: why it failed, what was left out
    /// (`commands`, `hooks`, a refused skill…).
    #[serde(default)]
    pub detail: Vec<String>,
    /// Its skills' names.
    #[serde(default)]
    pub skills: Vec<String>,
    /// Its MCP servers' ids.
    #[serde(default)]
    pub servers: Vec<String>,
    /// Shipped with the app (cannot be removed, only switched off).
    pub builtin: bool,
    pub enabled: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginListParams {}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginList {
    pub plugins: Vec<PluginView>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginNameParams {
    pub name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginSetEnabledParams {
    pub name: String,
    pub enabled: bool,
}

/// A plugin ZIP or folder to install.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginInstallParams {
    pub path: String,
}

/// What installing would bring in, for the trust prompt; nothing is
/// written until `plugin_install`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginInstallPreview {
    pub name: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub description: String,
    pub skills: Vec<String>,
    /// One line per MCP server: its id and the command line it will run
    /// (or the URL it will reach).
    pub commands: Vec<String>,
    /// What the manifest has that is left out.
    #[serde(default)]
    pub detail: Vec<String>,
    /// A plugin of this name is installed; installing replaces it.
    pub replaces: bool,
}

/// Asks for a plugin in the native open dialog: a ZIP, or a folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginInstallChooseParams {
    #[serde(default)]
    pub folder: bool,
}
