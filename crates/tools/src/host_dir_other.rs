//! Granted folders and the memory folder on systems without `openat`-style
//! no-follow opens (Windows): refused with a sentence, never opened through
//! a path that could follow a link out. The Unix backend is `host_dir.rs`.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::{Result, ToolError};
use crate::fs::{Bounded, DirEntry};
use crate::host_folder::{EntryKind, FolderFile};

/// One mounted host folder and the virtual path it appears at.
#[derive(Debug, Clone)]
pub(crate) struct HostDir {
    /// Canonical host folder.
    pub(crate) root: PathBuf,
    /// The virtual folder, e.g. `/local/notes` (no trailing slash).
    pub(crate) mount: String,
    /// The person's own folder (memory).
    pub(crate) private: bool,
}

impl HostDir {
    fn unsupported<T>(&self) -> Result<T> {
        Err(ToolError::PermissionDenied {
            path: self.mount.clone(),
            reason: format!(
                "{} cannot be opened: granted folders and memory are not available on this \
                 operating system yet",
                self.root.display()
            ),
        })
    }

    pub(crate) fn list(&self, _names: &[OsString]) -> Result<Bounded<DirEntry>> {
        self.unsupported()
    }

    pub(crate) fn walk(&self, _names: &[OsString]) -> Result<Bounded<String>> {
        self.unsupported()
    }

    pub(crate) fn read(&self, _names: &[OsString]) -> Result<String> {
        self.unsupported()
    }

    pub(crate) fn write(&self, _names: &[OsString], _content: &str) -> Result<()> {
        self.unsupported()
    }

    pub(crate) fn kind(&self, _names: &[OsString]) -> Result<Option<EntryKind>> {
        self.unsupported()
    }

    pub(crate) fn files(&self) -> Result<Vec<FolderFile>> {
        self.unsupported()
    }

    pub(crate) fn read_with_metadata(&self, _names: &[OsString]) -> Result<(String, FolderFile)> {
        self.unsupported()
    }

    pub(crate) fn read_prefix(&self, _names: &[OsString], _max: u64) -> Result<Vec<u8>> {
        self.unsupported()
    }

    pub(crate) fn remove(&self, _names: &[OsString]) -> Result<()> {
        self.unsupported()
    }
}
