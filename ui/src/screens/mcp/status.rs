//! A server's status in words: the `data-state` name, the dot's class and
//! one sentence for its card, and the status bar's one-line summary of them
//! all.

use pizza_protocol::{McpServerView, McpStatus};

/// The wire name of the status, for `data-state`.
pub(crate) fn state_name(status: &McpStatus) -> &'static str {
    match status {
        McpStatus::Loading => "loading",
        McpStatus::Retrying { .. } => "retrying",
        McpStatus::Connected => "connected",
        McpStatus::Error { .. } => "error",
        McpStatus::Crashed { .. } => "crashed",
        McpStatus::Disabled => "disabled",
    }
}

/// The status dot's modifier (the classes the Skills page uses).
pub(crate) fn dot_class(status: &McpStatus) -> &'static str {
    match status {
        McpStatus::Connected => "ready",
        McpStatus::Loading | McpStatus::Retrying { .. } => "degraded",
        McpStatus::Error { .. } | McpStatus::Crashed { .. } => "error",
        McpStatus::Disabled => "unconfigured",
    }
}

/// One sentence for the card, never a bare code.
pub(crate) fn sentence(server: &McpServerView) -> String {
    let reason = |message: &str| message.trim().trim_end_matches('.').to_owned();
    match &server.status {
        McpStatus::Loading => String::from("Connecting…"),
        McpStatus::Retrying { attempt, message } => format!(
            "Could not connect: {}. Trying again (attempt {attempt})…",
            reason(message)
        ),
        McpStatus::Connected => match server.tools.len() {
            1 => String::from("Connected · 1 tool."),
            n => format!("Connected · {n} tools."),
        },
        McpStatus::Error { message } => format!("Can’t connect: {}.", reason(message)),
        McpStatus::Crashed { message } => {
            format!(
                "It stopped unexpectedly: {}. Reconnecting…",
                reason(message)
            )
        }
        McpStatus::Disabled => String::from("Switched off."),
    }
}

/// Whether the card offers Reconnect: the server is not connected and is
/// not on its way there by itself, or the person may not want to wait.
pub(crate) fn can_reconnect(status: &McpStatus) -> bool {
    matches!(
        status,
        McpStatus::Error { .. } | McpStatus::Crashed { .. } | McpStatus::Retrying { .. }
    )
}

/// How healthy the servers are together, for the status bar's dot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Health {
    Ok,
    Degraded,
    Error,
}

impl Health {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Degraded => "degraded",
            Self::Error => "error",
        }
    }

    pub(crate) fn dot_class(self) -> &'static str {
        match self {
            Self::Ok => "ready",
            Self::Degraded => "degraded",
            Self::Error => "error",
        }
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The status bar's line: "3 servers connected", "4 servers · 1 error",
/// nothing when no server is configured.
pub(crate) fn summary(servers: &[McpServerView]) -> Option<(Health, String)> {
    if servers.is_empty() {
        return None;
    }
    let of = |pick: fn(&McpStatus) -> bool| servers.iter().filter(|s| pick(&s.status)).count();
    let errors = of(|s| matches!(s, McpStatus::Error { .. } | McpStatus::Crashed { .. }));
    let connecting = of(|s| matches!(s, McpStatus::Loading | McpStatus::Retrying { .. }));
    let off = of(|s| matches!(s, McpStatus::Disabled));
    let connected = of(McpStatus::is_connected);
    let total = count(servers.len(), "server", "servers");
    let mut parts = Vec::new();
    let health = if errors > 0 {
        parts.push(total);
        parts.push(count(errors, "error", "errors"));
        if connecting > 0 {
            parts.push(format!("{connecting} connecting"));
        }
        Health::Error
    } else if connecting > 0 {
        parts.push(total);
        parts.push(format!("{connecting} connecting"));
        Health::Degraded
    } else {
        if connected > 0 {
            parts.push(format!(
                "{} connected",
                count(connected, "server", "servers")
            ));
        } else {
            parts.push(total);
        }
        Health::Ok
    };
    if off > 0 {
        parts.push(format!("{off} off"));
    }
    Some((health, parts.join(" · ")))
}

#[cfg(test)]
#[path = "status_tests.rs"]
mod tests;
