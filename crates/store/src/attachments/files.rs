//! The attachment folder's file I/O. Everything here blocks; the store runs
//! it on the blocking pool through [`blocking`].

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// A file being written ends in this until it is complete. An id cannot
/// contain a dot, so a temp file is never mistaken for an attachment.
const TEMP_SUFFIX: &str = ".partial";

/// Runs `work` on the blocking pool; an I/O failure names `path`.
pub(super) async fn blocking<T: Send + 'static>(
    path: &Path,
    work: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(io::Error::other)
        .and_then(|done| done)
        .map_err(|source| Error::AttachmentFile {
            path: path.to_path_buf(),
            source,
        })
}

/// The SHA-256 of `bytes`, in lower-case hex.
pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Writes `bytes` as `<dir>/<id>`, owner-only. The bytes go to a temp file in
/// the same folder, are synced, then renamed into place, so the name never
/// holds a partial file; on failure neither file is left.
pub(super) fn write_new(dir: &Path, id: &str, bytes: &[u8]) -> io::Result<()> {
    create_dir(dir)?;
    let temp = dir.join(format!("{id}{TEMP_SUFFIX}"));
    let path = dir.join(id);
    let written = write_synced(&temp, bytes)
        .and_then(|()| fs::rename(&temp, &path))
        // The rename lasts only once the folder itself is synced.
        .and_then(|()| sync_dir(dir));
    if written.is_err() {
        // Best effort: the error that matters is the write's.
        let _ = remove_if_present(&temp);
        let _ = remove_if_present(&path);
    }
    written
}

/// Removes a file; one already gone is not an error.
pub(super) fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The regular files in `dir` last written before `before_ms` (ms since the
/// epoch); none when it does not exist.
pub(super) fn list_files(dir: &Path, before_ms: i64) -> io::Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry?;
        if !entry.file_type()?.is_file() {
            continue;
        }
        let written = entry
            .metadata()?
            .modified()?
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        if written < before_ms {
            files.push(entry.path());
        }
    }
    Ok(files)
}

fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut open = OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.mode(0o600);
    }
    let mut file = open.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

fn create_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

/// Windows cannot open a folder to sync it; the file's own data is synced.
#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        // The name is taken by a folder: the rename into place fails.
        fs::create_dir_all(dir.path().join("abc").join("inside")).unwrap();
        assert!(write_new(dir.path(), "abc", b"bytes").is_err());
        assert_eq!(
            list_files(dir.path(), i64::MAX).unwrap(),
            Vec::<PathBuf>::new(),
            "no temp file is left"
        );

        write_new(dir.path(), "def", b"bytes").unwrap();
        assert_eq!(
            list_files(dir.path(), i64::MAX).unwrap(),
            vec![dir.path().join("def")]
        );
    }

    #[test]
    fn the_hash_is_hex_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
