//! `app_diagnostics`: what a bug report needs, as text to paste.
//!
//! Built only from states and names: versions, the system, each provider's
//! and MCP server's status and the sentence that explains it. Never a field
//! value (keys, URLs, headers, environment), a message or a file; the app
//! scrubs the text once more before it leaves.

use std::fmt::Write as _;

use pizza_protocol::{
    ApiError, AppDiagnostics, AppDiagnosticsParams, BuildProfile, McpServerListParams, McpStatus,
    McpTransportKind, PROTOCOL_VERSION, ProviderInfo, ProviderListParams, ProviderStatus,
};

use crate::Host;

/// What only the app knows of where it runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Platform {
    /// The web engine's name and version, e.g. `WebKitGTK 2.50.1`.
    pub webview: Option<String>,
}

impl Platform {
    #[must_use]
    pub fn with_webview(mut self, webview: impl Into<String>) -> Self {
        self.webview = Some(webview.into());
        self
    }
}

/// The operating system in words: the distribution's own name on Linux.
fn os_name() -> String {
    let arch = std::env::consts::ARCH;
    let pretty = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|line| {
                line.strip_prefix("PRETTY_NAME=")
                    .map(|v| v.trim().trim_matches('"').to_owned())
            })
        })
        .filter(|name| !name.is_empty());
    match pretty {
        Some(name) => format!("{name} ({} {arch})", std::env::consts::OS),
        None => format!("{} {arch}", std::env::consts::OS),
    }
}

fn provider_line(provider: &ProviderInfo) -> String {
    let state = match &provider.status {
        ProviderStatus::Ready => "ready".to_owned(),
        ProviderStatus::Degraded { code, message, .. } => format!("degraded ({code}): {message}"),
        ProviderStatus::Error { code, message, .. } => format!("error ({code}): {message}"),
        ProviderStatus::Unconfigured => "not configured".to_owned(),
    };
    let how = if provider.configured {
        ""
    } else {
        " (found on this machine)"
    };
    format!("  {}{how}: {state}", provider.name)
}

fn mcp_state(status: &McpStatus, tools: usize) -> String {
    match status {
        McpStatus::Loading => "connecting".to_owned(),
        McpStatus::Retrying { attempt, message } => {
            format!("retrying (attempt {attempt}): {message}")
        }
        McpStatus::Connected => format!("connected, {tools} tools"),
        McpStatus::Error { message } => format!("error: {message}"),
        McpStatus::Crashed { message } => format!("crashed: {message}"),
        McpStatus::Disabled => "off".to_owned(),
    }
}

fn transport(kind: McpTransportKind) -> &'static str {
    match kind {
        McpTransportKind::Stdio => "stdio",
        McpTransportKind::Http => "http",
        McpTransportKind::Sse => "sse",
    }
}

impl Host {
    /// Versions, the system, and the providers' and MCP servers' states.
    pub async fn app_diagnostics(
        &self,
        _params: AppDiagnosticsParams,
        platform: Platform,
    ) -> Result<AppDiagnostics, ApiError> {
        let info = self.app_info(pizza_protocol::AppInfoParams {}).await?;
        let profile = match info.build_profile {
            BuildProfile::Debug => "debug",
            BuildProfile::Release => "release",
        };
        let mut text = String::new();
        let _ = writeln!(
            text,
            "{} {} ({profile} build, protocol {PROTOCOL_VERSION})",
            info.name, info.version
        );
        let _ = writeln!(text, "OS: {}", os_name());
        let _ = writeln!(
            text,
            "Web engine: {}",
            platform.webview.as_deref().unwrap_or("unknown")
        );

        let _ = writeln!(text, "Providers:");
        let providers = self.provider_list(ProviderListParams {}).await?.providers;
        let mut any = false;
        for provider in providers
            .iter()
            .filter(|p| p.configured || p.status != ProviderStatus::Unconfigured)
        {
            any = true;
            let _ = writeln!(text, "{}", provider_line(provider));
        }
        if !any {
            let _ = writeln!(text, "  none configured");
        }

        let _ = writeln!(text, "MCP servers:");
        let servers = self.mcp_server_list(McpServerListParams {}).await?.servers;
        if servers.is_empty() {
            let _ = writeln!(text, "  none");
        }
        for server in &servers {
            let from = server
                .plugin
                .as_deref()
                .map(|plugin| format!(", from plugin {plugin}"))
                .unwrap_or_default();
            let _ = writeln!(
                text,
                "  {} ({}{from}): {}",
                server.id,
                transport(server.transport),
                mcp_state(&server.status, server.tools.len())
            );
        }
        Ok(AppDiagnostics { text })
    }
}
