#![doc = include_str!("../README.md")]

mod call;
mod config;
mod connect;
mod error;
mod http_client;
mod pool;
mod server;
mod sse;
mod stdio;
mod tail;
mod tooldef;

pub use call::{CallOutput, CallPart};
pub use config::{MCP_CONFIG_FILE, PluginOrigin, ServerConfig, ServerTransport};
pub use error::{McpError, Result};
pub use http_client::http_client;
pub use pool::{
    CONNECT_CONCURRENCY, CONNECT_TIMEOUT, McpPool, ServerSnapshot, status_words,
};
pub use server::LiveServer;
pub use tail::STDERR_TAIL_LINES;
pub use tooldef::{McpToolDef, TOOL_SEPARATOR, definition_hash, fix_schema, qualified_name};
