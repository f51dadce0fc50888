//! One host folder's own files, for callers outside the agent's tools (the
//! memory commands): the same no-follow handles as the tools' view of a
//! grant or `/memories/`, so a link swapped in between a look and an open
//! is refused by the open itself, and one atomic writer.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::{Result, ToolError};
use crate::host_dir::HostDir;

/// What a name in a host folder is, seen without following links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Folder,
    Link,
    /// A device, FIFO or socket.
    Special,
}

/// A regular file directly in a host folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderFile {
    pub name: OsString,
    pub size: u64,
    /// Last modified, in milliseconds since the Unix epoch (0 if unknown).
    pub modified_at: i64,
}

/// A host folder whose direct children are read and written by name.
#[derive(Debug, Clone)]
pub struct HostFolder {
    dir: HostDir,
}

impl HostFolder {
    /// The person's own folder at `root` (the memory folder): what is created
    /// in it is theirs alone (files 0600). Errors name files as
    /// `<mount>/<name>`. The folder itself must not be a link.
    pub fn private(root: impl Into<PathBuf>, mount: impl Into<String>) -> Self {
        Self {
            dir: HostDir {
                root: root.into(),
                mount: mount.into(),
                private: true,
            },
        }
    }

    /// Creates the folder (and missing parents) if it is missing, private
    /// to the user (0700 on Unix).
    pub fn create(&self) -> std::io::Result<()> {
        create_private_dir(&self.dir.root)
    }

    /// Whether `name` exists, and as what; a link is not followed.
    pub fn kind(&self, name: &str) -> Result<Option<EntryKind>> {
        self.dir.kind(&[self.name(name)?])
    }

    /// The regular files directly in the folder (links, folders and special
    /// files are left out), unsorted. A missing folder is an error.
    pub fn files(&self) -> Result<Vec<FolderFile>> {
        self.dir.files()
    }

    /// The text of the regular file `name`, with its metadata.
    pub fn read(&self, name: &str) -> Result<(String, FolderFile)> {
        self.dir.read_with_metadata(&[self.name(name)?])
    }

    /// At most `max` bytes from the start of the regular file `name`.
    pub fn read_prefix(&self, name: &str, max: u64) -> Result<Vec<u8>> {
        self.dir.read_prefix(&[self.name(name)?], max)
    }

    /// Creates or atomically replaces the regular file `name`.
    pub fn write(&self, name: &str, content: &str) -> Result<()> {
        self.dir.write(&[self.name(name)?], content)
    }

    /// Removes the regular file `name` (never what a link points to).
    pub fn remove(&self, name: &str) -> Result<()> {
        self.dir.remove(&[self.name(name)?])
    }

    /// `name` as one path component, or why not.
    fn name(&self, name: &str) -> Result<OsString> {
        if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
            return Err(ToolError::InvalidPath {
                path: format!("{}/{name}", self.dir.mount),
                reason: "it must be a plain file name".to_owned(),
            });
        }
        Ok(OsString::from(name))
    }
}

/// Creates `path` and its missing parents, private to the user (0700 on Unix).
pub(crate) fn create_private_dir(path: &std::path::Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(path)
}
