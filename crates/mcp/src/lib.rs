#![doc = include_str!("../README.md")]

mod config;

pub use config::{MCP_CONFIG_FILE, PluginOrigin, ServerConfig, ServerTransport};
