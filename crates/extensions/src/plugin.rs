//! Plugins in the Claude Code format: a folder `<plugins dir>/<name>/` with
//! `.claude-plugin/plugin.json` that ships skills and MCP servers. Other
//! Claude Code contributions (commands, agents, hooks…) are dropped and
//! noted, never refused, so such a plugin still loads.
//!
//! A plugin's skills may not declare `hooks`, `mcpServers` or
//! `permissionMode` (Claude Code's rule): such a skill is refused on its
//! own and the plugin's other skills still load.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pizza_protocol::{PluginStatus, PluginView};
use serde_json::Value;

use crate::bundle::{SKILL_FILE, SkillBundle};
use crate::catalog::{PluginSkill, PluginSkills};
use crate::error::Error;

mod manifest;
mod tree;

pub(crate) use manifest::{MANIFEST_FIELD, check_plugin_name};
pub use manifest::{McpServersDecl, PLUGIN_MANIFEST, PluginManifest};
pub(crate) use tree::{DiskTree, MemoryTree, PluginTree};

use manifest::{DEFAULT_MCP_FILE, DEFAULT_SKILLS, check_servers, dropped_note, servers_of_file};
use tree::join;

/// The folder under the data root that holds the plugins the person installed.
pub const PLUGINS_FOLDER: &str = "plugins";

/// `<data root>/plugins`.
pub fn user_plugins_dir(data_root: &Path) -> PathBuf {
    data_root.join(PLUGINS_FOLDER)
}

/// A plugin's state; the wire's [`PluginStatus`].
pub type PluginState = PluginStatus;

/// Front matter keys a plugin's skill may not have.
const FORBIDDEN_SKILL_KEYS: &[&str] = &["hooks", "mcpServers", "permissionMode"];
/// Folders Claude Code reads by convention that this app does not.
const UNSUPPORTED_FOLDERS: &[(&str, &str)] = &[
    ("commands", "commands"),
    ("agents", "agents"),
    ("hooks", "hooks"),
    ("output-styles", "outputStyles"),
];

/// One plugin as read from its folder.
#[derive(Debug, Clone)]
pub struct Plugin {
    /// The manifest's name; the folder's name when the manifest cannot be
    /// read or names another folder.
    pub name: String,
    pub root: PathBuf,
    /// Shipped with the app: switched off, never removed.
    pub builtin: bool,
    pub manifest: Option<PluginManifest>,
    /// `Loaded`, `Incompatible` or `Failed` as read; [`PluginSet`] turns
    /// a loaded plugin that is switched off into `Disabled`.
    pub state: PluginState,
    /// Sentences: why it failed, what was left out, which skill was refused.
    pub detail: Vec<String>,
    /// Its skills, broken ones with their reason.
    pub skills: Vec<PluginSkill>,
    /// The `mcpServers` object (inline, or read from its file), unparsed:
    /// the host hands it to the MCP crate with this plugin's root.
    pub mcp_servers: Option<Value>,
}

impl Plugin {
    /// Reads the plugin in folder `root`. Never fails: a plugin that
    /// cannot be read is a `Failed` or `Incompatible` entry with why.
    pub fn load(root: &Path, builtin: bool) -> Self {
        let folder = root
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let failed = |error: &Error| Self {
            name: folder.clone(),
            root: root.to_owned(),
            builtin,
            manifest: None,
            state: PluginState::Failed,
            detail: vec![error.to_string()],
            skills: Vec::new(),
            mcp_servers: None,
        };
        match DiskTree::open(root) {
            Ok(tree) => read_plugin(&tree, root, Some(&folder), builtin).0,
            Err(e) => failed(&e),
        }
    }

    /// The ids of its MCP servers.
    pub fn server_ids(&self) -> Vec<String> {
        match &self.mcp_servers {
            Some(Value::Object(servers)) => servers.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// Its skills' names, refused ones included.
    pub fn skill_names(&self) -> Vec<String> {
        self.skills.iter().map(|s| s.name.clone()).collect()
    }

    /// The Plugins section's row; `enabled` is the person's switch.
    pub fn view(&self, enabled: bool) -> PluginView {
        let manifest = self.manifest.as_ref();
        PluginView {
            name: self.name.clone(),
            version: manifest.and_then(|m| m.version.clone()),
            description: manifest.map(|m| m.description.clone()).unwrap_or_default(),
            author: manifest.and_then(|m| m.author.clone()),
            homepage: manifest.and_then(|m| m.homepage.clone()),
            status: self.state,
            detail: self.detail.clone(),
            skills: self.skill_names(),
            servers: self.server_ids(),
            builtin: self.builtin,
            enabled,
        }
    }
}

/// Every plugin in the shipped folder (builtin) and the user's folder, by
/// name, a user plugin hiding a shipped one of the same name. A folder that
/// does not load is an entry with its reason, never hiding the others:
///
/// - `Failed`: `plugin.json` is missing, cannot be read, is not JSON or is
///   not an object.
/// - `Incompatible`: it parses but breaks a rule — a field of the wrong
///   shape, a name that is not kebab-case or is not its folder's name, a
///   `skills` or `mcpServers` path that leaves the folder (by `..`, an
///   absolute path or a link), an MCP servers file that is missing or not
///   an object of server objects, or a second `.claude-plugin/plugin.json`
///   inside it.
///
/// Dot-folders (installs in progress) and loose files are not plugins.
/// Synchronous file I/O: call it off the async threads.
pub fn load_plugins(builtin_dir: Option<&Path>, user_dir: &Path) -> Vec<Plugin> {
    let mut by_name: BTreeMap<String, Plugin> = BTreeMap::new();
    let shipped = builtin_dir.map(|dir| read_dir_plugins(dir, true));
    for plugin in shipped.into_iter().flatten() {
        by_name.entry(plugin.name.clone()).or_insert(plugin);
    }
    for plugin in read_dir_plugins(user_dir, false) {
        by_name.insert(plugin.name.clone(), plugin);
    }
    by_name.into_values().collect()
}

fn read_dir_plugins(dir: &Path, builtin: bool) -> Vec<Plugin> {
    let listing = match fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            tracing::warn!(dir = %dir.display(), error = %e, "cannot list a plugins folder");
            return Vec::new();
        }
    };
    let mut folders: Vec<PathBuf> = listing
        .flatten()
        .filter(|item| item.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|item| {
            item.file_name()
                .to_str()
                .is_some_and(|name| !name.starts_with('.'))
        })
        .map(|item| item.path())
        .collect();
    folders.sort();
    folders
        .iter()
        .map(|root| {
            let plugin = Plugin::load(root, builtin);
            if plugin.state != PluginState::Loaded {
                tracing::warn!(plugin = %plugin.name, detail = ?plugin.detail, "a plugin cannot be loaded");
            }
            plugin
        })
        .collect()
}

/// Reads a plugin from `tree`. `folder` is the name its folder has (the
/// manifest's name must equal it); `None` for a plugin about to be
/// installed under its own name. Returns the first rule it breaks, for an
/// install to refuse with.
pub(crate) fn read_plugin(
    tree: &dyn PluginTree,
    root: &Path,
    folder: Option<&str>,
    builtin: bool,
) -> (Plugin, Option<Error>) {
    let mut plugin = Plugin {
        name: folder.unwrap_or_default().to_owned(),
        root: root.to_owned(),
        builtin,
        manifest: None,
        state: PluginState::Failed,
        detail: Vec::new(),
        skills: Vec::new(),
        mcp_servers: None,
    };
    let object = match read_manifest_object(tree) {
        Ok(object) => object,
        Err(e) => {
            plugin.detail.push(e.to_string());
            return (plugin, Some(e));
        }
    };
    plugin.state = PluginState::Incompatible;
    let manifest = match PluginManifest::from_object(&object) {
        Ok(manifest) => manifest,
        Err(e) => {
            plugin.detail.push(e.to_string());
            return (plugin, Some(e));
        }
    };
    let mut problems = Vec::new();
    match folder {
        Some(folder) if folder != manifest.name => problems.push(manifest::refuse(format!(
            "name {} must equal its folder's name, {folder}",
            manifest.name
        ))),
        _ => plugin.name.clone_from(&manifest.name),
    }
    if let Some(second) = tree.second_manifest() {
        problems.push(Error::invalid(
            second,
            "is a second plugin manifest; a plugin has exactly one",
        ));
    }
    let mut notes = Vec::new();
    let skill_dirs = skill_dirs(tree, &manifest, &mut problems, &mut notes);
    let servers = match mcp_servers(tree, &manifest.mcp_servers) {
        Ok(servers) => servers,
        Err(e) => {
            problems.push(e);
            None
        }
    };
    if !problems.is_empty() {
        plugin.detail = problems.iter().map(ToString::to_string).collect();
        plugin.manifest = Some(manifest);
        let first = problems.into_iter().next();
        return (plugin, first);
    }
    plugin.skills = read_skills(tree, &manifest.name, &skill_dirs, &mut notes);
    plugin.detail = unsupported_notes(tree, &manifest);
    plugin.detail.extend(notes);
    plugin.mcp_servers = servers;
    plugin.manifest = Some(manifest);
    plugin.state = PluginState::Loaded;
    (plugin, None)
}

fn read_manifest_object(tree: &dyn PluginTree) -> Result<serde_json::Map<String, Value>, Error> {
    let bytes = tree
        .read(PLUGIN_MANIFEST)
        .map_err(|e| Error::invalid(MANIFEST_FIELD, format!("cannot be read: {e}")))?
        .ok_or_else(|| {
            Error::invalid(
                MANIFEST_FIELD,
                format!("is missing: a plugin has {PLUGIN_MANIFEST}"),
            )
        })?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(manifest::refuse("must be a JSON object")),
        Err(e) => Err(manifest::refuse(format!("is not valid JSON: {e}"))),
    }
}

/// The folders skills are read from; a path leaving the plugin is a
/// problem, a named folder that is not there only a note.
fn skill_dirs(
    tree: &dyn PluginTree,
    manifest: &PluginManifest,
    problems: &mut Vec<Error>,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let (paths, named) = match &manifest.skills {
        Some(paths) => (paths.clone(), true),
        None => (vec![DEFAULT_SKILLS.to_owned()], false),
    };
    let mut dirs = Vec::new();
    for path in paths {
        match tree.is_dir(&path) {
            Ok(true) => dirs.push(path),
            Ok(false) if named => notes.push(format!(
                "The skills folder {path} is not in the plugin; no skills were read from it."
            )),
            Ok(false) => {}
            Err(e) => problems.push(e),
        }
    }
    dirs
}

fn mcp_servers(tree: &dyn PluginTree, decl: &McpServersDecl) -> Result<Option<Value>, Error> {
    let servers = match decl {
        McpServersDecl::Inline(servers) => {
            check_servers("plugin.json: mcpServers", servers)?;
            servers.clone()
        }
        McpServersDecl::File(path) => {
            let bytes = tree.read(path)?.ok_or_else(|| {
                Error::invalid(
                    path.clone(),
                    "is missing: plugin.json names it in mcpServers",
                )
            })?;
            servers_of_file(path, &bytes)?
        }
        McpServersDecl::Default => match tree.read(DEFAULT_MCP_FILE)? {
            Some(bytes) => servers_of_file(DEFAULT_MCP_FILE, &bytes)?,
            None => return Ok(None),
        },
    };
    Ok(Some(Value::Object(servers)))
}

/// Every skill folder under `dirs` (or the folder itself when it has a
/// `SKILL.md`), each loaded on its own.
fn read_skills(
    tree: &dyn PluginTree,
    plugin: &str,
    dirs: &[String],
    notes: &mut Vec<String>,
) -> Vec<PluginSkill> {
    let mut skills: Vec<PluginSkill> = Vec::new();
    for dir in dirs {
        let is_skill = !dir.is_empty() && matches!(tree.read(&join(dir, SKILL_FILE)), Ok(Some(_)));
        let folders: Vec<(String, String)> = if is_skill {
            let name = dir.rsplit('/').next().unwrap_or(dir).to_owned();
            vec![(dir.clone(), name)]
        } else {
            tree.folders(dir)
                .into_iter()
                .map(|name| (join(dir, &name), name))
                .collect()
        };
        for (path, name) in folders {
            if skills.iter().any(|s| s.name == name) {
                notes.push(format!(
                    "A second skill named {name} (in {path}) was left out."
                ));
                continue;
            }
            let bundle = tree
                .load_skill(&path, &name)
                .map_err(|e| e.to_string())
                .and_then(refuse_forbidden);
            if let Err(reason) = &bundle {
                notes.push(format!("The skill {name} was left out: {reason}"));
            }
            skills.push(PluginSkill {
                plugin_id: plugin.to_owned(),
                name,
                bundle,
            });
        }
    }
    skills
}

fn refuse_forbidden(bundle: SkillBundle) -> Result<Arc<SkillBundle>, String> {
    let found: Vec<&str> = FORBIDDEN_SKILL_KEYS
        .iter()
        .copied()
        .filter(|key| bundle.manifest.extra.contains_key(*key))
        .collect();
    if found.is_empty() {
        Ok(Arc::new(bundle))
    } else {
        Err(format!(
            "{SKILL_FILE}: a plugin's skill may not declare {}",
            found.join(", ")
        ))
    }
}

/// One note per dropped manifest field or convention folder.
fn unsupported_notes(tree: &dyn PluginTree, manifest: &PluginManifest) -> Vec<String> {
    let mut fields: Vec<&str> = manifest.dropped.iter().map(String::as_str).collect();
    for (folder, field) in UNSUPPORTED_FOLDERS {
        if !fields.contains(field) && tree.is_dir(folder).unwrap_or(false) {
            fields.push(field);
        }
    }
    fields.into_iter().map(dropped_note).collect()
}

/// The loaded plugins with the person's switches applied.
#[derive(Debug, Clone, Default)]
pub struct PluginSet {
    plugins: Vec<Plugin>,
    switched_off: BTreeSet<String>,
}

impl PluginSet {
    /// `disabled` are the plugins switched off; a plugin whose manifest
    /// says `"enabled": false` is off as well (use [`Self::with_switches`]
    /// to switch such a plugin on).
    pub fn new(plugins: Vec<Plugin>, disabled: &BTreeSet<String>) -> Self {
        let switches = disabled.iter().map(|name| (name.clone(), false)).collect();
        Self::with_switches(plugins, &switches)
    }

    /// `switches` are the person's choices by name; a plugin without one
    /// follows its manifest's `enabled`. A loaded plugin that is off
    /// becomes `Disabled`; a broken one keeps its state.
    pub fn with_switches(mut plugins: Vec<Plugin>, switches: &BTreeMap<String, bool>) -> Self {
        let mut switched_off = BTreeSet::new();
        for plugin in &mut plugins {
            let default = plugin.manifest.as_ref().is_none_or(|m| m.enabled);
            if !switches.get(&plugin.name).copied().unwrap_or(default) {
                switched_off.insert(plugin.name.clone());
                if plugin.state == PluginState::Loaded {
                    plugin.state = PluginState::Disabled;
                }
            }
        }
        Self {
            plugins,
            switched_off,
        }
    }

    /// Every plugin, by name.
    pub fn plugins(&self) -> &[Plugin] {
        &self.plugins
    }

    pub fn get(&self, name: &str) -> Option<&Plugin> {
        self.plugins
            .binary_search_by(|p| p.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.plugins[i])
    }

    /// Whether the plugin is switched on (whatever its state).
    pub fn is_enabled(&self, name: &str) -> bool {
        !self.switched_off.contains(name)
    }

    /// The Plugins section's rows.
    pub fn views(&self) -> Vec<PluginView> {
        self.plugins
            .iter()
            .map(|p| p.view(self.is_enabled(&p.name)))
            .collect()
    }

    /// The loaded plugins' MCP servers objects with each plugin's name and root.
    pub fn mcp_servers(&self) -> Vec<(&Plugin, &Value)> {
        self.plugins
            .iter()
            .filter(|p| p.state == PluginState::Loaded)
            .filter_map(|p| p.mcp_servers.as_ref().map(|servers| (p, servers)))
            .collect()
    }
}

impl PluginSkills for PluginSet {
    /// The skills of loaded plugins only: a disabled or broken plugin
    /// contributes none.
    fn plugin_skills(&self) -> Vec<PluginSkill> {
        self.plugins
            .iter()
            .filter(|p| p.state == PluginState::Loaded)
            .flat_map(|p| p.skills.iter().cloned())
            .collect()
    }
}

#[cfg(test)]
#[path = "plugin_tests.rs"]
pub(crate) mod tests;
