//! Blocking file operations beneath one host folder (a grant or the memory
//! folder). Every open is relative to a directory handle and refuses symbolic
//! links at each step (`openat` with `O_NOFOLLOW`, one component at a time,
//! the way `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` resolves), so a
//! folder swapped for a link between a check and the open is refused by the
//! open itself. `..` never reaches this module (see [`crate::host_path`]).

use std::ffi::{OsStr, OsString};
use std::io::Read as _;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::path::PathBuf;

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;

use crate::error::{Result, ToolError};
use crate::fs::{Bounded, DirEntry};
use crate::host_path::{encode_name, nfkc};

mod entries;

/// Entries one listing shows at most.
pub(crate) const LIST_MAX_ENTRIES: usize = 1_000;
/// Directory entries one walk (glob, grep) visits at most.
pub(crate) const WALK_MAX_ENTRIES: usize = 20_000;
/// Folders deeper than this are not walked.
const WALK_MAX_DEPTH: usize = 64;
/// The largest file read as text.
pub(crate) const READ_MAX_BYTES: u64 = 8 * 1024 * 1024;
/// The longest host path (root plus the names below it).
const HOST_PATH_MAX_BYTES: usize = 4_096;

/// One mounted host folder and the virtual path it appears at.
#[derive(Debug, Clone)]
pub(crate) struct HostDir {
    /// Canonical host folder.
    pub(crate) root: PathBuf,
    /// The virtual folder, e.g. `/local/notes` (no trailing slash).
    pub(crate) mount: String,
    /// The person's own folder (memory): what is created here is theirs
    /// alone (files 0600, folders 0700). A grant's new files follow the
    /// umask and a replaced file keeps its mode.
    pub(crate) private: bool,
}

impl HostDir {
    fn folder_mode(&self) -> Mode {
        Mode::from_raw_mode(if self.private { 0o700 } else { 0o777 })
    }

    fn shown(&self, names: &[OsString]) -> String {
        let mut out = self.mount.clone();
        for name in names {
            out.push('/');
            out.push_str(&encode_name(name.as_bytes()));
        }
        out
    }

    fn io_error(&self, names: &[OsString], errno: Errno) -> ToolError {
        let path = self.shown(names);
        match errno {
            Errno::NOENT => ToolError::NotFound { path },
            Errno::ACCESS | Errno::PERM => ToolError::PermissionDenied {
                path,
                reason: "the operating system refused access".to_owned(),
            },
            Errno::NAMETOOLONG => ToolError::InvalidPath {
                path,
                reason: "the name is too long for the filesystem".to_owned(),
            },
            other => ToolError::failed(format!(
                "{path}: {}",
                std::io::Error::from_raw_os_error(other.raw_os_error())
            )),
        }
    }

    fn check_length(&self, names: &[OsString]) -> Result<()> {
        let total = self.root.as_os_str().len() + names.iter().map(|n| n.len() + 1).sum::<usize>();
        if total > HOST_PATH_MAX_BYTES {
            return Err(ToolError::InvalidPath {
                path: self.shown(names),
                reason: "the path on disk would be longer than 4,096 bytes".to_owned(),
            });
        }
        Ok(())
    }

    /// The root folder's handle; refuses a root that was replaced by a link.
    fn open_root(&self) -> Result<OwnedFd> {
        rustix::fs::open(
            &self.root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| match e {
            Errno::NOENT | Errno::NOTDIR | Errno::LOOP => ToolError::NotFound {
                path: format!(
                    "{}/ (the folder {} is gone or is no longer a folder)",
                    self.mount,
                    self.root.display()
                ),
            },
            other => self.io_error(&[], other),
        })
    }

    /// Opens the folder `names` below the root, one component at a time.
    /// `recover` lets a missing name match a uniquely NFKC-equivalent one
    /// (reads only); `create` makes missing folders (writes only). Returns
    /// the handle and the names actually used.
    fn open_dir(
        &self,
        names: &[OsString],
        recover: bool,
        create: bool,
    ) -> Result<(OwnedFd, Vec<OsString>)> {
        let mut fd = self.open_root()?;
        let mut used: Vec<OsString> = Vec::with_capacity(names.len());
        for name in names {
            let mut name = name.clone();
            let next = match open_subdir(&fd, &name) {
                Err(Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(&fd, name.as_os_str(), self.folder_mode()) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => return Err(self.io_error(&with(&used, &name), e)),
                    }
                    open_subdir(&fd, &name)
                }
                Err(Errno::NOENT) if recover => match nfkc_match(&fd, &name) {
                    Some(found) => {
                        name = found;
                        open_subdir(&fd, &name)
                    }
                    None => Err(Errno::NOENT),
                },
                other => other,
            };
            used.push(name);
            fd = match next {
                Ok(next) => next,
                Err(Errno::LOOP | Errno::NOTDIR) => {
                    return Err(self.explain_not_dir(&fd, &used));
                }
                Err(e) => return Err(self.io_error(&used, e)),
            };
        }
        Ok((fd, used))
    }

    /// Why `used`'s last name could not be opened as a folder.
    fn explain_not_dir(&self, parent: &OwnedFd, used: &[OsString]) -> ToolError {
        let path = self.shown(used);
        let Some(name) = used.last() else {
            return self.io_error(used, Errno::NOTDIR);
        };
        match rustix::fs::statat(parent, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => match file_type(&stat) {
                FileType::Symlink => link_refused(path),
                FileType::RegularFile => {
                    ToolError::failed(format!("{path} is a file, not a folder"))
                }
                _ => special_refused(path),
            },
            Err(e) => self.io_error(used, e),
        }
    }

    /// The direct children of the folder `names`.
    pub(crate) fn list(&self, names: &[OsString]) -> Result<Bounded<DirEntry>> {
        self.check_length(names)?;
        let (fd, used) = self.open_dir(names, true, false)?;
        let base = self.shown(&used);
        let mut items = Vec::new();
        let mut skipped = 0usize;
        let mut more = false;
        for (name, stat) in children(&fd).map_err(|e| self.io_error(&used, e))? {
            let path = format!("{base}/{}", encode_name(name.as_bytes()));
            let entry = match file_type(&stat) {
                FileType::Directory => DirEntry {
                    path,
                    is_dir: true,
                    size: 0,
                },
                FileType::RegularFile => DirEntry {
                    path,
                    is_dir: false,
                    size: u64::try_from(stat.st_size).unwrap_or(0),
                },
                _ => {
                    skipped += 1;
                    continue;
                }
            };
            if items.len() == LIST_MAX_ENTRIES {
                more = true;
                continue;
            }
            items.push(entry);
        }
        items.sort_by(|a, b| a.path.cmp(&b.path));
        let mut notes = Vec::new();
        if more {
            notes.push(format!(
                "only the first {LIST_MAX_ENTRIES} entries are shown; use glob to narrow down"
            ));
        }
        if skipped > 0 {
            notes.push(format!(
                "{skipped} symbolic links or special files are not shown (they are never followed)"
            ));
        }
        Ok(Bounded {
            items,
            truncated: (!notes.is_empty()).then(|| format!("[{}.]", notes.join("; "))),
        })
    }

    /// Every regular file at or below the folder `names`, bounded by
    /// [`WALK_MAX_ENTRIES`]; links and special files are skipped.
    pub(crate) fn walk(&self, names: &[OsString]) -> Result<Bounded<String>> {
        self.check_length(names)?;
        let (fd, used) = self.open_dir(names, true, false)?;
        let mut files = Vec::new();
        let mut visited = 0usize;
        let mut cut = false;
        let mut stack: Vec<(OwnedFd, String, usize)> = vec![(fd, self.shown(&used), 0)];
        'walk: while let Some((dir, base, depth)) = stack.pop() {
            let Ok(entries) = children(&dir) else {
                continue;
            };
            for (name, stat) in entries {
                visited += 1;
                if visited > WALK_MAX_ENTRIES {
                    cut = true;
                    break 'walk;
                }
                let path = format!("{base}/{}", encode_name(name.as_bytes()));
                match file_type(&stat) {
                    FileType::RegularFile => files.push(path),
                    FileType::Directory if depth < WALK_MAX_DEPTH => {
                        if let Ok(sub) = open_subdir(&dir, &name) {
                            stack.push((sub, path, depth + 1));
                        }
                    }
                    _ => {}
                }
            }
        }
        files.sort();
        Ok(Bounded {
            items: files,
            truncated: cut.then(|| {
                format!(
                    "[The search stopped after {WALK_MAX_ENTRIES} entries of {}; \
                     search a smaller folder for complete results.]",
                    self.shown(&used)
                )
            }),
        })
    }

    /// The text of the regular file `names`.
    pub(crate) fn read(&self, names: &[OsString]) -> Result<String> {
        let (file, _, path) = self.open_file(names, true)?;
        read_text(file, &path)
    }

    /// Opens the regular file `names` for reading: the file, its metadata
    /// (from the handle) and its virtual path. `recover` lets a missing name
    /// match a uniquely NFKC-equivalent one.
    fn open_file(
        &self,
        names: &[OsString],
        recover: bool,
    ) -> Result<(std::fs::File, Stat, String)> {
        self.check_length(names)?;
        let Some((name, parents)) = names.split_last() else {
            return Err(ToolError::failed(format!(
                "{}/ is a folder, not a file; use ls",
                self.mount
            )));
        };
        let (dir, mut used) = self.open_dir(parents, recover, false)?;
        let mut name = name.clone();
        if recover
            && matches!(
                rustix::fs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW),
                Err(Errno::NOENT)
            )
            && let Some(found) = nfkc_match(&dir, &name)
        {
            name = found;
        }
        used.push(name.clone());
        let path = self.shown(&used);
        // Look before opening: opening some devices has side effects.
        let stat = rustix::fs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| self.io_error(&used, e))?;
        check_regular(&path, &stat)?;
        let fd = rustix::fs::openat(
            &dir,
            name.as_os_str(),
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| match e {
            Errno::LOOP => link_refused(path.clone()),
            other => self.io_error(&used, other),
        })?;
        // The handle is what counts: the name may have changed since the look.
        let stat = rustix::fs::fstat(&fd).map_err(|e| self.io_error(&used, e))?;
        check_regular(&path, &stat)?;
        Ok((std::fs::File::from(fd), stat, path))
    }

    /// Creates or replaces the file `names` with `content`: parents are made
    /// one handle at a time, then [`crate::atomic::write_atomic_at`] writes
    /// beneath the last one.
    pub(crate) fn write(&self, names: &[OsString], content: &str) -> Result<()> {
        self.check_length(names)?;
        let Some((name, parents)) = names.split_last() else {
            return Err(ToolError::InvalidPath {
                path: self.mount.clone(),
                reason: "it is a granted folder itself; choose a file path below it".to_owned(),
            });
        };
        let (dir, mut used) = self.open_dir(parents, false, true)?;
        used.push(name.clone());
        let path = self.shown(&used);
        let mode = match rustix::fs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => {
                match file_type(&stat) {
                    FileType::RegularFile => {}
                    FileType::Directory => {
                        return Err(ToolError::failed(format!(
                            "{path} is a folder; choose a file path below it"
                        )));
                    }
                    FileType::Symlink => return Err(link_refused(path)),
                    _ => return Err(special_refused(path)),
                }
                Mode::from_raw_mode(stat.st_mode & 0o777)
            }
            Err(Errno::NOENT) => Mode::from_raw_mode(0o666),
            Err(e) => return Err(self.io_error(&used, e)),
        };
        let mode = if self.private {
            Mode::from_raw_mode(0o600)
        } else {
            mode
        };
        crate::atomic::write_atomic_at(&dir, name, content.as_bytes(), mode).map_err(|e| {
            match Errno::from_io_error(&e) {
                Some(errno) => self.io_error(&used, errno),
                None => ToolError::failed(format!("{path}: {e}")),
            }
        })
    }
}

/// The whole of an opened file as UTF-8 text, up to [`READ_MAX_BYTES`].
fn read_text(file: std::fs::File, path: &str) -> Result<String> {
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > READ_MAX_BYTES {
        return Err(ToolError::failed(format!(
            "{path} is too large to read as text ({size} bytes; the limit is {READ_MAX_BYTES})"
        )));
    }
    let mut bytes = Vec::new();
    file.take(READ_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::failed(format!("{path}: {e}")))?;
    // Some files (e.g. in /proc) report size 0 and are longer.
    if bytes.len() as u64 > READ_MAX_BYTES {
        return Err(ToolError::failed(format!(
            "{path} is too large to read as text (over {READ_MAX_BYTES} bytes)"
        )));
    }
    String::from_utf8(bytes).map_err(|_| ToolError::Binary {
        path: path.to_owned(),
    })
}

fn with(used: &[OsString], name: &OsStr) -> Vec<OsString> {
    let mut all = used.to_vec();
    all.push(name.to_owned());
    all
}

fn open_subdir(dir: &OwnedFd, name: &OsStr) -> std::result::Result<OwnedFd, Errno> {
    rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

fn file_type(stat: &Stat) -> FileType {
    FileType::from_raw_mode(stat.st_mode)
}

fn link_refused(path: String) -> ToolError {
    ToolError::PermissionDenied {
        path,
        reason: "it is a symbolic link, and links are not followed in granted folders; \
                 use the path it points to if that is granted too"
            .to_owned(),
    }
}

fn special_refused(path: String) -> ToolError {
    ToolError::PermissionDenied {
        path,
        reason: "it is not a regular file (a device, FIFO or socket); only regular files can \
                 be read or written"
            .to_owned(),
    }
}

fn check_regular(path: &str, stat: &Stat) -> Result<()> {
    match file_type(stat) {
        FileType::RegularFile => Ok(()),
        FileType::Directory => Err(ToolError::failed(format!(
            "{path} is a folder, not a file; use ls"
        ))),
        FileType::Symlink => Err(link_refused(path.to_owned())),
        _ => Err(special_refused(path.to_owned())),
    }
}

/// The entries of a folder (not `.` or `..`) with their own metadata (links
/// are not followed).
fn children(dir: &OwnedFd) -> std::result::Result<Vec<(OsString, Stat)>, Errno> {
    let mut out = Vec::new();
    let mut entries = Dir::read_from(dir)?;
    while let Some(entry) = entries.read() {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let name = OsString::from_vec(name.to_vec());
        if let Ok(stat) = rustix::fs::statat(dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
            out.push((name, stat));
        }
    }
    Ok(out)
}

/// The one entry of `dir` whose NFKC form equals `name`'s, if exactly one.
fn nfkc_match(dir: &OwnedFd, name: &OsStr) -> Option<OsString> {
    let wanted = nfkc(name.as_bytes())?;
    let mut entries = Dir::read_from(dir).ok()?;
    let mut found = None;
    while let Some(Ok(entry)) = entries.read() {
        let candidate = entry.file_name().to_bytes();
        if candidate == b"." || candidate == b".." {
            continue;
        }
        if nfkc(candidate).as_deref() == Some(wanted.as_str()) {
            if found.is_some() {
                return None;
            }
            found = Some(OsString::from_vec(candidate.to_vec()));
        }
    }
    found
}
