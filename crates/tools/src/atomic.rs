//! The one way the app replaces a file: the bytes go to a new temporary file
//! in the same folder, are synced, and the temporary file is renamed over
//! the target, so a crash leaves the old file or the new one, never half of
//! one, and the target is never opened for writing (a hard link to it is
//! replaced, not changed).

use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A name no other writer in this process uses; it starts with a dot, so
/// listings that skip hidden names never show a write in progress.
fn temp_name() -> String {
    format!(
        ".pizza-{}-{}.tmp",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Replaces `name` in the folder `dir` (a handle: nothing above it is
/// looked up again) with `bytes`; a new file gets `mode`. The temporary file
/// is created exclusively and without following links.
#[cfg(unix)]
pub(crate) fn write_atomic_at(
    dir: &std::os::fd::OwnedFd,
    name: &std::ffi::OsStr,
    bytes: &[u8],
    mode: rustix::fs::Mode,
) -> std::io::Result<()> {
    use rustix::fs::{AtFlags, OFlags};
    let temp = temp_name();
    let file = rustix::fs::openat(
        dir,
        temp.as_str(),
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        mode,
    )?;
    let mut file = std::fs::File::from(file);
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| Ok(rustix::fs::renameat(dir, temp.as_str(), dir, name)?));
    if written.is_err() {
        let _ = rustix::fs::unlinkat(dir, temp.as_str(), AtFlags::empty());
    }
    written
}

/// Replaces the file at `path` with `bytes`, private to the user (0600 on
/// Unix). For paths the app or the person chose (the data root's marker, an
/// export); files below a grant or the memory folder go through
/// [`crate::HostFolder`] instead, which never follows a link.
#[cfg(unix)]
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use rustix::fs::{Mode, OFlags};
    let (parent, name) = split(path)?;
    let dir = rustix::fs::open(
        parent,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    write_atomic_at(&dir, name, bytes, Mode::from_raw_mode(0o600))
}

/// Replaces the file at `path` with `bytes` (see the Unix version).
#[cfg(not(unix))]
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (parent, _) = split(path)?;
    let temp = parent.join(temp_name());
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

fn split(path: &Path) -> std::io::Result<(&Path, &std::ffi::OsStr)> {
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} does not name a file", path.display()),
        )
    })?;
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    Ok((parent, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn creates_and_replaces_privately_leaving_no_temp_file() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("marker.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(names(tmp.path()), ["marker.json"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }

    #[test]
    fn a_missing_folder_fails_and_creates_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let error = write_atomic(&tmp.path().join("gone/x.md"), b"x").unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(names(tmp.path()), Vec::<String>::new());
    }

    #[cfg(unix)]
    #[test]
    fn a_hard_link_to_the_target_keeps_the_old_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a.md");
        std::fs::write(&path, "old").unwrap();
        std::fs::hard_link(&path, tmp.path().join("b.md")).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("b.md")).unwrap(),
            "old"
        );
    }
}
