//! What the MCP page is shown of a server: its configuration with every env
//! and header value redacted, its live status, tools (with the drift flag)
//! and stderr tail.

use std::collections::BTreeMap;

use pizza_mcp::{McpToolDef, ServerConfig, ServerSnapshot, ServerTransport, secret_reference_name};
use pizza_protocol::{
    McpKeyValue, McpServerView, McpStatus, McpToolView, McpTransportKind, REDACTED,
};

/// A reviewed definition: its hash and the JSON it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reviewed {
    pub(crate) hash: String,
    pub(crate) definition: String,
}

/// Reviews by (server, tool).
pub(crate) type Reviews = BTreeMap<(String, String), Reviewed>;

pub(crate) fn transport_kind(transport: &ServerTransport) -> McpTransportKind {
    match transport {
        ServerTransport::Stdio { .. } => McpTransportKind::Stdio,
        ServerTransport::Http { .. } => McpTransportKind::Http,
        ServerTransport::Sse { .. } => McpTransportKind::Sse,
    }
}

fn redacted(values: &BTreeMap<String, String>) -> Vec<McpKeyValue> {
    values
        .iter()
        .map(|(name, value)| McpKeyValue {
            name: name.clone(),
            value: REDACTED.to_owned(),
            secret: secret_reference_name(value).is_some(),
        })
        .collect()
}

/// The diff of a changed definition; `None` when it is as reviewed (or
/// was never seen, which counts as reviewed when first listed).
pub(crate) fn drift(tool: &McpToolDef, reviews: &Reviews) -> Option<String> {
    let reviewed = reviews.get(&(tool.server.clone(), tool.name.clone()))?;
    if reviewed.hash == tool.hash {
        return None;
    }
    let before = serde_json::from_str::<serde_json::Value>(&reviewed.definition)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| reviewed.definition.clone());
    let after = serde_json::to_string_pretty(&tool.definition).unwrap_or_default();
    let diff = similar::TextDiff::from_lines(&before, &after);
    Some(
        diff.unified_diff()
            .context_radius(2)
            .header("reviewed", "now")
            .to_string(),
    )
}

pub(crate) fn server_view(
    config: &ServerConfig,
    snapshot: Option<&ServerSnapshot>,
    reviews: &Reviews,
) -> McpServerView {
    let (command, args, cwd, url, env, headers) = match &config.transport {
        ServerTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => (
            Some(command.clone()),
            args.clone(),
            cwd.clone(),
            None,
            redacted(env),
            Vec::new(),
        ),
        ServerTransport::Http { url, headers } | ServerTransport::Sse { url, headers } => (
            None,
            Vec::new(),
            None,
            Some(url.clone()),
            Vec::new(),
            redacted(headers),
        ),
    };
    let status = snapshot.map_or(
        if config.enabled {
            McpStatus::Loading
        } else {
            McpStatus::Disabled
        },
        |s| s.status.clone(),
    );
    let tools = snapshot
        .map(|s| {
            s.tools
                .iter()
                .map(|tool| McpToolView {
                    name: tool.name.clone(),
                    qualified_name: tool.qualified_name.clone(),
                    description: tool.description.clone(),
                    input_schema: serde_json::to_string_pretty(&tool.input_schema)
                        .unwrap_or_default(),
                    changed: drift(tool, reviews),
                })
                .collect()
        })
        .unwrap_or_default();
    McpServerView {
        id: config.id.clone(),
        transport: transport_kind(&config.transport),
        enabled: config.enabled,
        status,
        command,
        args,
        cwd,
        url,
        env,
        headers,
        tools,
        stderr: snapshot.map(|s| s.stderr.clone()).unwrap_or_default(),
        instructions: snapshot.and_then(|s| s.instructions.clone()),
        plugin: config.plugin.as_ref().map(|p| p.name.clone()),
    }
}
