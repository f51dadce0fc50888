//! Installing a plugin from a ZIP or a folder into `<data root>/plugins`,
//! and removing one.
//!
//! The source is read into memory within the limits and checked as a
//! whole — paths, the one manifest, the plugin's rules — before anything
//! is written; a refusal writes nothing. The plugin is then written in a
//! dot-folder beside its target and swapped into place in one rename, so
//! the folder is always the old plugin or the new one.

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::plugin::{MemoryTree, PLUGIN_MANIFEST, Plugin, check_plugin_name, read_plugin};
use crate::user_skills::{
    delete_folder, move_into_place, remove_quietly, sync_dir, unique_sibling, write_file,
};
use crate::zip_import::{check_entry_path, inflate_limited, list_files, open_archive};

/// Largest plugin ZIP accepted, as packed.
pub const MAX_PLUGIN_PACKED_BYTES: u64 = 50 * 1024 * 1024;
/// Most bytes a plugin's files may add up to (a ZIP's by what inflates).
pub const MAX_PLUGIN_UNPACKED_BYTES: u64 = 200 * 1024 * 1024;
/// Most files in a plugin (folders are not counted).
pub const MAX_PLUGIN_FILES: usize = 2_048;
/// Deepest folder nesting walked in a source folder.
const MAX_FOLDER_DEPTH: usize = 16;
/// A clone's history is not part of the plugin.
const GIT_FOLDER: &str = ".git";

/// What installing would bring in, for the trust prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct InstallPreview {
    pub name: String,
    pub version: Option<String>,
    pub description: String,
    /// The skills that load (refused ones are in `detail`).
    pub skills: Vec<String>,
    /// The `mcpServers` object, unparsed: what its servers will run.
    pub mcp_servers: Option<Value>,
    /// What is left out: unsupported fields and folders, refused skills.
    pub detail: Vec<String>,
    /// A plugin of this name is installed; installing replaces it.
    pub replaces: bool,
}

/// A source read into memory: its files relative to the plugin's root.
struct Staged {
    tree: MemoryTree,
    /// Files with an executable bit (an MCP server's script keeps it).
    executables: BTreeSet<String>,
}

/// Reads and checks `source` (a ZIP file or a folder) without writing.
pub fn preview_install(source: &Path, user_dir: &Path) -> Result<InstallPreview> {
    let (_, plugin) = check_source(source, user_dir)?;
    let name = plugin.name.clone();
    let manifest = plugin.manifest.as_ref();
    Ok(InstallPreview {
        version: manifest.and_then(|m| m.version.clone()),
        description: manifest.map(|m| m.description.clone()).unwrap_or_default(),
        skills: plugin
            .skills
            .iter()
            .filter(|s| s.bundle.is_ok())
            .map(|s| s.name.clone())
            .collect(),
        mcp_servers: plugin.mcp_servers,
        detail: plugin.detail,
        replaces: user_dir.join(&name).is_dir(),
        name,
    })
}

/// Installs `source` as `user_dir/<name>`, replacing a plugin of that name.
/// Returns the plugin as read back from its new folder.
pub fn install(source: &Path, user_dir: &Path) -> Result<Plugin> {
    let (staged, plugin) = check_source(source, user_dir)?;
    let name = plugin.name;
    fs::create_dir_all(user_dir).map_err(|e| Error::io("create", user_dir, e))?;
    let staging = unique_sibling(user_dir, "installing", &name);
    let target = user_dir.join(&name);
    if let Err(e) = write_staged(&staging, &staged) {
        remove_quietly(&staging);
        return Err(e);
    }
    if let Err(e) = move_into_place(&staging, &target) {
        remove_quietly(&staging);
        return Err(e);
    }
    sync_dir(user_dir);
    Ok(Plugin::load(&target, false))
}

/// Removes the installed plugin `name`. A shipped plugin is not in
/// `user_dir`, so it is not found: it can only be switched off.
pub fn remove_plugin(name: &str, user_dir: &Path) -> Result<()> {
    let not_found = || Error::PluginNotFound(name.to_owned());
    check_plugin_name(name).map_err(|_| not_found())?;
    delete_folder(user_dir, name, not_found)
}

/// The source's files and the plugin they make, refused on the first
/// rule it breaks.
fn check_source(source: &Path, user_dir: &Path) -> Result<(Staged, Plugin)> {
    let meta = fs::metadata(source).map_err(|e| Error::io("read", source, e))?;
    let staged = if meta.is_dir() {
        read_folder(source)?
    } else {
        read_zip(source, meta.len())?
    };
    let (mut plugin, problem) = read_plugin(&staged.tree, user_dir, None, false);
    if let Some(problem) = problem {
        return Err(problem);
    }
    plugin.root = user_dir.join(&plugin.name);
    Ok((staged, plugin))
}

fn read_zip(path: &Path, len: u64) -> Result<Staged> {
    let too_big = || {
        Error::invalid(
            "zip",
            format!(
                "the file is over {} MiB; a plugin ZIP has at most that",
                MAX_PLUGIN_PACKED_BYTES >> 20
            ),
        )
    };
    if len > MAX_PLUGIN_PACKED_BYTES {
        return Err(too_big());
    }
    let file = fs::File::open(path).map_err(|e| Error::io("read", path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_PLUGIN_PACKED_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, e))?;
    if bytes.len() as u64 > MAX_PLUGIN_PACKED_BYTES {
        return Err(too_big());
    }
    let mut archive = open_archive(&bytes, MAX_PLUGIN_FILES, "a plugin")?;
    let entries = list_files(&mut archive, MAX_PLUGIN_FILES, "a plugin")?;
    let prefix = plugin_root("zip", entries.iter().map(|e| e.path.as_str()))?;
    let mut staged = Staged {
        tree: MemoryTree::default(),
        executables: BTreeSet::new(),
    };
    let mut total: u64 = 0;
    for entry in &entries {
        let relative = inside(&prefix, &entry.path)?;
        let limit = MAX_PLUGIN_UNPACKED_BYTES - total;
        let data = inflate_limited(&mut archive, entry, limit)?;
        if data.len() as u64 > limit {
            return Err(past_total(&entry.path));
        }
        total += data.len() as u64;
        let executable = archive
            .by_index_raw(entry.index)
            .ok()
            .and_then(|f| f.unix_mode())
            .is_some_and(|mode| mode & 0o111 != 0);
        if executable {
            staged.executables.insert(relative.clone());
        }
        staged.tree.files.insert(relative, data);
    }
    Ok(staged)
}

fn past_total(path: &str) -> Error {
    Error::invalid(
        path.to_owned(),
        format!(
            "takes the plugin past {} MiB unpacked",
            MAX_PLUGIN_UNPACKED_BYTES >> 20
        ),
    )
}

/// Where the one manifest says the plugin starts: `""` or `"top/"`.
fn plugin_root<'a>(source: &str, paths: impl Iterator<Item = &'a str>) -> Result<String> {
    let nested = format!("/{PLUGIN_MANIFEST}");
    let manifests: Vec<&str> = paths
        .filter(|p| *p == PLUGIN_MANIFEST || p.ends_with(&nested))
        .collect();
    let found = match manifests.as_slice() {
        [] => {
            return Err(Error::invalid(
                source,
                format!("has no {PLUGIN_MANIFEST}: it is not a plugin"),
            ));
        }
        [one] => *one,
        [first, second, ..] => {
            let second = if first.len() <= second.len() {
                second
            } else {
                first
            };
            return Err(Error::invalid(
                (*second).to_owned(),
                "is a second plugin manifest; a plugin has exactly one",
            ));
        }
    };
    let prefix = &found[..found.len() - PLUGIN_MANIFEST.len()];
    if prefix.trim_end_matches('/').contains('/') {
        return Err(Error::invalid(
            found.to_owned(),
            "must be at the top or in one top folder",
        ));
    }
    Ok(prefix.to_owned())
}

/// `path` relative to the plugin's root, refused when outside it.
fn inside(prefix: &str, path: &str) -> Result<String> {
    path.strip_prefix(prefix).map(str::to_owned).ok_or_else(|| {
        Error::invalid(
            path.to_owned(),
            format!(
                "is outside the plugin's folder {}",
                prefix.trim_end_matches('/')
            ),
        )
    })
}

/// Reads a source folder within the limits. A link to a file inside the
/// folder is read as that file; a link leading outside it, or to a
/// folder, is refused. `.git` is skipped.
fn read_folder(root: &Path) -> Result<Staged> {
    let canonical = fs::canonicalize(root).map_err(|e| Error::io("read", root, e))?;
    let mut files = Vec::new();
    let mut total = 0;
    walk(&canonical, root, "", 0, &mut files, &mut total)?;
    let prefix = plugin_root("folder", files.iter().map(|(p, _, _)| p.as_str()))?;
    let mut staged = Staged {
        tree: MemoryTree::default(),
        executables: BTreeSet::new(),
    };
    for (path, data, executable) in files {
        let relative = inside(&prefix, &path)?;
        if executable {
            staged.executables.insert(relative.clone());
        }
        staged.tree.files.insert(relative, data);
    }
    Ok(staged)
}

fn walk(
    canonical: &Path,
    dir: &Path,
    prefix: &str,
    depth: usize,
    files: &mut Vec<(String, Vec<u8>, bool)>,
    total: &mut u64,
) -> Result<()> {
    let listing = fs::read_dir(dir).map_err(|e| Error::io("list", dir, e))?;
    let mut items: Vec<_> = listing
        .collect::<std::io::Result<_>>()
        .map_err(|e| Error::io("list", dir, e))?;
    items.sort_by_key(fs::DirEntry::file_name);
    for item in items {
        let path = item.path();
        let Some(name) = item.file_name().to_str().map(str::to_owned) else {
            return Err(Error::invalid(
                format!("{prefix}{}", item.file_name().to_string_lossy()),
                "has a name that is not UTF-8",
            ));
        };
        if depth == 0 && name == GIT_FOLDER {
            continue;
        }
        let relative = check_entry_path(&format!("{prefix}{name}"))?;
        let kind = item.file_type().map_err(|e| Error::io("read", &path, e))?;
        if kind.is_dir() {
            if depth + 1 >= MAX_FOLDER_DEPTH {
                return Err(Error::invalid(
                    relative,
                    format!("is nested deeper than {MAX_FOLDER_DEPTH} folders"),
                ));
            }
            walk(
                canonical,
                &path,
                &format!("{relative}/"),
                depth + 1,
                files,
                total,
            )?;
            continue;
        }
        if kind.is_symlink() {
            let target = fs::canonicalize(&path)
                .map_err(|_| Error::invalid(relative.clone(), "is a link that leads nowhere"))?;
            if !target.starts_with(canonical) {
                return Err(Error::invalid(
                    relative,
                    "is a link leading outside the plugin's folder",
                ));
            }
            if !target.is_file() {
                return Err(Error::invalid(
                    relative,
                    "is a link to a folder; copy the folder instead",
                ));
            }
        } else if !kind.is_file() {
            return Err(Error::invalid(relative, "is not a file or a folder"));
        }
        if files.len() >= MAX_PLUGIN_FILES {
            return Err(Error::invalid(
                "folder",
                format!("has more than {MAX_PLUGIN_FILES} files; a plugin has at most that"),
            ));
        }
        let meta = fs::metadata(&path).map_err(|e| Error::io("read", &path, e))?;
        let limit = MAX_PLUGIN_UNPACKED_BYTES - *total;
        if meta.len() > limit {
            return Err(past_total(&relative));
        }
        let file = fs::File::open(&path).map_err(|e| Error::io("read", &path, e))?;
        let mut data = Vec::new();
        file.take(limit + 1)
            .read_to_end(&mut data)
            .map_err(|e| Error::io("read", &path, e))?;
        if data.len() as u64 > limit {
            return Err(past_total(&relative));
        }
        *total += data.len() as u64;
        files.push((relative, data, is_executable(&meta)));
    }
    Ok(())
}

#[cfg(unix)]
fn is_executable(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &fs::Metadata) -> bool {
    false
}

fn write_staged(dir: &Path, staged: &Staged) -> Result<()> {
    fs::create_dir(dir).map_err(|e| Error::io("create", dir, e))?;
    for (relative, data) in &staged.tree.files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        }
        write_file(&path, data)?;
        if staged.executables.contains(relative) {
            make_executable(&path)?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .map_err(|e| Error::io("write", path, e))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
#[path = "plugin_install_tests.rs"]
mod tests;
