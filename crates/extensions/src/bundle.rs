//! A skill bundle: its `SKILL.md` and the sibling files (text or binary)
//! its subagent may read under `/skills/<name>/`.

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};
use crate::skill_md::{SkillManifest, parse_skill_md};

/// The file every bundle has at its root.
pub const SKILL_FILE: &str = "SKILL.md";
/// Largest single file of a bundle, `SKILL.md` included.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// Largest bundle, all files together.
pub const MAX_BUNDLE_BYTES: u64 = 50 * 1024 * 1024;
/// Most files in a bundle, `SKILL.md` included.
pub const MAX_BUNDLE_FILES: usize = 256;
/// Longest relative path of a sibling file, in characters.
pub const MAX_PATH_CHARS: usize = 512;
/// Deepest folder nesting of a sibling file.
const MAX_PATH_DEPTH: usize = 16;

/// A sibling file: its path relative to the bundle (`/`-separated) and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

impl BundleFile {
    pub fn new(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            path: path.into(),
            bytes: bytes.into(),
        }
    }

    /// The contents as text, when they are UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }
}

/// A skill folder's contents as they are on disk, within the size bounds
/// but not validated as a skill: what the editor opens to fix a broken
/// `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawSkill {
    pub skill_md: String,
    pub files: Vec<BundleFile>,
}

impl RawSkill {
    /// Reads `dir/SKILL.md` and the sibling files, skipping links.
    pub fn read(dir: &Path) -> Result<Self> {
        let skill_path = dir.join(SKILL_FILE);
        let meta = match fs::symlink_metadata(&skill_path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::invalid(
                    SKILL_FILE,
                    "is missing from the skill's folder",
                ));
            }
            Err(e) => return Err(Error::io("read", &skill_path, e)),
        };
        if !meta.is_file() {
            return Err(Error::invalid(SKILL_FILE, "must be a regular file"));
        }
        let skill_bytes = read_bounded(&skill_path, SKILL_FILE)?;
        let skill_md = String::from_utf8(skill_bytes)
            .map_err(|_| Error::invalid(SKILL_FILE, "is not UTF-8 text"))?;
        let mut files = Vec::new();
        let mut total = skill_md.len() as u64;
        collect_files(dir, "", 0, &mut files, &mut total)?;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Self { skill_md, files })
    }
}

/// A validated skill: manifest, the `SKILL.md` text it came from, and its
/// sibling files sorted by path.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillBundle {
    pub manifest: SkillManifest,
    pub skill_md: String,
    pub files: Vec<BundleFile>,
}

impl SkillBundle {
    /// Validates a bundle that lives in (or will be saved to) folder
    /// `folder`: the `SKILL.md`, every path and every size bound.
    pub fn from_parts(folder: &str, skill_md: String, mut files: Vec<BundleFile>) -> Result<Self> {
        check_size(SKILL_FILE, skill_md.len() as u64)?;
        let manifest = parse_skill_md(&skill_md, folder)?;
        if files.len() + 1 > MAX_BUNDLE_FILES {
            return Err(Error::invalid(
                "files",
                format!("a skill has at most {MAX_BUNDLE_FILES} files, SKILL.md included"),
            ));
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let mut total = skill_md.len() as u64;
        let mut seen = BTreeSet::new();
        for file in &files {
            check_file_path(&file.path)?;
            if file.path == SKILL_FILE {
                return Err(Error::invalid(
                    SKILL_FILE,
                    "is the skill itself, not one of its files",
                ));
            }
            if !seen.insert(file.path.as_str()) {
                return Err(Error::invalid(file.path.clone(), "is given twice"));
            }
            check_size(&file.path, file.bytes.len() as u64)?;
            total += file.bytes.len() as u64;
            check_total(&file.path, total)?;
        }
        // A path that is also another file's folder cannot be written.
        for file in &files {
            let mut folder = file.path.as_str();
            while let Some((parent, _)) = folder.rsplit_once('/') {
                if seen.contains(parent) {
                    return Err(Error::invalid(
                        parent.to_owned(),
                        "is both a file and a folder",
                    ));
                }
                folder = parent;
            }
        }
        Ok(Self {
            manifest,
            skill_md,
            files,
        })
    }

    /// Reads a bundle from its folder on disk. Symbolic links are skipped,
    /// never followed, so a bundle cannot reach outside its folder.
    pub fn load(dir: &Path) -> Result<Self> {
        let folder = dir.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
            Error::invalid("name", format!("{} is not a skill folder", dir.display()))
        })?;
        let raw = RawSkill::read(dir)?;
        Self::from_parts(folder, raw.skill_md, raw.files)
    }

    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// All bytes of the bundle, `SKILL.md` included.
    pub fn size_bytes(&self) -> u64 {
        self.skill_md.len() as u64 + self.files.iter().map(|f| f.bytes.len() as u64).sum::<u64>()
    }
}

fn check_size(path: &str, bytes: u64) -> Result<()> {
    if bytes > MAX_FILE_BYTES {
        return Err(Error::invalid(
            path.to_owned(),
            format!(
                "is over {} MiB, the limit for one file of a skill",
                MAX_FILE_BYTES >> 20
            ),
        ));
    }
    Ok(())
}

fn check_total(path: &str, total: u64) -> Result<()> {
    if total > MAX_BUNDLE_BYTES {
        return Err(Error::invalid(
            path.to_owned(),
            format!("takes the skill over {} MiB in all", MAX_BUNDLE_BYTES >> 20),
        ));
    }
    Ok(())
}

/// Checks a sibling file's path: relative, `/`-separated, no `.`/`..` or
/// empty parts, no backslash or control characters, bounded length and depth.
pub fn check_file_path(path: &str) -> Result<()> {
    let refuse = |message: &str| Err(Error::invalid(path.to_owned(), message.to_owned()));
    if path.is_empty() {
        return Err(Error::invalid("files", "a file path cannot be empty"));
    }
    if path.chars().count() > MAX_PATH_CHARS {
        return refuse(&format!(
            "a file path has at most {MAX_PATH_CHARS} characters"
        ));
    }
    if path.starts_with('/') || path.as_bytes().get(1) == Some(&b':') {
        return refuse("must be a path relative to the skill's folder, not an absolute one");
    }
    if path.contains('\\') || path.chars().any(char::is_control) {
        return refuse("must use / between folders and have no control characters");
    }
    let parts: Vec<&str> = path.split('/').collect();
    if parts.contains(&"..") {
        return refuse("must stay inside the skill's folder (no ..)");
    }
    if parts.iter().any(|p| p.is_empty() || *p == ".") {
        return refuse("has an empty or . part");
    }
    if parts.len() > MAX_PATH_DEPTH {
        return refuse(&format!("is nested deeper than {MAX_PATH_DEPTH} folders"));
    }
    Ok(())
}

/// Reads one file, refusing it past [`MAX_FILE_BYTES`] by what is read,
/// not by what the metadata said a moment before.
fn read_bounded(path: &Path, shown: &str) -> Result<Vec<u8>> {
    let file = fs::File::open(path).map_err(|e| Error::io("read", path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, e))?;
    check_size(shown, bytes.len() as u64)?;
    Ok(bytes)
}

fn collect_files(
    dir: &Path,
    prefix: &str,
    depth: usize,
    files: &mut Vec<BundleFile>,
    total: &mut u64,
) -> Result<()> {
    let entries = fs::read_dir(dir).map_err(|e| Error::io("list", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, e))?;
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            return Err(Error::invalid(
                format!("{prefix}{}", entry.file_name().to_string_lossy()),
                "has a name that is not UTF-8",
            ));
        };
        let relative = format!("{prefix}{name}");
        if depth == 0 && name == SKILL_FILE {
            continue;
        }
        // `file_type` does not follow links: a link is neither a file nor a folder here.
        let kind = entry.file_type().map_err(|e| Error::io("read", &path, e))?;
        if kind.is_dir() {
            if depth + 1 >= MAX_PATH_DEPTH {
                return Err(Error::invalid(
                    relative,
                    format!("is nested deeper than {MAX_PATH_DEPTH} folders"),
                ));
            }
            collect_files(&path, &format!("{relative}/"), depth + 1, files, total)?;
        } else if kind.is_file() {
            if files.len() + 1 >= MAX_BUNDLE_FILES {
                return Err(Error::invalid(
                    "files",
                    format!("a skill has at most {MAX_BUNDLE_FILES} files, SKILL.md included"),
                ));
            }
            let bytes = read_bounded(&path, &relative)?;
            *total += bytes.len() as u64;
            check_total(&relative, *total)?;
            files.push(BundleFile::new(relative, bytes));
        } else {
            tracing::debug!(path = %path.display(), "skipping a link or special file in a skill folder");
        }
    }
    Ok(())
}
