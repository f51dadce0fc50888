//! `memory_list` / `memory_get` / `memory_write` / `memory_delete`: the
//! person's memory files in `<data root>/memories/`. The page works whether or
//! not memory is on; the setting only decides whether the agent sees them.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use pizza_protocol::{
    ApiError, ErrorCode, MEMORY_CONTENT_MAX, MEMORY_NAME_MAX, MEMORY_PREVIEW_CHARS, MemoryEntry,
    MemoryFile, MemoryList, MemoryListParams, MemoryNameParams, MemoryWriteParams,
};

use crate::Host;

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

fn io_error(what: &str, path: &Path, err: &std::io::Error) -> ApiError {
    if err.kind() == std::io::ErrorKind::NotFound {
        return ApiError::not_found(format!(
            "There is no memory named “{}”.",
            path.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        ));
    }
    ApiError::general(format!(
        "Could not {what} {}. Check that the folder is writable.",
        path.display()
    ))
    .with_details(err.to_string())
}

fn modified_ms(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_millis()).ok())
        .unwrap_or(0)
}

/// Creates the folder private to the user (0700) if it is missing.
pub(crate) fn ensure_memories_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// A regular file in the folder; a symlink or anything else is not a memory.
fn regular_file(path: &Path) -> std::io::Result<std::fs::Metadata> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.is_file() {
        Ok(meta)
    } else {
        Err(std::io::Error::from(std::io::ErrorKind::NotFound))
    }
}

fn preview(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(PREVIEW_READ_BYTES)
        .read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes);
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
    Ok(out)
}

fn list_dir(dir: &Path) -> Result<Vec<MemoryEntry>, ApiError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error("read", dir, &e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io_error("read", dir, &e))?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        // Hidden names include the temp files of a write in progress.
        if check_name(&name).is_err() {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = regular_file(&path) else {
            continue;
        };
        // A file deleted meanwhile is simply not listed.
        let Ok(preview) = preview(&path) else {
            continue;
        };
        out.push(MemoryEntry {
            name,
            size: meta.len(),
            modified_at: modified_ms(&meta),
            preview,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn read_memory(dir: &Path, name: &str) -> Result<MemoryFile, ApiError> {
    let path = dir.join(name);
    let meta = regular_file(&path).map_err(|e| io_error("read", &path, &e))?;
    let bytes = std::fs::read(&path).map_err(|e| io_error("read", &path, &e))?;
    let content = String::from_utf8(bytes).map_err(|_| {
        ApiError::invalid_input(format!(
            "“{name}” is not UTF-8 text, so it cannot be shown here."
        ))
    })?;
    Ok(MemoryFile {
        name: name.to_owned(),
        content,
        modified_at: modified_ms(&meta),
    })
}

/// Writes through a temp file and a rename: a crash never leaves half a memory.
fn write_memory(dir: &Path, name: &str, content: &str) -> Result<MemoryFile, ApiError> {
    use std::io::Write;
    ensure_memories_dir(dir).map_err(|e| io_error("create", dir, &e))?;
    let path = dir.join(name);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            format!("“{name}” in the memories folder is not a plain file; rename or remove it."),
        ));
    }
    let write = || -> std::io::Result<()> {
        // tempfile creates the file 0600 and the rename keeps that mode.
        let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
        tmp.write_all(content.as_bytes())?;
        tmp.as_file().sync_all()?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    };
    write().map_err(|e| io_error("save", &path, &e))?;
    read_memory(dir, name)
}

fn delete_memory(dir: &Path, name: &str) -> Result<(), ApiError> {
    let path = dir.join(name);
    regular_file(&path).map_err(|e| io_error("delete", &path, &e))?;
    std::fs::remove_file(&path).map_err(|e| io_error("delete", &path, &e))
}

/// Runs file work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        ApiError::general("The memories folder could not be read.").with_details(e.to_string())
    })?
}

impl Host {
    /// `<data root>/memories`.
    pub(crate) fn memories_dir(&self) -> PathBuf {
        self.data_root().path().join(MEMORIES_DIR)
    }

    pub async fn memory_list(&self, _params: MemoryListParams) -> Result<MemoryList, ApiError> {
        let dir = self.memories_dir();
        let folder = dir.display().to_string();
        let memories = blocking(move || list_dir(&dir)).await?;
        Ok(MemoryList {
            memories,
            enabled: self.memories_enabled().await?,
            folder,
        })
    }

    pub async fn memory_get(&self, params: MemoryNameParams) -> Result<MemoryFile, ApiError> {
        let name = check_name(&params.name)?.to_owned();
        let dir = self.memories_dir();
        blocking(move || read_memory(&dir, &name)).await
    }

    pub async fn memory_write(&self, params: MemoryWriteParams) -> Result<MemoryFile, ApiError> {
        let name = check_name(&params.name)?.to_owned();
        if params.content.len() > MEMORY_CONTENT_MAX {
            return Err(ApiError::invalid_input(format!(
                "This memory is {} bytes; the limit is 1 MB. Shorten it or split it in two.",
                params.content.len()
            )));
        }
        let dir = self.memories_dir();
        blocking(move || {
            // Existing files of any name can be edited; new ones are Markdown.
            if std::fs::symlink_metadata(dir.join(&name)).is_err() {
                check_new_name(&name)?;
            }
            write_memory(&dir, &name, &params.content)
        })
        .await
    }

    pub async fn memory_delete(&self, params: MemoryNameParams) -> Result<(), ApiError> {
        let name = check_name(&params.name)?.to_owned();
        let dir = self.memories_dir();
        blocking(move || delete_memory(&dir, &name)).await
    }
}

#[cfg(test)]
#[path = "memory_tests.rs"]
mod tests;
