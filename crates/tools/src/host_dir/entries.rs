//! Operations on a host folder's direct children, by name: what the memory
//! commands need beyond the tools' list, read and write.

use std::ffi::OsString;
use std::io::Read as _;

use rustix::fs::{AtFlags, FileType, Stat};
use rustix::io::Errno;

use super::{HostDir, check_regular, children, file_type, link_refused, special_refused};
use crate::error::{Result, ToolError};
use crate::host_folder::{EntryKind, FolderFile};

fn modified_ms(stat: &Stat) -> i64 {
    // The field types differ between targets (i64 here, i32 on some).
    #[allow(clippy::useless_conversion)]
    let seconds = i64::try_from(stat.st_mtime).unwrap_or(0);
    #[allow(clippy::useless_conversion)]
    let nanos = i64::try_from(stat.st_mtime_nsec).unwrap_or(0);
    seconds
        .saturating_mul(1_000)
        .saturating_add(nanos / 1_000_000)
}

fn folder_file(name: OsString, stat: &Stat) -> FolderFile {
    FolderFile {
        name,
        size: u64::try_from(stat.st_size).unwrap_or(0),
        modified_at: modified_ms(stat),
    }
}

impl HostDir {
    /// What `names` is, without following a link; `None` if it is missing.
    pub(crate) fn kind(&self, names: &[OsString]) -> Result<Option<EntryKind>> {
        let Some((name, parents)) = names.split_last() else {
            return Ok(Some(EntryKind::Folder));
        };
        let (dir, used) = self.open_dir(parents, false, false)?;
        match rustix::fs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(match file_type(&stat) {
                FileType::RegularFile => EntryKind::File,
                FileType::Directory => EntryKind::Folder,
                FileType::Symlink => EntryKind::Link,
                _ => EntryKind::Special,
            })),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(self.io_error(&super::with(&used, name), e)),
        }
    }

    /// The regular files directly in the root.
    pub(crate) fn files(&self) -> Result<Vec<FolderFile>> {
        let (dir, used) = self.open_dir(&[], false, false)?;
        Ok(children(&dir)
            .map_err(|e| self.io_error(&used, e))?
            .into_iter()
            .filter(|(_, stat)| file_type(stat) == FileType::RegularFile)
            .map(|(name, stat)| folder_file(name, &stat))
            .collect())
    }

    /// The text of the regular file `names` (exactly that name) and its
    /// metadata, both from one handle.
    pub(crate) fn read_with_metadata(&self, names: &[OsString]) -> Result<(String, FolderFile)> {
        let (file, stat, path) = self.open_file(names, false)?;
        let name = names.last().cloned().unwrap_or_default();
        Ok((super::read_text(file, &path)?, folder_file(name, &stat)))
    }

    /// At most `max` bytes from the start of the regular file `names`.
    pub(crate) fn read_prefix(&self, names: &[OsString], max: u64) -> Result<Vec<u8>> {
        let (file, _, path) = self.open_file(names, false)?;
        let mut bytes = Vec::new();
        file.take(max)
            .read_to_end(&mut bytes)
            .map_err(|e| ToolError::failed(format!("{path}: {e}")))?;
        Ok(bytes)
    }

    /// Removes the regular file `names`. A link is refused, not removed:
    /// `unlinkat` would only remove the link, but nothing here ever acts on
    /// what is not a regular file.
    pub(crate) fn remove(&self, names: &[OsString]) -> Result<()> {
        self.check_length(names)?;
        let Some((name, parents)) = names.split_last() else {
            return Err(ToolError::InvalidPath {
                path: self.mount.clone(),
                reason: "it is a mounted folder itself".to_owned(),
            });
        };
        let (dir, mut used) = self.open_dir(parents, false, false)?;
        used.push(name.clone());
        let path = self.shown(&used);
        let stat = rustix::fs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| self.io_error(&used, e))?;
        match file_type(&stat) {
            FileType::Symlink => return Err(link_refused(path)),
            FileType::RegularFile => {}
            FileType::Directory => check_regular(&path, &stat)?,
            _ => return Err(special_refused(path)),
        }
        rustix::fs::unlinkat(&dir, name.as_os_str(), AtFlags::empty())
            .map_err(|e| self.io_error(&used, e))
    }
}
