//! `skill_import`: a ZIP of one skill, checked entry by entry before
//! anything is written. Sizes are counted from the bytes that actually
//! inflate, never from the sizes the archive claims, so a zip bomb stops
//! at the limit.

use std::fs;
use std::io::{Cursor, Read};
use std::path::Path;

use zip::ZipArchive;

use crate::bundle::{
    BundleFile, MAX_BUNDLE_BYTES, MAX_FILE_BYTES, SKILL_FILE, SkillBundle, check_file_path,
};
use crate::error::{Error, Result};
use crate::skill_md::declared_name;

/// Largest ZIP accepted, as packed.
pub const MAX_ZIP_PACKED_BYTES: u64 = 20 * 1024 * 1024;
/// Most bytes all entries may inflate to.
pub const MAX_ZIP_UNPACKED_BYTES: u64 = MAX_BUNDLE_BYTES;
/// Most files in a ZIP (folders are not counted).
pub const MAX_ZIP_FILES: usize = 256;
/// Junk macOS adds to the ZIPs it makes; never part of a skill.
const MACOS_METADATA: &str = "__MACOSX/";
/// `S_IFMT` and `S_IFLNK` of an entry's Unix mode.
const FILE_TYPE_MASK: u32 = 0o170_000;
const SYMLINK_TYPE: u32 = 0o120_000;

fn zip_error(message: impl Into<String>) -> Error {
    Error::invalid("zip", message)
}

/// Reads and validates the ZIP at `path`.
pub fn import_zip_file(path: &Path) -> Result<SkillBundle> {
    let meta = fs::metadata(path).map_err(|e| Error::io("read", path, e))?;
    if meta.len() > MAX_ZIP_PACKED_BYTES {
        return Err(too_big());
    }
    let file = fs::File::open(path).map_err(|e| Error::io("read", path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_ZIP_PACKED_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, e))?;
    import_zip(&bytes)
}

fn too_big() -> Error {
    zip_error(format!(
        "the file is over {} MiB; a skill ZIP has at most that",
        MAX_ZIP_PACKED_BYTES >> 20
    ))
}

/// One file entry of the archive once its path is checked.
pub(crate) struct Entry {
    pub(crate) index: usize,
    pub(crate) path: String,
}

/// Opens an archive of at most `max_files` files (`what` says whose: "a
/// skill", "a plugin"); the central directory is bounded before it is walked.
pub(crate) fn open_archive<'a>(
    bytes: &'a [u8],
    max_files: usize,
    what: &str,
) -> Result<ZipArchive<Cursor<&'a [u8]>>> {
    let archive = ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| zip_error(format!("is not a readable ZIP archive: {e}")))?;
    if archive.len() > 4 * max_files {
        return Err(zip_error(format!(
            "has {} entries; {what} has at most {max_files} files",
            archive.len()
        )));
    }
    Ok(archive)
}

/// The archive's files with checked paths, folders and macOS junk left
/// out; a link, an encrypted entry or more than `max_files` files is refused.
pub(crate) fn list_files(
    archive: &mut ZipArchive<Cursor<&[u8]>>,
    max_files: usize,
    what: &str,
) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for index in 0..archive.len() {
        let file = archive
            .by_index_raw(index)
            .map_err(|e| zip_error(format!("entry {index} cannot be read: {e}")))?;
        let raw = String::from_utf8_lossy(file.name_raw()).into_owned();
        if raw.starts_with(MACOS_METADATA) {
            continue;
        }
        if file
            .unix_mode()
            .is_some_and(|m| m & FILE_TYPE_MASK == SYMLINK_TYPE)
        {
            return Err(Error::invalid(
                raw,
                format!("is a link; {what} ZIP holds only files and folders"),
            ));
        }
        let path = check_entry_path(&raw)?;
        if file.is_dir() {
            continue;
        }
        if file.encrypted() {
            return Err(Error::invalid(raw, "is encrypted"));
        }
        entries.push(Entry { index, path });
        if entries.len() > max_files {
            return Err(zip_error(format!(
                "has more than {max_files} files; {what} has at most that"
            )));
        }
    }
    Ok(entries)
}

/// Validates a skill ZIP: exactly one `SKILL.md`, at the root or in one
/// top folder (whose name must be the skill's), every path inside it, no
/// links, within the size and count limits. Returns the bundle to save.
pub fn import_zip(bytes: &[u8]) -> Result<SkillBundle> {
    if bytes.len() as u64 > MAX_ZIP_PACKED_BYTES {
        return Err(too_big());
    }
    let mut archive = open_archive(bytes, MAX_ZIP_FILES, "a skill")?;
    let entries = list_files(&mut archive, MAX_ZIP_FILES, "a skill")?;

    let (prefix, folder) = find_root(&entries)?;
    let mut skill_md = None;
    let mut files = Vec::new();
    let mut total: u64 = 0;
    for entry in &entries {
        let Some(relative) = entry.path.strip_prefix(prefix.as_str()) else {
            return Err(Error::invalid(
                entry.path.clone(),
                format!(
                    "is outside the skill's folder {}",
                    prefix.trim_end_matches('/')
                ),
            ));
        };
        let limit = MAX_FILE_BYTES.min(MAX_ZIP_UNPACKED_BYTES - total);
        let bytes = inflate(&mut archive, entry, limit)?;
        total += bytes.len() as u64;
        if relative == SKILL_FILE {
            skill_md = Some(bytes);
        } else {
            files.push(BundleFile::new(relative, bytes));
        }
    }
    let skill_md = skill_md.ok_or_else(|| zip_error("has no SKILL.md"))?;
    let skill_md =
        String::from_utf8(skill_md).map_err(|_| Error::invalid(SKILL_FILE, "is not UTF-8 text"))?;
    let folder = match folder {
        Some(folder) => folder,
        // A SKILL.md at the root is saved to a folder of its own name.
        None => declared_name(&skill_md)?,
    };
    SkillBundle::from_parts(&folder, skill_md, files)
}

/// Where the one `SKILL.md` is: `("", None)` at the root or
/// `("top/", Some("top"))` in a top folder.
fn find_root(entries: &[Entry]) -> Result<(String, Option<String>)> {
    let skill_files: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.path.rsplit('/').next() == Some(SKILL_FILE))
        .collect();
    let found = match skill_files.as_slice() {
        [] => return Err(zip_error("has no SKILL.md")),
        [one] => one,
        [_, second, ..] => {
            return Err(Error::invalid(
                second.path.clone(),
                "is a second SKILL.md; a ZIP holds exactly one skill",
            ));
        }
    };
    match found.path.split('/').collect::<Vec<_>>().as_slice() {
        [_] => Ok((String::new(), None)),
        [top, _] => Ok((format!("{top}/"), Some((*top).to_owned()))),
        _ => Err(Error::invalid(
            found.path.clone(),
            "must be at the ZIP's root or in one top folder",
        )),
    }
}

/// Refuses absolute paths, `..` and names Windows reserves for devices;
/// the rest of the path rules are the bundle's. Returns the path with `/`
/// between folders (ZIPs made on Windows may use `\\`) and without a
/// leading `./` or trailing `/`.
pub(crate) fn check_entry_path(raw: &str) -> Result<String> {
    let unified = raw.replace('\\', "/");
    if unified.starts_with('/') || unified.as_bytes().get(1) == Some(&b':') {
        return Err(Error::invalid(
            raw.to_owned(),
            "is an absolute path; only relative paths are accepted",
        ));
    }
    if unified.split('/').any(|part| part == "..") {
        return Err(Error::invalid(
            raw.to_owned(),
            "climbs out of its folder with ..",
        ));
    }
    let mut path = unified.as_str();
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        return Err(Error::invalid(raw.to_owned(), "has an empty name"));
    }
    if let Some(part) = path.split('/').find(|part| is_device_name(part)) {
        return Err(Error::invalid(
            raw.to_owned(),
            format!("has {part}, a name Windows reserves for a device"),
        ));
    }
    check_file_path(path).map_err(|e| match e {
        Error::Invalid { message, .. } => Error::invalid(raw.to_owned(), message),
        other => other,
    })?;
    Ok(path.to_owned())
}

/// `CON`, `nul.txt`, `COM1`…: Windows opens a device instead of a file of
/// that name, whatever the extension.
fn is_device_name(part: &str) -> bool {
    let stem = part.split('.').next().unwrap_or(part).trim_end();
    let upper = stem.to_ascii_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" => true,
        _ => {
            let Some(tail) = upper
                .strip_prefix("COM")
                .or_else(|| upper.strip_prefix("LPT"))
            else {
                return false;
            };
            let mut digits = tail.chars();
            matches!(
                (digits.next(), digits.next()),
                (Some('1'..='9' | '\u{b9}' | '\u{b2}' | '\u{b3}'), None)
            )
        }
    }
}

/// Inflates one entry, stopping one byte past `limit`: more than `limit`
/// bytes back means the entry is over it, whatever its header claims.
pub(crate) fn inflate_limited(
    archive: &mut ZipArchive<Cursor<&[u8]>>,
    entry: &Entry,
    limit: u64,
) -> Result<Vec<u8>> {
    let file = archive
        .by_index(entry.index)
        .map_err(|e| Error::invalid(entry.path.clone(), format!("cannot be unpacked: {e}")))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::invalid(entry.path.clone(), format!("cannot be unpacked: {e}")))?;
    Ok(bytes)
}

/// Inflates one skill entry, refusing it past `limit`.
fn inflate(archive: &mut ZipArchive<Cursor<&[u8]>>, entry: &Entry, limit: u64) -> Result<Vec<u8>> {
    let bytes = inflate_limited(archive, entry, limit)?;
    if bytes.len() as u64 > limit {
        let message = if limit == MAX_FILE_BYTES {
            format!(
                "inflates past {} MiB, the limit for one file of a skill",
                MAX_FILE_BYTES >> 20
            )
        } else {
            format!(
                "takes the ZIP past {} MiB unpacked",
                MAX_ZIP_UNPACKED_BYTES >> 20
            )
        };
        return Err(Error::invalid(entry.path.clone(), message));
    }
    Ok(bytes)
}
