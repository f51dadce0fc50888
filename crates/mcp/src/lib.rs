#![doc = include_str!("../README.md")]

mod config;
mod expand;
mod import;
mod watch;

pub use config::{
    ConfigError, ConfigFile, MCP_CONFIG_FILE, McpConfig, PluginOrigin, ServerConfig,
    ServerTransport, entry_json, parse_config, parse_entry, parse_servers, validate_server_id,
};
pub use expand::{
    Expander, SecretKind, expand, expand_transport, secret_name, secret_reference,
    secret_reference_name,
};
pub use import::{ImportCandidate, claude_desktop_config_path, import_candidates, summary};
pub use watch::ConfigWatcher;
