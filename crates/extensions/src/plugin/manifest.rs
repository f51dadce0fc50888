//! `.claude-plugin/plugin.json`: the fields this app reads, the ones it
//! drops (each noted, never refused) and the paths it allows.

use serde_json::{Map, Value};

use crate::bundle::check_file_path;
use crate::error::{Error, Result};
use crate::skill_md::validate_name;

/// Where a plugin's manifest sits, relative to its root.
pub const PLUGIN_MANIFEST: &str = ".claude-plugin/plugin.json";
/// The field every manifest refusal names.
pub(crate) const MANIFEST_FIELD: &str = "plugin.json";
/// The skills folder when the manifest names none.
pub(crate) const DEFAULT_SKILLS: &str = "skills";
/// The MCP servers file when the manifest names none, read when it exists.
pub(crate) const DEFAULT_MCP_FILE: &str = ".mcp.json";

/// The fields this app reads.
const KNOWN_FIELDS: &[&str] = &[
    "name",
    "version",
    "description",
    "author",
    "homepage",
    "repository",
    "license",
    "keywords",
    "skills",
    "mcpServers",
    "enabled",
    "$schema",
];

/// Where a plugin's MCP servers are declared.
#[derive(Debug, Clone, PartialEq)]
pub enum McpServersDecl {
    /// Nothing declared: `.mcp.json` at the root, when it exists.
    Default,
    /// A JSON file, relative to the root.
    File(String),
    /// The `mcpServers` object itself.
    Inline(Map<String, Value>),
}

/// A parsed `plugin.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginManifest {
    /// Kebab-case, like a skill's name.
    pub name: String,
    pub version: Option<String>,
    pub description: String,
    /// The author's name (`"Ann"` or `{"name": "Ann", "email": …}`).
    pub author: Option<String>,
    pub homepage: Option<String>,
    /// A URL (`"…"` or `{"type": "git", "url": "…"}`).
    pub repository: Option<String>,
    pub license: Option<String>,
    pub keywords: Vec<String>,
    /// The skills folders, relative to the root without `./`; `None` when
    /// not given (then `skills/`).
    pub skills: Option<Vec<String>>,
    pub mcp_servers: McpServersDecl,
    /// Whether the plugin is on until the person switches it (default true).
    pub enabled: bool,
    /// The fields present that this app does not read (`commands`,
    /// `hooks`…), dropped.
    pub dropped: Vec<String>,
}

impl PluginManifest {
    /// Reads the fields of a parsed `plugin.json` object. A field of the
    /// wrong shape, a name that is not kebab-case or a path leaving the
    /// plugin is refused as `plugin.json: <field> …`.
    pub fn from_object(object: &Map<String, Value>) -> Result<Self> {
        let name = match object.get("name") {
            Some(Value::String(name)) => name.trim().to_owned(),
            None | Some(Value::Null) => return Err(refuse("name is required")),
            Some(_) => return Err(refuse("name must be text")),
        };
        check_plugin_name(&name)?;
        let skills = match object.get("skills") {
            None | Some(Value::Null) => None,
            Some(Value::String(path)) => Some(vec![manifest_path("skills", path)?]),
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| match item {
                        Value::String(path) => manifest_path(&format!("skills[{i}]"), path),
                        _ => Err(refuse(format!("skills[{i}] must be a path as text"))),
                    })
                    .collect::<Result<_>>()?,
            ),
            Some(_) => return Err(refuse("skills must be a path or a list of paths")),
        };
        let mcp_servers = match object.get("mcpServers") {
            None | Some(Value::Null) => McpServersDecl::Default,
            Some(Value::String(path)) => McpServersDecl::File(manifest_path("mcpServers", path)?),
            Some(Value::Object(servers)) => McpServersDecl::Inline(servers.clone()),
            Some(_) => {
                return Err(refuse(
                    "mcpServers must be a path to a JSON file or an object of servers",
                ));
            }
        };
        let keywords = match object.get("keywords") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or_else(|| refuse("keywords must be a list of words"))?,
            Some(_) => return Err(refuse("keywords must be a list of words")),
        };
        let enabled = match object.get("enabled") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(enabled)) => *enabled,
            Some(_) => return Err(refuse("enabled must be true or false")),
        };
        let dropped = object
            .keys()
            .filter(|key| !KNOWN_FIELDS.contains(&key.as_str()))
            .cloned()
            .collect();
        Ok(Self {
            name,
            version: text(object, "version")?,
            description: text(object, "description")?.unwrap_or_default(),
            author: named(object, "author", "name")?,
            homepage: text(object, "homepage")?,
            repository: named(object, "repository", "url")?,
            license: text(object, "license")?,
            keywords,
            skills,
            mcp_servers,
            enabled,
            dropped,
        })
    }
}

/// `plugin.json: <message>`.
pub(crate) fn refuse(message: impl Into<String>) -> Error {
    Error::invalid(MANIFEST_FIELD, message)
}

/// A plugin's name follows the skill name rule: it keys the folder, the
/// enablement switch and `plugin:<name>` skill sources.
pub(crate) fn check_plugin_name(name: &str) -> Result<()> {
    validate_name(name).map_err(|_| {
        if name.is_empty() {
            refuse("name is required")
        } else {
            refuse(format!(
                "name {name:?} must be kebab-case: lower-case letters and digits in words joined by single hyphens, at most 64 characters, like my-plugin"
            ))
        }
    })
}

/// One sentence for each field or folder that is left out.
pub(crate) fn dropped_note(field: &str) -> String {
    let plural = match field {
        "commands" => "commands",
        "agents" => "agents",
        "hooks" => "hooks",
        "outputStyles" => "output styles",
        "lspServers" => "LSP servers",
        other => return format!("{other} is not supported and was left out"),
    };
    format!("{plural} are not supported and were left out")
}

fn text(object: &Map<String, Value>, field: &str) -> Result<Option<String>> {
    match object.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_owned())),
        Some(_) => Err(refuse(format!("{field} must be text"))),
    }
}

/// A field given as text or as an object whose `key` is the text.
fn named(object: &Map<String, Value>, field: &str, key: &str) -> Result<Option<String>> {
    match object.get(field) {
        Some(Value::Object(inner)) => match inner.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_owned())),
            Some(_) => Err(refuse(format!("{field}.{key} must be text"))),
        },
        _ => text(object, field).map_err(|_| refuse(format!("{field} must be text or an object"))),
    }
}

/// A path from the manifest: relative to the root, `/`-separated, never
/// leaving it. Returned without `./` or a trailing `/`; the root itself is
/// `""`.
pub(crate) fn manifest_path(field: &str, raw: &str) -> Result<String> {
    let bad = |why: &str| refuse(format!("{field} path {raw:?} {why}"));
    let trimmed = raw.trim();
    if trimmed.starts_with('/')
        || trimmed.starts_with('\\')
        || trimmed.as_bytes().get(1) == Some(&b':')
    {
        return Err(bad("must be relative to the plugin's folder, not absolute"));
    }
    let mut path = trimmed;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    let path = path.trim_end_matches('/');
    if path.is_empty() || path == "." {
        return Ok(String::new());
    }
    if path.split('/').any(|part| part == "..") {
        return Err(bad("must stay inside the plugin's folder (no ..)"));
    }
    check_file_path(path).map_err(|e| match e {
        Error::Invalid { message, .. } => bad(&message),
        other => other,
    })?;
    Ok(path.to_owned())
}

/// The servers object of an MCP servers file: Claude Code's
/// `{"mcpServers": {…}}` or the bare object of servers. Each server must
/// be an object; its fields are the MCP crate's to read.
pub(crate) fn servers_of_file(path: &str, bytes: &[u8]) -> Result<Map<String, Value>> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| Error::invalid(path, format!("is not valid JSON: {e}")))?;
    let Value::Object(mut object) = value else {
        return Err(Error::invalid(path, "must be a JSON object of MCP servers"));
    };
    let servers = match object.remove("mcpServers") {
        Some(Value::Object(servers)) => servers,
        Some(_) => {
            return Err(Error::invalid(
                path,
                "mcpServers must be an object of servers",
            ));
        }
        None => object,
    };
    check_servers(path, &servers)?;
    Ok(servers)
}

/// Every server entry is an object.
pub(crate) fn check_servers(field: &str, servers: &Map<String, Value>) -> Result<()> {
    match servers.iter().find(|(_, server)| !server.is_object()) {
        Some((id, _)) => Err(Error::invalid(
            field,
            format!("server {id} must be an object with a command or a url"),
        )),
        None => Ok(()),
    }
}
