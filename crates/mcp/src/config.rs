//! `.mcp.json` in Claude Code's shape and the servers it configures.
//!
//! `{"mcpServers": {id: {command, args, env, cwd, enabled} |
//! {type: "http" | "sse", url, headers, enabled}}}`. Values keep their
//! `${…}` placeholders here; [`crate::expand`] resolves them only for the
//! live connection.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

mod document;
mod file;

pub use file::ConfigFile;

/// The file under the data root.
pub const MCP_CONFIG_FILE: &str = ".mcp.json";

/// The fields an entry is made of; everything else in an entry is someone
/// else's and survives our rewrites.
pub(crate) const KNOWN_ENTRY_FIELDS: &[&str] = &[
    "command", "args", "env", "cwd", "type", "url", "headers", "enabled",
];

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

/// Why a configuration cannot be read, used or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// Bad input: the message starts with the field, e.g.
    /// "mcpServers.time.command: must be a non-empty string".
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ConfigError {
    pub(crate) fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}

/// Every server of one `.mcp.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpConfig {
    /// Sorted by id.
    pub servers: Vec<ServerConfig>,
}

/// Parses a whole `.mcp.json`. Blank text and a missing `mcpServers` are an
/// empty configuration (a fresh file is not an error).
pub fn parse_config(text: &str) -> Result<McpConfig, ConfigError> {
    if text.trim().is_empty() {
        return Ok(McpConfig::default());
    }
    let root: Value = serde_json::from_str(text)
        .map_err(|e| ConfigError::invalid(MCP_CONFIG_FILE, format!("not valid JSON: {e}")))?;
    config_from_value(&root)
}

/// The configuration a parsed document describes.
pub(crate) fn config_from_value(root: &Value) -> Result<McpConfig, ConfigError> {
    let Value::Object(root) = root else {
        return Err(ConfigError::invalid(
            MCP_CONFIG_FILE,
            "must be a JSON object",
        ));
    };
    let servers = match root.get("mcpServers") {
        None => Vec::new(),
        Some(servers) => parse_servers(servers, None)?,
    };
    Ok(McpConfig { servers })
}

/// Parses an `mcpServers` object; the servers come back sorted by id.
pub fn parse_servers(
    servers: &Value,
    plugin: Option<&PluginOrigin>,
) -> Result<Vec<ServerConfig>, ConfigError> {
    let Value::Object(servers) = servers else {
        return Err(ConfigError::invalid("mcpServers", "must be an object"));
    };
    let mut parsed = servers
        .iter()
        .map(|(id, entry)| parse_entry(id, entry, plugin))
        .collect::<Result<Vec<_>, _>>()?;
    parsed.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(parsed)
}

/// Parses one server entry. `type` may be `stdio`, `http` (also
/// `streamable-http`, `streamableHttp`) or `sse`; without it an entry with a
/// `url` is streamable HTTP and one with a `command` is stdio.
pub fn parse_entry(
    id: &str,
    entry: &Value,
    plugin: Option<&PluginOrigin>,
) -> Result<ServerConfig, ConfigError> {
    let at = format!("mcpServers.{id}");
    validate_server_id(id).map_err(|message| ConfigError::invalid(&at, message))?;
    let Value::Object(entry) = entry else {
        return Err(ConfigError::invalid(at, "must be an object"));
    };
    let kind = match present(entry, "type") {
        None if present(entry, "url").is_some() => Kind::Http,
        None if present(entry, "command").is_some() => Kind::Stdio,
        None => {
            return Err(ConfigError::invalid(at, "needs a command or a url"));
        }
        Some(Value::String(kind)) => match kind.as_str() {
            "stdio" => Kind::Stdio,
            "http" | "streamable-http" | "streamableHttp" => Kind::Http,
            "sse" => Kind::Sse,
            _ => {
                return Err(ConfigError::invalid(
                    format!("{at}.type"),
                    format!("must be stdio, http or sse, not {kind:?}"),
                ));
            }
        },
        Some(_) => {
            return Err(ConfigError::invalid(
                format!("{at}.type"),
                "must be stdio, http or sse",
            ));
        }
    };
    let transport = match kind {
        Kind::Stdio => ServerTransport::Stdio {
            command: required_string(entry, &at, "command")?,
            args: string_list(entry, &at, "args")?,
            env: string_map(entry, &at, "env")?,
            cwd: optional_string(entry, &at, "cwd")?,
        },
        Kind::Http => ServerTransport::Http {
            url: url(entry, &at)?,
            headers: string_map(entry, &at, "headers")?,
        },
        Kind::Sse => ServerTransport::Sse {
            url: url(entry, &at)?,
            headers: string_map(entry, &at, "headers")?,
        },
    };
    let enabled = match present(entry, "enabled") {
        None => true,
        Some(Value::Bool(enabled)) => *enabled,
        Some(_) => {
            return Err(ConfigError::invalid(
                format!("{at}.enabled"),
                "must be true or false",
            ));
        }
    };
    Ok(ServerConfig {
        id: id.to_owned(),
        transport,
        enabled,
        plugin: plugin.cloned(),
    })
}

/// A server id is 1 to 64 of `A-Z a-z 0-9 _ -` without `__`, because tool
/// names are `<server>__<tool>` and must split back unambiguously.
pub fn validate_server_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("a server needs a name".into());
    }
    if id.len() > 64 {
        return Err("a server name is at most 64 characters".into());
    }
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!(
            "{id:?} may use only letters, digits, '_' and '-' in a server name"
        ));
    }
    if id.contains("__") {
        return Err(format!(
            "{id:?} contains \"__\", which separates a server from its tool names"
        ));
    }
    Ok(())
}

/// The entry we write for a transport: empty `args`/`env`/`headers` and an
/// absent `cwd` are left out, and so is `enabled` when it is true.
pub fn entry_json(transport: &ServerTransport, enabled: bool) -> Value {
    let mut entry = Map::new();
    match transport {
        ServerTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            entry.insert("command".into(), command.clone().into());
            if !args.is_empty() {
                entry.insert("args".into(), args.clone().into());
            }
            if !env.is_empty() {
                entry.insert("env".into(), string_object(env));
            }
            if let Some(cwd) = cwd {
                entry.insert("cwd".into(), cwd.clone().into());
            }
        }
        ServerTransport::Http { url, headers } | ServerTransport::Sse { url, headers } => {
            let kind = if matches!(transport, ServerTransport::Http { .. }) {
                "http"
            } else {
                "sse"
            };
            entry.insert("type".into(), kind.into());
            entry.insert("url".into(), url.clone().into());
            if !headers.is_empty() {
                entry.insert("headers".into(), string_object(headers));
            }
        }
    }
    if !enabled {
        entry.insert("enabled".into(), false.into());
    }
    Value::Object(entry)
}

enum Kind {
    Stdio,
    Http,
    Sse,
}

/// A field's value, `null` counting as absent (hand-written files use both).
fn present<'a>(entry: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    entry.get(key).filter(|value| !value.is_null())
}

fn required_string(entry: &Map<String, Value>, at: &str, key: &str) -> Result<String, ConfigError> {
    match present(entry, key) {
        Some(Value::String(value)) if !value.trim().is_empty() => Ok(value.clone()),
        _ => Err(ConfigError::invalid(
            format!("{at}.{key}"),
            "must be a non-empty string",
        )),
    }
}

fn optional_string(
    entry: &Map<String, Value>,
    at: &str,
    key: &str,
) -> Result<Option<String>, ConfigError> {
    match present(entry, key) {
        None => Ok(None),
        Some(_) => required_string(entry, at, key).map(Some),
    }
}

/// An http(s) URL, or one that starts with a placeholder (`${BASE}/mcp`)
/// and can only be checked once expanded.
fn url(entry: &Map<String, Value>, at: &str) -> Result<String, ConfigError> {
    let url = required_string(entry, at, "url")?;
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") || url.starts_with("${") {
        Ok(url)
    } else {
        Err(ConfigError::invalid(
            format!("{at}.url"),
            "must be an http:// or https:// URL",
        ))
    }
}

fn string_list(
    entry: &Map<String, Value>,
    at: &str,
    key: &str,
) -> Result<Vec<String>, ConfigError> {
    match present(entry, key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(item) => Ok(item.clone()),
                _ => Err(ConfigError::invalid(
                    format!("{at}.{key}[{i}]"),
                    "must be a string",
                )),
            })
            .collect(),
        Some(_) => Err(ConfigError::invalid(
            format!("{at}.{key}"),
            "must be an array of strings",
        )),
    }
}

fn string_map(
    entry: &Map<String, Value>,
    at: &str,
    key: &str,
) -> Result<BTreeMap<String, String>, ConfigError> {
    match present(entry, key) {
        None => Ok(BTreeMap::new()),
        Some(Value::Object(items)) => items
            .iter()
            .map(|(name, value)| {
                if name.trim().is_empty() {
                    return Err(ConfigError::invalid(
                        format!("{at}.{key}"),
                        "a name must not be empty",
                    ));
                }
                match value {
                    Value::String(value) => Ok((name.clone(), value.clone())),
                    _ => Err(ConfigError::invalid(
                        format!("{at}.{key}.{name}"),
                        "must be a string",
                    )),
                }
            })
            .collect(),
        Some(_) => Err(ConfigError::invalid(
            format!("{at}.{key}"),
            "must be an object of strings",
        )),
    }
}

fn string_object(values: &BTreeMap<String, String>) -> Value {
    Value::Object(
        values
            .iter()
            .map(|(name, value)| (name.clone(), Value::String(value.clone())))
            .collect(),
    )
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
