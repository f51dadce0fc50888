//! Placeholders in a server's configuration, resolved only for the live
//! connection: the file, the UI and every list keep them as written, so a
//! secret or a token from the environment never lands in `.mcp.json`.

use std::collections::BTreeMap;
use std::path::Path;

use crate::config::ServerTransport;

/// Where placeholder values come from. Lookups are functions so the host
/// decides what the environment and the keychain are (and tests fake both).
pub struct Expander<'a> {
    /// `${VAR}`: the host's environment.
    pub env: &'a (dyn Fn(&str) -> Option<String> + Sync),
    /// `${secret:NAME}`: the OS keychain entry NAME.
    pub secrets: &'a (dyn Fn(&str) -> Option<String> + Sync),
    /// The plugin's folder, for a plugin's server; `None` for the person's own.
    pub plugin_root: Option<&'a Path>,
}

impl std::fmt::Debug for Expander<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Expander")
            .field("plugin_root", &self.plugin_root)
            .finish_non_exhaustive()
    }
}

/// What a secret kept for a server is: an env value or a header value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SecretKind {
    Env,
    Header,
}

const SECRET_PREFIX: &str = "secret:";

/// `${VAR}`, `${VAR:-default}`, `${CLAUDE_PLUGIN_ROOT}`/`${PLUGIN_ROOT}`
/// (only for plugin servers), `${secret:NAME}` (the OS keychain entry NAME).
/// `$$`? no — a lone `$` or `${` without `}` is literal. Unset var without
/// default → Err("${X} is not set").
///
/// `:-` takes the default when the variable is unset or empty, as a shell
/// does. Anything between `${` and `}` that is not one of these forms
/// (`${not a name}`) is left as it is. Expanded values are not expanded
/// again, so a secret containing `${` stays what it is.
pub fn expand(text: &str, ex: &Expander<'_>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        match resolve(inner, ex)? {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + 2 + end + 1]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The value of one placeholder body; `None` when it is not a placeholder.
fn resolve(inner: &str, ex: &Expander<'_>) -> Result<Option<String>, String> {
    if let Some(name) = inner.strip_prefix(SECRET_PREFIX) {
        if !is_secret_name(name) {
            return Ok(None);
        }
        return (ex.secrets)(name)
            .map(Some)
            .ok_or_else(|| format!("${{{inner}}} is not in the OS keychain"));
    }
    let (name, default) = match inner.split_once(":-") {
        Some((name, default)) => (name, Some(default)),
        None => (inner, None),
    };
    if !is_var_name(name) {
        return Ok(None);
    }
    if name == "CLAUDE_PLUGIN_ROOT" || name == "PLUGIN_ROOT" {
        return match ex.plugin_root {
            Some(root) => Ok(Some(root.to_string_lossy().into_owned())),
            None => Err(format!(
                "${{{name}}} only means something in a plugin's server"
            )),
        };
    }
    match ((ex.env)(name), default) {
        (Some(value), Some(default)) if value.is_empty() => Ok(Some(default.to_owned())),
        (Some(value), _) => Ok(Some(value)),
        (None, Some(default)) => Ok(Some(default.to_owned())),
        (None, None) => Err(format!("${{{name}}} is not set")),
    }
}

fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Keychain names as [`secret_name`] makes them, and the person's own.
fn is_secret_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@".contains(c))
}

/// Every string of a transport (command, args, env values, cwd, url, header
/// values); the error names the field: "env FOO: ${X} is not set".
pub fn expand_transport(t: &ServerTransport, ex: &Expander<'_>) -> Result<ServerTransport, String> {
    let one = |field: &str, text: &str| expand(text, ex).map_err(|e| format!("{field}: {e}"));
    let map = |kind: &str, values: &BTreeMap<String, String>| {
        values
            .iter()
            .map(|(name, value)| Ok((name.clone(), one(&format!("{kind} {name}"), value)?)))
            .collect::<Result<BTreeMap<_, _>, String>>()
    };
    Ok(match t {
        ServerTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => ServerTransport::Stdio {
            command: one("command", command)?,
            args: args
                .iter()
                .enumerate()
                .map(|(i, arg)| one(&format!("args[{i}]"), arg))
                .collect::<Result<_, _>>()?,
            env: map("env", env)?,
            cwd: cwd.as_deref().map(|cwd| one("cwd", cwd)).transpose()?,
        },
        ServerTransport::Http { url, headers } => ServerTransport::Http {
            url: one("url", url)?,
            headers: map("header", headers)?,
        },
        ServerTransport::Sse { url, headers } => ServerTransport::Sse {
            url: one("url", url)?,
            headers: map("header", headers)?,
        },
    })
}

/// What the file holds instead of a secret value: `${secret:NAME}`.
pub fn secret_reference(name: &str) -> String {
    format!("${{{SECRET_PREFIX}{name}}}")
}

/// `Some(NAME)` when the whole value is one `${secret:NAME}` reference.
pub fn secret_reference_name(value: &str) -> Option<&str> {
    let name = value.strip_prefix("${")?.strip_suffix('}')?;
    let name = name.strip_prefix(SECRET_PREFIX)?;
    is_secret_name(name).then_some(name)
}

/// The keychain name for a server's secret: `mcp/<server>/env/<key>` or
/// `mcp/<server>/header/<key>`.
pub fn secret_name(server_id: &str, kind: SecretKind, key: &str) -> String {
    let kind = match kind {
        SecretKind::Env => "env",
        SecretKind::Header => "header",
    };
    format!("mcp/{server_id}/{kind}/{key}")
}

#[cfg(test)]
#[path = "expand_tests.rs"]
mod tests;
