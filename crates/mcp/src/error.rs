//! What a pool operation or a tool call can fail with, in sentences for
//! the person (and the model reading an errored tool result).

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("MCP server {0} is not configured")]
    UnknownServer(String),
    /// The server is not connected; `status` says what it is doing instead.
    #[error("MCP server {server} is not connected ({status})")]
    NotConnected { server: String, status: String },
    #[error("MCP server {server} has no tool {tool}")]
    UnknownTool { server: String, tool: String },
    #[error("the MCP tool {tool} did not answer within {} s", .after.as_secs())]
    Timeout { tool: String, after: Duration },
    #[error("cancelled")]
    Cancelled,
    /// The server or its transport failed the call.
    #[error("MCP server {server} failed the call: {message}")]
    Call { server: String, message: String },
}

pub type Result<T> = std::result::Result<T, McpError>;
