//! Writing and deleting the person's skills under `<data root>/skills/`.
//!
//! Everything is validated before anything touches the disk, and a save
//! is built in a dot-folder beside its target and moved into place by a
//! rename, so a skill folder is always either the old bundle or the new
//! one — never half of each — and a refusal writes nothing. The catalog
//! skips dot-folders, so a save in progress is never read as a skill.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::bundle::{BundleFile, SKILL_FILE, SkillBundle};
use crate::error::{Error, Result};
use crate::skill_md::validate_name;

/// Creates or replaces the user skill `name` (an override when a built-in
/// or plugin skill has that name). Returns the saved bundle.
pub fn save_user_skill(
    user_dir: &Path,
    name: &str,
    skill_md: &str,
    files: Vec<BundleFile>,
) -> Result<SkillBundle> {
    validate_name(name)?;
    let bundle = SkillBundle::from_parts(name, skill_md.to_owned(), files)?;
    write_user_skill(user_dir, &bundle)?;
    Ok(bundle)
}

/// Saves an already validated bundle (an imported ZIP) as a user skill.
pub fn write_user_skill(user_dir: &Path, bundle: &SkillBundle) -> Result<()> {
    let name = bundle.name();
    fs::create_dir_all(user_dir).map_err(|e| Error::io("create", user_dir, e))?;
    let staging = unique_sibling(user_dir, "saving", name);
    let target = user_dir.join(name);
    if let Err(e) = write_bundle(&staging, bundle) {
        remove_quietly(&staging);
        return Err(e);
    }
    if let Err(e) = move_into_place(&staging, &target) {
        remove_quietly(&staging);
        return Err(e);
    }
    sync_dir(user_dir);
    Ok(())
}

/// Deletes the user skill `name`; a built-in it overrode shows again.
pub fn delete_user_skill(user_dir: &Path, name: &str) -> Result<()> {
    validate_name(name)?;
    delete_folder(user_dir, name, || Error::NotFound(name.to_owned()))
}

/// Deletes the folder `user_dir/name`, or answers `not_found()` when there
/// is none (a file or a link of that name is not one).
pub(crate) fn delete_folder(
    user_dir: &Path,
    name: &str,
    not_found: impl FnOnce() -> Error,
) -> Result<()> {
    let target = user_dir.join(name);
    match fs::symlink_metadata(&target) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(not_found()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(not_found()),
        Err(e) => return Err(Error::io("read", &target, e)),
    }
    // The skill disappears in one rename; removing its files after that
    // may be interrupted without leaving half a skill visible.
    let doomed = unique_sibling(user_dir, "deleting", name);
    fs::rename(&target, &doomed).map_err(|e| Error::io("delete", &target, e))?;
    sync_dir(user_dir);
    fs::remove_dir_all(&doomed).map_err(|e| Error::io("delete", &doomed, e))?;
    Ok(())
}

pub(crate) fn unique_sibling(user_dir: &Path, purpose: &str, name: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    user_dir.join(format!(
        ".{purpose}-{name}-{}-{nanos}-{n}",
        std::process::id()
    ))
}

fn write_bundle(dir: &Path, bundle: &SkillBundle) -> Result<()> {
    fs::create_dir(dir).map_err(|e| Error::io("create", dir, e))?;
    write_file(&dir.join(SKILL_FILE), bundle.skill_md.as_bytes())?;
    for file in &bundle.files {
        let path = dir.join(&file.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        }
        write_file(&path, &file.bytes)?;
    }
    Ok(())
}

pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io("write", path, e))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io("write", path, e))
}

/// Puts `staging` at `target`. On Linux an existing folder is swapped out
/// in one `RENAME_EXCHANGE`; elsewhere it is moved aside first.
pub(crate) fn move_into_place(staging: &Path, target: &Path) -> Result<()> {
    match fs::symlink_metadata(target) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return fs::rename(staging, target).map_err(|e| Error::io("save", target, e));
        }
        Err(e) => return Err(Error::io("read", target, e)),
        Ok(meta) if !meta.is_dir() => {
            return Err(Error::invalid(
                "name",
                format!("{} is a file, not a folder", target.display()),
            ));
        }
        Ok(_) => {}
    }
    exchange(staging, target)?;
    // `staging` now holds the previous bundle.
    fs::remove_dir_all(staging).map_err(|e| Error::io("delete", staging, e))
}

#[cfg(target_os = "linux")]
fn exchange(staging: &Path, target: &Path) -> Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, staging, CWD, target, RenameFlags::EXCHANGE)
        .map_err(|e| Error::io("save", target, e.into()))
}

#[cfg(not(target_os = "linux"))]
fn exchange(staging: &Path, target: &Path) -> Result<()> {
    let parent = target.parent().unwrap_or(target);
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("skill");
    let aside = unique_sibling(parent, "replacing", name);
    fs::rename(target, &aside).map_err(|e| Error::io("save", target, e))?;
    if let Err(e) = fs::rename(staging, target) {
        let _ = fs::rename(&aside, target);
        return Err(Error::io("save", target, e));
    }
    fs::rename(&aside, staging).map_err(|e| Error::io("save", target, e))
}

pub(crate) fn remove_quietly(dir: &Path) {
    if let Err(e) = fs::remove_dir_all(dir)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(dir = %dir.display(), error = %e, "cannot remove a skill save's leftovers");
    }
}

/// Makes the renames durable; a failure only risks the rename, not the data.
pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(handle) = fs::File::open(dir) {
        let _ = handle.sync_all();
    }
}
