//! `<data root>/.mcp.json` on disk: read, and the edits the MCP page makes.
//!
//! The file is the person's as much as ours, so every write keeps what we do
//! not understand (other top-level keys, other fields of an entry), keeps
//! the key order, refuses to touch a file that does not parse (their hand
//! edit is never clobbered), validates the result before writing anything,
//! and replaces the file atomically.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use super::document::{Doc, position, set};
use super::{
    ConfigError, KNOWN_ENTRY_FIELDS, MCP_CONFIG_FILE, McpConfig, config_from_value, parse_config,
    parse_entry,
};

/// `.mcp.json` under a data root.
#[derive(Debug)]
pub struct ConfigFile {
    path: PathBuf,
    /// Serialises read-modify-write cycles through this handle, so two saves
    /// from the UI cannot lose one another.
    write_lock: Mutex<()>,
}

impl ConfigFile {
    /// The file `<data_root>/.mcp.json`; nothing is touched until used.
    pub fn new(data_root: &Path) -> Self {
        Self {
            path: data_root.join(MCP_CONFIG_FILE),
            write_lock: Mutex::new(()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The configuration on disk; a missing file is an empty one.
    pub fn read(&self) -> Result<McpConfig, ConfigError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => parse_config(&text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(McpConfig::default()),
            Err(e) => Err(ConfigError::io(&self.path, e)),
        }
    }

    /// Adds or replaces `id` (removing `previous_id` when renaming). Keeps every
    /// unknown top-level field and, for a replaced entry, its unknown fields
    /// (fields other than command/args/env/cwd/type/url/headers/enabled).
    /// A renamed entry keeps its place in the file; renaming onto another
    /// existing server is refused.
    pub fn upsert(
        &self,
        id: &str,
        entry: Value,
        previous_id: Option<&str>,
    ) -> Result<(), ConfigError> {
        parse_entry(id, &entry, None)?;
        let _guard = self.lock();
        let mut doc = self.load_for_write()?;
        let servers = self.servers_of(&mut doc)?;
        match previous_id.filter(|previous| *previous != id) {
            Some(previous) => {
                if position(servers, id).is_some() {
                    return Err(ConfigError::invalid(
                        "id",
                        format!("a server named {id} already exists"),
                    ));
                }
                match position(servers, previous) {
                    Some(at) => {
                        let (_, old) = servers.remove(at);
                        servers.insert(at, (id.to_owned(), merge_entry(Some(&old), entry)));
                    }
                    None => servers.push((id.to_owned(), merge_entry(None, entry))),
                }
            }
            None => put(servers, id, entry),
        }
        self.write(&doc)
    }

    /// Adds or replaces several servers in one write (an import).
    pub fn upsert_many(&self, entries: Vec<(String, Value)>) -> Result<(), ConfigError> {
        for (id, entry) in &entries {
            parse_entry(id, entry, None)?;
        }
        let _guard = self.lock();
        let mut doc = self.load_for_write()?;
        let servers = self.servers_of(&mut doc)?;
        for (id, entry) in entries {
            put(servers, &id, entry);
        }
        self.write(&doc)
    }

    /// Removes `id`; `false` (and nothing written) when there was none.
    pub fn remove(&self, id: &str) -> Result<bool, ConfigError> {
        let _guard = self.lock();
        let mut doc = self.load_for_write()?;
        let Some(servers) = existing_servers_mut(&mut doc) else {
            return Ok(false);
        };
        let Some(at) = position(servers, id) else {
            return Ok(false);
        };
        servers.remove(at);
        self.write(&doc)?;
        Ok(true)
    }

    /// Switches `id` on or off; `false` when there is no such server.
    /// Switching on drops the `enabled` field (true is the default), so an
    /// off-and-on round trip leaves the entry as it was.
    pub fn set_enabled(&self, id: &str, enabled: bool) -> Result<bool, ConfigError> {
        let _guard = self.lock();
        let mut doc = self.load_for_write()?;
        let Some(servers) = existing_servers_mut(&mut doc) else {
            return Ok(false);
        };
        let Some(at) = position(servers, id) else {
            return Ok(false);
        };
        let Some(fields) = servers[at].1.fields_mut() else {
            return Ok(false);
        };
        let current = position(fields, "enabled");
        let changed = match (enabled, current) {
            (true, Some(at)) => {
                fields.remove(at);
                true
            }
            (true, None) => false,
            (false, _) => {
                let was_off = current.is_some_and(|at| fields[at].1 == Doc::Scalar(false.into()));
                set(fields, "enabled", Doc::Scalar(false.into()));
                !was_off
            }
        };
        if changed {
            self.write(&doc)?;
        }
        Ok(true)
    }

    fn servers_of<'d>(&self, doc: &'d mut Doc) -> Result<&'d mut Vec<(String, Doc)>, ConfigError> {
        servers_mut(doc).ok_or_else(|| {
            ConfigError::invalid(self.path.display().to_string(), "must be a JSON object")
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        // The guarded data is `()`: a panic elsewhere cannot leave it torn.
        self.write_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The document to edit: a missing or blank file is an empty object; a
    /// file that does not parse as a configuration is refused.
    fn load_for_write(&self) -> Result<Doc, ConfigError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(ConfigError::io(&self.path, e)),
        };
        if text.trim().is_empty() {
            return Ok(Doc::empty_object());
        }
        let refuse = |why: String| {
            ConfigError::invalid(
                self.path.display().to_string(),
                format!("{why}; fix the file first, nothing was written"),
            )
        };
        let doc: Doc =
            serde_json::from_str(&text).map_err(|e| refuse(format!("not valid JSON: {e}")))?;
        config_from_value(&doc.to_value()).map_err(|e| refuse(e.to_string()))?;
        Ok(doc)
    }

    /// Validates `doc` as a configuration, then replaces the file with it.
    fn write(&self, doc: &Doc) -> Result<(), ConfigError> {
        config_from_value(&doc.to_value())?;
        let mut bytes = serde_json::to_vec_pretty(doc)
            .map_err(|e| ConfigError::io(&self.path, std::io::Error::other(e)))?;
        bytes.push(b'\n');
        write_atomic(&self.path, &bytes).map_err(|e| ConfigError::io(&self.path, e))
    }
}

/// The `mcpServers` object, added at the end when the file has none.
/// `None` only for a document that is not an object, which
/// [`ConfigFile::load_for_write`] never returns.
fn servers_mut(doc: &mut Doc) -> Option<&mut Vec<(String, Doc)>> {
    let fields = doc.fields_mut()?;
    if position(fields, "mcpServers").is_none() {
        fields.push(("mcpServers".into(), Doc::empty_object()));
    }
    existing_servers_mut(doc)
}

fn existing_servers_mut(doc: &mut Doc) -> Option<&mut Vec<(String, Doc)>> {
    let fields = doc.fields_mut()?;
    let at = position(fields, "mcpServers")?;
    fields[at].1.fields_mut()
}

/// Replaces `id` in place (keeping its unknown fields) or adds it at the end.
fn put(servers: &mut Vec<(String, Doc)>, id: &str, entry: Value) {
    match position(servers, id) {
        Some(at) => {
            let merged = merge_entry(Some(&servers[at].1), entry);
            servers[at].1 = merged;
        }
        None => servers.push((id.to_owned(), merge_entry(None, entry))),
    }
}

/// The new entry, laid out like the old one: the old entry's unknown fields
/// stay (unless the new entry sets them), its known fields are replaced or
/// dropped, and fields keep the place they had.
fn merge_entry(old: Option<&Doc>, new: Value) -> Doc {
    let new = Doc::from_value(new);
    let (Some(old_fields), Doc::Object(mut new_fields)) = (old.and_then(Doc::fields), new.clone())
    else {
        return new;
    };
    let mut merged = Vec::with_capacity(old_fields.len().max(new_fields.len()));
    for (key, old_value) in old_fields {
        match position(&new_fields, key) {
            Some(at) => {
                let (key, value) = new_fields.remove(at);
                merged.push((key, ordered_like(old_value, value)));
            }
            None if !KNOWN_ENTRY_FIELDS.contains(&key.as_str()) => {
                merged.push((key.clone(), old_value.clone()));
            }
            None => {}
        }
    }
    merged.extend(new_fields);
    Doc::Object(merged)
}

/// `new` with its object keys in the order `old` had them (new keys last),
/// so replacing an `env` map does not shuffle it.
fn ordered_like(old: &Doc, new: Doc) -> Doc {
    let (Some(old_fields), Doc::Object(mut new_fields)) = (old.fields(), new.clone()) else {
        return new;
    };
    let mut ordered = Vec::with_capacity(new_fields.len());
    for (key, old_value) in old_fields {
        if let Some(at) = position(&new_fields, key) {
            let (key, value) = new_fields.remove(at);
            ordered.push((key, ordered_like(old_value, value)));
        }
    }
    ordered.extend(new_fields);
    Doc::Object(ordered)
}

/// Replaces `path` with `bytes`: a temp file in the same folder, synced,
/// then renamed over it, so a reader (or a crash) sees the old file or the
/// new one, never half of one. A symlinked file is written through its link.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let target = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return Err(std::io::Error::other("not a file path"));
    };
    std::fs::create_dir_all(dir)?;
    let temp = dir.join(format!(
        ".{}.{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let existing = std::fs::metadata(&target).ok();
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        if let Some(existing) = &existing {
            // A file the person made private stays private.
            file.set_permissions(existing.permissions())?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, &target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
        return written;
    }
    // The rename is durable only once the folder is synced; where folders
    // cannot be opened (Windows) the rename is already all there is.
    #[cfg(unix)]
    if let Ok(dir) = std::fs::File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}
