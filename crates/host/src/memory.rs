//! `memory_list` / `memory_get` / `memory_write` / `memory_delete`: the
//! person's memory files in `<data root>/memories/`. The page works whether or
//! not memory is on; the setting only decides whether the agent sees them.

use std::path::{Path, PathBuf};

use pizza_protocol::{
    ApiError, ErrorCode, MEMORY_CONTENT_MAX, MEMORY_NAME_MAX, MEMORY_PREVIEW_CHARS, MemoryEntry,
    MemoryFile, MemoryList, MemoryListParams, MemoryNameParams, MemoryWriteParams,
};

use pizza_tools::{EntryKind, HostFolder, ToolError};

use pizza_store::Store;

use crate::settings::keys;
use crate::{Host, HostError};

/// The folder's name inside the data root.
pub(crate) const MEMORIES_DIR: &str = "memories";
/// Bytes read from each file for its preview (a preview is ≤ 200 characters).
const PREVIEW_READ_BYTES: u64 = 4 * MEMORY_PREVIEW_CHARS as u64;

/// A plain file name in the memories folder, or why not.
fn check_name(name: &str) -> Result<&str, ApiError> {
    let refuse = |why: &str| {
        Err(ApiError::invalid_input(format!(
            "“{name}” cannot be a memory name: {why}. Use a plain file name such as topic.md."
        )))
    };
    if name.trim().is_empty() {
        return refuse("it is empty");
    }
    if name.len() > MEMORY_NAME_MAX {
        return refuse("it is longer than 255 bytes");
    }
    if name.contains(['/', '\\']) {
        return refuse("it contains a slash");
    }
    if name.contains('\0') {
        return refuse("it contains a NUL character");
    }
    if name == "." || name.contains("..") {
        return refuse("it contains “..”");
    }
    if name.starts_with('.') {
        return refuse("it starts with a dot");
    }
    Ok(name)
}

/// A new memory is Markdown: `<topic>.md`.
fn check_new_name(name: &str) -> Result<&str, ApiError> {
    let name = check_name(name)?;
    if !name.ends_with(".md") || name.len() == ".md".len() {
        return Err(ApiError::invalid_input(format!(
            "“{name}” cannot be a memory name: it must end in .md, like topic.md."
        )));
    }
    Ok(name)
}

fn no_memory(name: &str) -> ApiError {
    ApiError::not_found(format!("There is no memory named “{name}”."))
}

/// A refusal or failure of the folder code, as the person reads it.
fn folder_error(what: &str, name: &str, dir: &Path, error: ToolError) -> ApiError {
    match error {
        ToolError::NotFound { .. } if what != "save" => no_memory(name),
        ToolError::Binary { .. } => ApiError::invalid_input(format!(
            "“{name}” is not UTF-8 text, so it cannot be shown here."
        )),
        ToolError::PermissionDenied { reason, .. } => ApiError::new(
            ErrorCode::PermissionDenied,
            format!("“{name}” in the memories folder cannot be used: {reason}."),
        ),
        other => ApiError::general(format!(
            "Could not {what} {}. Check that the folder is writable.",
            dir.join(name).display()
        ))
        .with_details(other.to_string()),
    }
}

/// Creates the folder private to the user (0700) if it is missing.
pub(crate) fn ensure_memories_dir(dir: &Path) -> std::io::Result<()> {
    folder(dir).create()
}

/// The memories folder, reached the way the agent's `/memories/` is: one
/// no-follow handle at a time, so neither a link swapped in for a memory nor
/// one swapped in for the folder itself is followed.
fn folder(dir: &Path) -> HostFolder {
    HostFolder::private(dir, format!("/{MEMORIES_DIR}"))
}

/// Refuses `name` unless it is a memory: a regular file (a link or anything
/// else is not).
fn require_memory(folder: &HostFolder, what: &str, name: &str, dir: &Path) -> Result<(), ApiError> {
    match folder.kind(name) {
        Ok(Some(EntryKind::File)) => Ok(()),
        Ok(_) => Err(no_memory(name)),
        Err(e) => Err(folder_error(what, name, dir, e)),
    }
}

fn preview(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MEMORY_PREVIEW_CHARS)
        .collect();
    if text.chars().count() > MEMORY_PREVIEW_CHARS {
        out.push('…');
    }
    out
}

fn list_dir(dir: &Path) -> Result<Vec<MemoryEntry>, ApiError> {
    let folder = folder(dir);
    let files = match folder.files() {
        Ok(files) => files,
        // No folder yet (or one replaced by a link): no memories.
        Err(ToolError::NotFound { .. }) => return Ok(Vec::new()),
        Err(e) => return Err(folder_error("read", "", dir, e)),
    };
    let mut out = Vec::new();
    for file in files {
        let Some(name) = file.name.to_str().map(str::to_owned) else {
            continue;
        };
        // Hidden names include the temp files of a write in progress.
        if check_name(&name).is_err() {
            continue;
        }
        // A file deleted or replaced meanwhile is simply not listed.
        let Ok(start) = folder.read_prefix(&name, PREVIEW_READ_BYTES) else {
            continue;
        };
        out.push(MemoryEntry {
            name,
            size: file.size,
            modified_at: file.modified_at,
            preview: preview(&start),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn read_memory(dir: &Path, name: &str) -> Result<MemoryFile, ApiError> {
    let folder = folder(dir);
    require_memory(&folder, "read", name, dir)?;
    let (content, file) = folder
        .read(name)
        .map_err(|e| folder_error("read", name, dir, e))?;
    Ok(MemoryFile {
        name: name.to_owned(),
        content,
        modified_at: file.modified_at,
    })
}

/// Saves atomically (a crash never leaves half a memory), 0600.
fn write_memory(dir: &Path, name: &str, content: &str) -> Result<MemoryFile, ApiError> {
    ensure_memories_dir(dir).map_err(|e| {
        ApiError::general(format!(
            "Could not create {}. Check that the folder is writable.",
            dir.display()
        ))
        .with_details(e.to_string())
    })?;
    let folder = folder(dir);
    match folder.kind(name) {
        // Existing files of any name can be edited; new ones are Markdown.
        Ok(None) => {
            check_new_name(name)?;
        }
        Ok(Some(EntryKind::File)) => {}
        Ok(Some(_)) => {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "“{name}” in the memories folder is not a plain file; rename or remove it."
                ),
            ));
        }
        Err(e) => return Err(folder_error("save", name, dir, e)),
    }
    folder
        .write(name, content)
        .map_err(|e| folder_error("save", name, dir, e))?;
    read_memory(dir, name)
}

fn delete_memory(dir: &Path, name: &str) -> Result<(), ApiError> {
    let folder = folder(dir);
    require_memory(&folder, "delete", name, dir)?;
    folder
        .remove(name)
        .map_err(|e| folder_error("delete", name, dir, e))
}

/// Runs file work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        ApiError::general("The memories folder could not be read.").with_details(e.to_string())
    })?
}

/// The memory files in `<data root>/memories/` and the setting that lets
/// the agent see them.
#[derive(Debug)]
pub(crate) struct MemoryService {
    store: Store,
    /// `<data root>/memories`.
    dir: PathBuf,
}

impl MemoryService {
    pub(crate) fn new(store: Store, data_root: &Path) -> Self {
        Self {
            store,
            dir: data_root.join(MEMORIES_DIR),
        }
    }

    /// `<data root>/memories`.
    pub(crate) fn memories_dir(&self) -> PathBuf {
        self.dir.clone()
    }

    /// The memory setting as stored (off when missing or unreadable).
    pub(crate) async fn memories_enabled(&self) -> Result<bool, ApiError> {
        Ok(keys::MEMORIES_ENABLED
            .read_or_default(&self.store)
            .await
            .map_err(HostError::from)?)
    }

    pub(crate) async fn memory_list(
        &self,
        _params: MemoryListParams,
    ) -> Result<MemoryList, ApiError> {
        let dir = self.memories_dir();
        let folder = dir.display().to_string();
        let memories = blocking(move || list_dir(&dir)).await?;
        Ok(MemoryList {
            memories,
            enabled: self.memories_enabled().await?,
            folder,
        })
    }

    pub(crate) async fn memory_get(
        &self,
        params: MemoryNameParams,
    ) -> Result<MemoryFile, ApiError> {
        let name = check_name(&params.name)?.to_owned();
        let dir = self.memories_dir();
        blocking(move || read_memory(&dir, &name)).await
    }

    pub(crate) async fn memory_write(
        &self,
        params: MemoryWriteParams,
    ) -> Result<MemoryFile, ApiError> {
        let name = check_name(&params.name)?.to_owned();
        if params.content.len() > MEMORY_CONTENT_MAX {
            return Err(ApiError::invalid_input(format!(
                "This memory is {} bytes; the limit is 1 MB. Shorten it or split it in two.",
                params.content.len()
            )));
        }
        let dir = self.memories_dir();
        blocking(move || write_memory(&dir, &name, &params.content)).await
    }

    pub(crate) async fn memory_delete(&self, params: MemoryNameParams) -> Result<(), ApiError> {
        let name = check_name(&params.name)?.to_owned();
        let dir = self.memories_dir();
        blocking(move || delete_memory(&dir, &name)).await
    }
}

/// The memory commands: thin calls of the service.
impl Host {
    pub(crate) fn memory(&self) -> &MemoryService {
        &self.inner.memory
    }

    pub async fn memory_list(&self, params: MemoryListParams) -> Result<MemoryList, ApiError> {
        self.memory().memory_list(params).await
    }

    pub async fn memory_get(&self, params: MemoryNameParams) -> Result<MemoryFile, ApiError> {
        self.memory().memory_get(params).await
    }

    pub async fn memory_write(&self, params: MemoryWriteParams) -> Result<MemoryFile, ApiError> {
        self.memory().memory_write(params).await
    }

    pub async fn memory_delete(&self, params: MemoryNameParams) -> Result<(), ApiError> {
        self.memory().memory_delete(params).await
    }
}

#[cfg(test)]
#[path = "memory_tests.rs"]
mod tests;
