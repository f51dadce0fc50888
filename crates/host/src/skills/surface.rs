//! The tools skills resolve their refs against: the built-in tools and, for
//! `mcp:` refs, what each configured MCP server has now. Rebuilt whenever a
//! server's status or tools change; a skill's readiness follows it while its
//! saved switch never changes.

use std::collections::BTreeMap;
use std::sync::Arc;

use pizza_extensions::{BuiltinToolResolver, McpToolMatch, Resolution, ToolRef, ToolResolver};
use pizza_mcp::qualified_name;
use pizza_protocol::McpStatus;
use pizza_tools::ToolRegistry;

/// What readiness needs of one configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServerFacts {
    pub(crate) enabled: bool,
    pub(crate) status: McpStatus,
    /// The server's own tool names (empty unless connected).
    pub(crate) tools: Vec<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct HostResolver {
    builtins: BuiltinToolResolver,
    servers: BTreeMap<String, ServerFacts>,
}

impl HostResolver {
    pub(crate) fn new(
        builtins: BuiltinToolResolver,
        servers: BTreeMap<String, ServerFacts>,
    ) -> Self {
        Self { builtins, servers }
    }

    pub(crate) fn server(&self, id: &str) -> Option<&ServerFacts> {
        self.servers.get(id)
    }
}

impl ToolResolver for HostResolver {
    fn resolve(&self, tool: &ToolRef) -> Resolution {
        let ToolRef::Mcp { server, tool } = tool else {
            return self.builtins.resolve(tool);
        };
        let Some(facts) = self.servers.get(server) else {
            return Resolution::Unavailable(format!("MCP server {server} is not configured"));
        };
        if !facts.enabled {
            return Resolution::Unavailable(format!("MCP server {server} is switched off"));
        }
        match &facts.status {
            McpStatus::Loading => return Resolution::Loading,
            McpStatus::Connected => {}
            other => {
                return Resolution::Unavailable(format!(
                    "MCP server {server} is not connected ({})",
                    pizza_mcp::status_words(other)
                ));
            }
        }
        let names: Vec<String> = match tool {
            McpToolMatch::Exact(name) => {
                facts.tools.iter().filter(|t| *t == name).cloned().collect()
            }
            McpToolMatch::All => facts.tools.clone(),
            McpToolMatch::Prefix(prefix) => facts
                .tools
                .iter()
                .filter(|t| t.starts_with(prefix.as_str()))
                .cloned()
                .collect(),
        };
        if names.is_empty() {
            return Resolution::Unavailable(match tool {
                McpToolMatch::Exact(name) => format!("MCP server {server} has no tool {name}"),
                McpToolMatch::All => format!("MCP server {server} offers no tools"),
                McpToolMatch::Prefix(prefix) => {
                    format!("MCP server {server} has no tool starting with {prefix}")
                }
            });
        }
        Resolution::Ready(names.iter().map(|n| qualified_name(server, n)).collect())
    }
}

/// The registry a roster compiles from (the built-in tools and every MCP
/// tool) with its resolver: replaced whole.
#[derive(Debug, Clone)]
pub(crate) struct ToolSurface {
    pub(crate) registry: ToolRegistry,
    pub(crate) resolver: HostResolver,
}

impl ToolSurface {
    /// Only the built-in tools: before any MCP server is read.
    pub(crate) fn builtin(host_tools: &ToolRegistry) -> Arc<Self> {
        Arc::new(Self {
            registry: host_tools.clone(),
            resolver: HostResolver::new(
                BuiltinToolResolver::with_builtins(host_tools.names()),
                BTreeMap::new(),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolver(status: McpStatus, enabled: bool) -> HostResolver {
        HostResolver::new(
            BuiltinToolResolver::default(),
            BTreeMap::from([(
                "everything".to_owned(),
                ServerFacts {
                    enabled,
                    status,
                    tools: vec!["echo".into(), "add".into(), "echo_twice".into()],
                },
            )]),
        )
    }

    fn parse(text: &str) -> ToolRef {
        ToolRef::parse(text).unwrap()
    }

    #[test]
    fn refs_resolve_against_a_connected_server() {
        let r = resolver(McpStatus::Connected, true);
        assert_eq!(
            r.resolve(&parse("mcp:everything:echo*")),
            Resolution::Ready(vec![
                "everything__echo".into(),
                "everything__echo_twice".into()
            ])
        );
        assert_eq!(
            r.resolve(&parse("mcp:everything:*")).clone(),
            Resolution::Ready(vec![
                "everything__echo".into(),
                "everything__add".into(),
                "everything__echo_twice".into()
            ])
        );
        assert!(
            matches!(r.resolve(&parse("mcp:everything:nope")), Resolution::Unavailable(m) if m.contains("no tool nope"))
        );
        assert!(
            matches!(r.resolve(&parse("mcp:other:*")), Resolution::Unavailable(m) if m.contains("not configured"))
        );
        assert_eq!(
            r.resolve(&parse("read_file")),
            Resolution::Ready(vec!["read_file".into()])
        );
    }

    #[test]
    fn health_and_switches_decide_the_rest() {
        assert_eq!(
            resolver(McpStatus::Loading, true).resolve(&parse("mcp:everything:*")),
            Resolution::Loading
        );
        assert!(matches!(
            resolver(McpStatus::Crashed { message: "it exited with code 3".into() }, true).resolve(&parse("mcp:everything:*")),
            Resolution::Unavailable(m) if m.contains("exited with code 3")
        ));
        assert!(matches!(
            resolver(McpStatus::Connected, false).resolve(&parse("mcp:everything:*")),
            Resolution::Unavailable(m) if m.contains("switched off")
        ));
    }
}
