//! The filesystem the tools work through.

use std::fmt::Debug;

use crate::error::Result;

/// One child of a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The absolute virtual path, without a trailing slash.
    pub path: String,
    pub is_dir: bool,
    /// Bytes of content; 0 for directories.
    pub size: u64,
}

/// A listing that may have stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounded<T> {
    pub items: Vec<T>,
    /// Set when something was left out: a sentence for the model saying
    /// what and how to narrow down.
    pub truncated: Option<String>,
}

/// A filesystem of absolute virtual paths (see [`crate::normalize_path`]).
///
/// Implementations receive normalized paths. Directories are implied by the
/// files below them. Async so a backend on disk or behind a grant registry
/// (the later composite filesystem) can do I/O without blocking the runtime.
#[async_trait::async_trait]
pub trait FileSystem: Send + Sync + Debug {
    /// The direct children of `dir`, sorted by path. `NotFound` if `dir` is
    /// neither `/` nor a directory.
    async fn list(&self, dir: &str) -> Result<Vec<DirEntry>>;
    /// Every file path at or below `dir`, sorted.
    async fn files_under(&self, dir: &str) -> Result<Vec<String>>;
    /// The file's whole content; `NotFound` if absent.
    async fn read(&self, path: &str) -> Result<String>;
    /// Creates or replaces the file.
    async fn write(&self, path: &str, content: String) -> Result<()>;
    /// Whether `path` may be written, checked before a tool does any work
    /// (an edit to a read-only file is refused as such, not as a mismatch).
    async fn check_writable(&self, path: &str) -> Result<()> {
        let _ = path;
        Ok(())
    }
    /// [`FileSystem::list`], saying so when entries were left out (a large
    /// host folder). The tools call this one.
    async fn list_bounded(&self, dir: &str) -> Result<Bounded<DirEntry>> {
        Ok(Bounded {
            items: self.list(dir).await?,
            truncated: None,
        })
    }
    /// [`FileSystem::files_under`], saying so when the walk stopped early.
    /// The tools call this one.
    async fn walk(&self, dir: &str) -> Result<Bounded<String>> {
        Ok(Bounded {
            items: self.files_under(dir).await?,
            truncated: None,
        })
    }
}
