//! Tool refs a skill declares (`read_file`, `mcp:github:*`) and the
//! resolver seam readiness asks whether each exists.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// Every built-in tool a skill may name.
pub const BUILTIN_TOOLS: &[&str] = &[
    "ls",
    "read_file",
    "glob",
    "grep",
    "write_file",
    "edit_file",
    "eval",
];

/// The built-in tools that exist today: the filesystem tools (`eval` comes later).
pub const FILESYSTEM_TOOLS: &[&str] =
    &["ls", "read_file", "glob", "grep", "write_file", "edit_file"];

/// Longest tool ref accepted, in characters.
pub const TOOL_REF_MAX_CHARS: usize = 256;

/// One tool a skill declares.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolRef {
    /// A built-in tool, by name (one of [`BUILTIN_TOOLS`]).
    Builtin(String),
    /// Tools of one MCP server: `mcp:<server>:<tool>`, `mcp:<server>:*`,
    /// `mcp:<server>:<prefix>*`.
    Mcp { server: String, tool: McpToolMatch },
}

/// Which tools of an MCP server an `mcp:` ref means.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum McpToolMatch {
    Exact(String),
    /// `*`: every tool the server offers.
    All,
    /// `<prefix>*`: the tools whose names start with the prefix.
    Prefix(String),
}

impl McpToolMatch {
    /// Whether a tool of the server with this name is meant.
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            Self::Exact(name) => name == tool,
            Self::All => true,
            Self::Prefix(prefix) => tool.starts_with(prefix.as_str()),
        }
    }
}

fn valid_server_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

impl ToolRef {
    /// Parses a ref; the error is a sentence without the field, which the
    /// caller knows (`tools[2]`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("a tool ref cannot be empty".to_owned());
        }
        if text.chars().count() > TOOL_REF_MAX_CHARS {
            return Err(format!(
                "a tool ref has at most {TOOL_REF_MAX_CHARS} characters"
            ));
        }
        let Some(rest) = text.strip_prefix("mcp:") else {
            if BUILTIN_TOOLS.contains(&text) {
                return Ok(Self::Builtin(text.to_owned()));
            }
            return Err(format!(
                "unknown tool {text}: use a built-in tool ({}) or mcp:<server>:<tool>",
                BUILTIN_TOOLS.join(", ")
            ));
        };
        let Some((server, tool)) = rest.split_once(':') else {
            return Err(format!(
                "{text} is malformed: write mcp:<server>:<tool>, mcp:<server>:* or mcp:<server>:<prefix>*"
            ));
        };
        if server.is_empty() || !server.chars().all(valid_server_char) {
            return Err(format!(
                "{text}: the server name must be letters, digits, '-', '_' or '.'"
            ));
        }
        if tool.is_empty() {
            return Err(format!("{text}: the tool name is missing"));
        }
        if tool.chars().any(|c| c.is_whitespace() || c == ':') {
            return Err(format!("{text}: a tool name has no spaces or ':'"));
        }
        let wildcards = tool.matches('*').count();
        let tool = match (wildcards, tool.strip_suffix('*')) {
            (0, _) => McpToolMatch::Exact(tool.to_owned()),
            (1, Some("")) => McpToolMatch::All,
            (1, Some(prefix)) => McpToolMatch::Prefix(prefix.to_owned()),
            _ => return Err(format!("{text}: a wildcard '*' may only come last")),
        };
        Ok(Self::Mcp {
            server: server.to_owned(),
            tool,
        })
    }

    /// The MCP server the ref depends on, if any.
    pub fn mcp_server(&self) -> Option<&str> {
        match self {
            Self::Builtin(_) => None,
            Self::Mcp { server, .. } => Some(server),
        }
    }

    /// Resolves an MCP ref against the tools its server offers: the names
    /// it means, or unavailable when an exact tool is missing or a wildcard
    /// matches nothing. A built-in ref resolves to itself.
    pub fn resolve_in<'a>(&self, server_tools: impl IntoIterator<Item = &'a str>) -> Resolution {
        match self {
            Self::Builtin(name) => Resolution::Ready(vec![name.clone()]),
            Self::Mcp { server, tool } => {
                let matched: BTreeSet<&str> = server_tools
                    .into_iter()
                    .filter(|name| tool.matches(name))
                    .collect();
                if matched.is_empty() {
                    let reason = match tool {
                        McpToolMatch::Exact(name) => {
                            format!("MCP server {server} has no tool {name}")
                        }
                        McpToolMatch::All => format!("MCP server {server} offers no tools"),
                        McpToolMatch::Prefix(_) => {
                            format!("{self} matches no tool of MCP server {server}")
                        }
                    };
                    return Resolution::Unavailable(reason);
                }
                Resolution::Ready(matched.into_iter().map(str::to_owned).collect())
            }
        }
    }
}

impl fmt::Display for ToolRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Builtin(name) => f.write_str(name),
            Self::Mcp { server, tool } => match tool {
                McpToolMatch::Exact(name) => write!(f, "mcp:{server}:{name}"),
                McpToolMatch::All => write!(f, "mcp:{server}:*"),
                McpToolMatch::Prefix(prefix) => write!(f, "mcp:{server}:{prefix}*"),
            },
        }
    }
}

impl FromStr for ToolRef {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// What a ref resolves to now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// The concrete tool names it means (never empty).
    Ready(Vec<String>),
    /// Its server is still connecting or listing its tools.
    Loading,
    /// It cannot be used now, and why, in a sentence for the person.
    Unavailable(String),
}

/// The seam readiness resolves refs through. The MCP client pool will
/// implement it from its discovery snapshots; an unresolvable ref makes
/// its skill unavailable, never an error.
pub trait ToolResolver: Send + Sync {
    fn resolve(&self, tool: &ToolRef) -> Resolution;
}

/// The resolver while no MCP server can be configured: the built-in tools
/// it was given are ready, every MCP ref is unavailable.
#[derive(Debug, Clone)]
pub struct BuiltinToolResolver {
    available: BTreeSet<String>,
}

impl BuiltinToolResolver {
    /// Only these built-in tools exist (e.g. without `eval`).
    pub fn with_builtins<'a>(available: impl IntoIterator<Item = &'a str>) -> Self {
        Self {
            available: available.into_iter().map(str::to_owned).collect(),
        }
    }
}

impl Default for BuiltinToolResolver {
    /// The filesystem tools; `eval` is not there yet.
    fn default() -> Self {
        Self::with_builtins(FILESYSTEM_TOOLS.iter().copied())
    }
}

impl ToolResolver for BuiltinToolResolver {
    fn resolve(&self, tool: &ToolRef) -> Resolution {
        match tool {
            ToolRef::Builtin(name) if self.available.contains(name) => {
                Resolution::Ready(vec![name.clone()])
            }
            ToolRef::Builtin(name) => {
                Resolution::Unavailable(format!("the {name} tool is not available in this version"))
            }
            ToolRef::Mcp { server, .. } => {
                Resolution::Unavailable(format!("MCP server {server} is not configured"))
            }
        }
    }
}
