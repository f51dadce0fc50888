//! MCP servers: what the MCP page shows of each configured server (its
//! configuration with every env and header value redacted, its live status,
//! tools and stderr tail), the form that adds or edits one, and imports.
//! Bad input is `INVALID_INPUT` whose message starts with the field it is
//! about, and nothing is written.

use serde::{Deserialize, Serialize};

/// What every list or status answer shows instead of an env or header value.
pub const REDACTED: &str = "<redacted>";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpTransportKind {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio,
    /// Streamable HTTP.
    Http,
    /// Legacy HTTP + server-sent events.
    Sse,
}

/// A server's connection, as each attempt settles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum McpStatus {
    /// Connecting (or waiting for a free connect slot).
    Loading,
    /// The last attempt failed or the server exited; the next one starts
    /// after a backoff.
    Retrying {
        attempt: u32,
        message: String,
    },
    Connected,
    /// It cannot connect until something changes (the person's Reconnect,
    /// an edit): a sentence saying why.
    Error {
        message: String,
    },
    /// It exited unexpectedly; a reconnect is on its way.
    Crashed {
        message: String,
    },
    /// Switched off in the configuration.
    Disabled,
}

impl McpStatus {
    pub fn is_connected(&self) -> bool {
        matches!(self, Self::Connected)
    }
}

/// One env variable or header of a server, as lists show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpKeyValue {
    pub name: String,
    /// Always [`REDACTED`].
    pub value: String,
    /// Kept in the OS keychain; the file holds a reference.
    pub secret: bool,
}

/// One tool a connected server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpToolView {
    /// The server's own name for it.
    pub name: String,
    /// What the model sees: `<server>__<tool>`.
    pub qualified_name: String,
    pub description: String,
    /// The input schema, pretty-printed JSON.
    pub input_schema: String,
    /// Set when the definition changed since the person last reviewed it:
    /// a unified diff of the definition (`-` before, `+` now). Every call
    /// of the tool asks for approval until it is reviewed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerView {
    pub id: String,
    pub transport: McpTransportKind,
    pub enabled: bool,
    pub status: McpStatus,
    /// stdio: the command and its arguments as written (placeholders kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// HTTP and SSE: the URL as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default)]
    pub env: Vec<McpKeyValue>,
    #[serde(default)]
    pub headers: Vec<McpKeyValue>,
    /// Empty unless connected.
    #[serde(default)]
    pub tools: Vec<McpToolView>,
    /// The last stderr lines of a stdio server, oldest first (at most 50).
    #[serde(default)]
    pub stderr: Vec<String>,
    /// What the server says of itself when it connects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The plugin that ships the server; such a server is changed through
    /// its plugin, not the form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerListParams {}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerList {
    pub servers: Vec<McpServerView>,
    /// Why `.mcp.json` as it is on disk is not used (the last good
    /// configuration stays live), when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_error: Option<String>,
}

/// One env variable or header in the form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpEntryValue {
    pub name: String,
    /// The new value; `None` keeps the one saved under this name.
    #[serde(default)]
    pub value: Option<String>,
    /// Store the value in the OS keychain and keep a reference in the file.
    #[serde(default)]
    pub secret: bool,
}

/// What the add/edit form sends. Fields of the other transport are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerEntry {
    pub transport: McpTransportKind,
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub env: Vec<McpEntryValue>,
    #[serde(default)]
    pub headers: Vec<McpEntryValue>,
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
}

fn enabled_by_default() -> bool {
    true
}

/// Adds a server, or replaces the one of this id (`previous_id` renames).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerSaveParams {
    pub id: String,
    pub entry: McpServerEntry,
    #[serde(default)]
    pub previous_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerIdParams {
    pub id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerSetEnabledParams {
    pub id: String,
    pub enabled: bool,
}

/// Marks a server's tools (or one of them) as reviewed in their current
/// definition: the drift flag clears and calls stop asking for that reason.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpToolReviewParams {
    pub id: String,
    #[serde(default)]
    pub tool: Option<String>,
}

/// Where an import reads servers from: exactly one of these.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpImportSource {
    /// A `.mcp.json` or `claude_desktop_config.json` file.
    #[serde(default)]
    pub path: Option<String>,
    /// Pasted JSON: a whole `{"mcpServers": …}`, the `mcpServers` object, or
    /// one entry (then `id` names it).
    #[serde(default)]
    pub json: Option<String>,
    /// The id for a pasted single entry.
    #[serde(default)]
    pub id: Option<String>,
    /// Claude Desktop's configuration at its usual place on this OS.
    #[serde(default)]
    pub claude_desktop: bool,
}

pub type McpImportPreviewParams = McpImportSource;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpImportCandidate {
    pub id: String,
    pub transport: McpTransportKind,
    /// The command line or URL, env and header values left out.
    pub summary: String,
    /// A server of this id is already configured; importing it replaces it.
    pub clash: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpImportPreview {
    /// The file read, or "pasted JSON".
    pub source: String,
    pub candidates: Vec<McpImportCandidate>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpImportParams {
    #[serde(flatten)]
    pub source: McpImportSource,
    /// Which candidates to bring in.
    pub ids: Vec<String>,
}

/// A user skill drafted from a connected server, for the skill editor; it
/// is saved only when the person saves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpSkillDraft {
    /// A free skill name derived from the server id.
    pub name: String,
    pub fields: crate::SkillFields,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn status_is_tagged_by_state() {
        assert_eq!(
            serde_json::to_value(McpStatus::Error {
                message: "command not found: x".into()
            })
            .unwrap(),
            json!({"state": "error", "message": "command not found: x"})
        );
        assert_eq!(
            serde_json::to_value(McpStatus::Connected).unwrap(),
            json!({"state": "connected"})
        );
    }

    #[test]
    fn import_params_flatten_their_source() {
        let params: McpImportParams =
            serde_json::from_value(json!({"claude_desktop": true, "ids": ["time"]})).unwrap();
        assert!(params.source.claude_desktop);
        assert_eq!(params.ids, ["time"]);
    }
}
