//! What the add/edit form holds, apart from its signals: the typed text
//! turned into the `McpServerEntry` the host takes, a saved server turned
//! back into text (values never shown: they stay as saved unless typed),
//! and which field a refusal is about.

use pizza_protocol::{McpEntryValue, McpKeyValue, McpServerEntry, McpServerView, McpTransportKind};

/// One env variable or header row as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KeyValueDraft {
    pub(crate) name: String,
    /// Empty on a saved row means "keep the saved value".
    pub(crate) value: String,
    pub(crate) secret: bool,
    /// The row came from the saved server, so an empty value keeps it.
    pub(crate) saved: bool,
}

impl KeyValueDraft {
    pub(crate) fn of_saved(kv: &McpKeyValue) -> Self {
        Self {
            name: kv.name.clone(),
            value: String::new(),
            secret: kv.secret,
            saved: true,
        }
    }

    /// `None` for a row left blank; a saved row with no typed value sends
    /// `value: None` so the host keeps what it has.
    fn to_entry(&self) -> Option<McpEntryValue> {
        let name = self.name.trim();
        if name.is_empty() && self.value.is_empty() {
            return None;
        }
        let value = if self.saved && self.value.is_empty() {
            None
        } else {
            Some(self.value.clone())
        };
        Some(McpEntryValue {
            name: name.to_owned(),
            value,
            secret: self.secret,
        })
    }
}

/// The whole form as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServerDraft {
    pub(crate) id: String,
    pub(crate) transport: McpTransportKind,
    pub(crate) command: String,
    /// One argument per line.
    pub(crate) args: String,
    pub(crate) cwd: String,
    pub(crate) url: String,
    pub(crate) env: Vec<KeyValueDraft>,
    pub(crate) headers: Vec<KeyValueDraft>,
    pub(crate) enabled: bool,
}

impl Default for ServerDraft {
    fn default() -> Self {
        Self {
            id: String::new(),
            transport: McpTransportKind::Stdio,
            command: String::new(),
            args: String::new(),
            cwd: String::new(),
            url: String::new(),
            env: Vec::new(),
            headers: Vec::new(),
            enabled: true,
        }
    }
}

impl ServerDraft {
    pub(crate) fn of_saved(server: &McpServerView) -> Self {
        Self {
            id: server.id.clone(),
            transport: server.transport,
            command: server.command.clone().unwrap_or_default(),
            args: server.args.join("\n"),
            cwd: server.cwd.clone().unwrap_or_default(),
            url: server.url.clone().unwrap_or_default(),
            env: server.env.iter().map(KeyValueDraft::of_saved).collect(),
            headers: server.headers.iter().map(KeyValueDraft::of_saved).collect(),
            enabled: server.enabled,
        }
    }

    /// What `mcp_server_save` gets; the host checks it and names the field
    /// it refuses.
    pub(crate) fn to_entry(&self) -> McpServerEntry {
        let cwd = self.cwd.trim();
        McpServerEntry {
            transport: self.transport,
            command: self.command.trim().to_owned(),
            args: parse_args(&self.args),
            cwd: (!cwd.is_empty()).then(|| cwd.to_owned()),
            url: self.url.trim().to_owned(),
            env: self
                .env
                .iter()
                .filter_map(KeyValueDraft::to_entry)
                .collect(),
            headers: self
                .headers
                .iter()
                .filter_map(KeyValueDraft::to_entry)
                .collect(),
            enabled: self.enabled,
        }
    }
}

/// One argument per line; blank lines are dropped, spaces inside kept.
pub(crate) fn parse_args(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

pub(crate) fn transport_value(kind: McpTransportKind) -> &'static str {
    match kind {
        McpTransportKind::Stdio => "stdio",
        McpTransportKind::Http => "http",
        McpTransportKind::Sse => "sse",
    }
}

pub(crate) fn transport_of(value: &str) -> McpTransportKind {
    match value {
        "http" => McpTransportKind::Http,
        "sse" => McpTransportKind::Sse,
        _ => McpTransportKind::Stdio,
    }
}

/// How the card names a transport.
pub(crate) fn transport_label(kind: McpTransportKind) -> &'static str {
    match kind {
        McpTransportKind::Stdio => "stdio",
        McpTransportKind::Http => "HTTP",
        McpTransportKind::Sse => "SSE",
    }
}

/// The form field an `INVALID_INPUT` message is about: the host starts it
/// with the field's name (`url: …`, `env.TOKEN: …`, `headers[0].name: …`).
pub(crate) fn field_of(message: &str) -> Option<&'static str> {
    let (key, _) = message.split_once(':')?;
    let key = key.trim();
    let head = key
        .split(|c: char| c == '.' || c == '[' || c.is_whitespace())
        .next()
        .unwrap_or(key);
    let field = match head {
        "id" | "name" => "id",
        "transport" | "type" => "transport",
        "command" => "command",
        "args" => "args",
        "cwd" => "cwd",
        "url" => "url",
        "env" => "env",
        "headers" | "header" => "headers",
        _ => return None,
    };
    Some(field)
}

#[cfg(test)]
#[path = "form_model_tests.rs"]
mod tests;
