#![doc = include_str!("../README.md")]

mod call;
mod config;
mod connect;
mod error;
mod expand;
mod http_client;
mod import;
mod pool;
mod server;
mod sse;
mod stdio;
mod tail;
mod tooldef;
mod watch;

pub use call::{CallOutput, CallPart};
pub use config::{
    ConfigError, ConfigFile, MCP_CONFIG_FILE, McpConfig, PluginOrigin, ServerConfig,
    ServerTransport, entry_json, parse_config, parse_entry, parse_servers, validate_server_id,
};
pub use error::{McpError, Result};
pub use expand::{
    Expander, SecretKind, expand, expand_transport, secret_name, secret_reference,
    secret_reference_name,
};
pub use http_client::http_client;
pub use import::{ImportCandidate, claude_desktop_config_path, import_candidates, summary};
pub use pool::{CONNECT_CONCURRENCY, CONNECT_TIMEOUT, McpPool, ServerSnapshot, status_words};
pub use server::LiveServer;
pub use sse::{SseError, SseTransport, connect_sse};
pub use tail::STDERR_TAIL_LINES;
pub use tooldef::{McpToolDef, TOOL_SEPARATOR, definition_hash, fix_schema, qualified_name};
pub use watch::ConfigWatcher;
