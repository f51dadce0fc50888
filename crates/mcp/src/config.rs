//! `.mcp.json` in Claude Code's shape and the servers it configures.
//!
//! `{"mcpServers": {id: {command, args, env, cwd, enabled} |
//! {type: "http" | "sse", url, headers, enabled}}}`. Values keep their
//! `${…}` placeholders here; [`crate::expand`] resolves them only for the
//! live connection.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The file under the data root.
pub const MCP_CONFIG_FILE: &str = ".mcp.json";

/// How a server is reached, values as written (placeholders kept).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ServerTransport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<String>,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
    Sse {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// The plugin a server comes from: its name and folder (what
/// `${CLAUDE_PLUGIN_ROOT}` means).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PluginOrigin {
    pub name: String,
    pub root: PathBuf,
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServerConfig {
    pub id: String,
    pub transport: ServerTransport,
    pub enabled: bool,
    /// `None` for the person's own `.mcp.json`.
    pub plugin: Option<PluginOrigin>,
}
