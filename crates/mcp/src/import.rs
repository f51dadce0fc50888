//! Bringing servers in from elsewhere: another `.mcp.json`, Claude
//! Desktop's configuration, or JSON pasted from a server's README.

use std::ffi::OsString;
use std::path::PathBuf;

use serde_json::Value;

use crate::config::{ConfigError, ServerConfig, ServerTransport, parse_entry};

/// Claude Desktop's config at its usual place: Linux `$XDG_CONFIG_HOME/Claude/claude_desktop_config.json`
/// (default ~/.config), macOS `~/Library/Application Support/Claude/…`, Windows `%APPDATA%\Claude\…`.
/// `None` when the variables that place it are not set.
pub fn claude_desktop_config_path() -> Option<PathBuf> {
    desktop_config_path_for(std::env::consts::OS, |name| std::env::var_os(name))
}

/// [`claude_desktop_config_path`] for an OS and an environment.
fn desktop_config_path_for(os: &str, var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    // A relative value would place the file wherever the app happens to run.
    let absolute = |name: &str| var(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let folder = match os {
        "macos" => absolute("HOME")?.join("Library/Application Support"),
        "windows" => absolute("APPDATA")?,
        _ => absolute("XDG_CONFIG_HOME").or_else(|| Some(absolute("HOME")?.join(".config")))?,
    };
    Some(folder.join("Claude").join("claude_desktop_config.json"))
}

/// One server an import would bring in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportCandidate {
    pub id: String,
    pub config: ServerConfig,
    /// The entry as the source wrote it, for [`crate::ConfigFile::upsert_many`].
    pub entry: Value,
}

/// Accepts `{"mcpServers": {…}}` (a whole .mcp.json or claude_desktop_config.json,
/// other top-level keys ignored), the `{id: entry}` object itself, or one entry
/// (an object with `command` or `url`; then `single_id` names it, required —
/// Invalid "id: name the server" otherwise). Malformed → Invalid naming the field.
/// Candidates come back sorted by id.
pub fn import_candidates(
    text: &str,
    single_id: Option<&str>,
) -> Result<Vec<ImportCandidate>, ConfigError> {
    if text.trim().is_empty() {
        return Err(ConfigError::invalid("json", "there is nothing to import"));
    }
    let root: Value = serde_json::from_str(text)
        .map_err(|e| ConfigError::invalid("json", format!("not valid JSON: {e}")))?;
    let Value::Object(object) = &root else {
        return Err(ConfigError::invalid("json", "must be a JSON object"));
    };
    if object.contains_key("command") || object.contains_key("url") {
        let id = single_id
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .ok_or_else(|| ConfigError::invalid("id", "name the server"))?;
        return Ok(vec![candidate(id, &root)?]);
    }
    let servers = match object.get("mcpServers") {
        Some(Value::Object(servers)) => servers,
        Some(_) => return Err(ConfigError::invalid("mcpServers", "must be an object")),
        None => object,
    };
    let mut candidates = servers
        .iter()
        .map(|(id, entry)| candidate(id, entry))
        .collect::<Result<Vec<_>, _>>()?;
    candidates.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(candidates)
}

fn candidate(id: &str, entry: &Value) -> Result<ImportCandidate, ConfigError> {
    Ok(ImportCandidate {
        id: id.to_owned(),
        config: parse_entry(id, entry, None)?,
        entry: entry.clone(),
    })
}

/// One line for a preview: "npx -y @x/server --flag" or the URL; never env or header values.
/// A URL's password (`https://user:pass@host`) is left out too.
pub fn summary(transport: &ServerTransport) -> String {
    match transport {
        ServerTransport::Stdio { command, args, .. } => std::iter::once(command)
            .chain(args)
            .map(|word| quoted(word))
            .collect::<Vec<_>>()
            .join(" "),
        ServerTransport::Http { url, .. } | ServerTransport::Sse { url, .. } => {
            without_password(url)
        }
    }
}

/// A word as a shell would need it to stay one word.
fn quoted(word: &str) -> String {
    if !word.is_empty()
        && !word
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\'')
    {
        return word.to_owned();
    }
    format!("\"{}\"", word.replace('\\', "\\\\").replace('"', "\\\""))
}

fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
            format!("{scheme}://{user}@{host}{path}")
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
#[path = "import_tests.rs"]
mod tests;
