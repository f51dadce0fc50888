#![doc = include_str!("../README.md")]

mod config;
mod http_client;
mod sse;

pub use config::{MCP_CONFIG_FILE, PluginOrigin, ServerConfig, ServerTransport};
pub use http_client::http_client;
pub use sse::{SseError, SseTransport, connect_sse};
