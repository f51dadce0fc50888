//! A plugin's files as the loader reads them: a folder on disk (an
//! installed or shipped plugin) or files held in memory (a ZIP or folder
//! being previewed before anything is written). One reader serves both,
//! so a preview shows exactly what loading the installed copy will.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::bundle::{BundleFile, MAX_FILE_BYTES, SKILL_FILE, SkillBundle};
use crate::error::{Error, Result};
use crate::plugin::manifest::PLUGIN_MANIFEST;

/// Deepest folder nesting walked looking for a second manifest.
const MAX_WALK_DEPTH: usize = 16;
/// Most entries walked looking for a second manifest.
const MAX_WALK_ENTRIES: usize = 16_384;

/// Paths are relative to the plugin's root, `/`-separated; `""` is the root.
pub(crate) trait PluginTree {
    /// The file at `path`, `None` when there is none. A path that leads
    /// outside the plugin (through a link) is refused.
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>>;
    /// Whether `path` is a folder inside the plugin.
    fn is_dir(&self, path: &str) -> Result<bool>;
    /// The folders directly in `path`, sorted, without dot-folders or links.
    fn folders(&self, path: &str) -> Vec<String>;
    /// The skill bundle in folder `path`, named `name` (its last part).
    fn load_skill(&self, path: &str, name: &str) -> Result<SkillBundle>;
    /// A manifest other than the root's, when the tree has one.
    fn second_manifest(&self) -> Option<String>;
}

/// `a/b`, or `b` when `a` is the root.
pub(crate) fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_owned()
    } else {
        format!("{a}/{b}")
    }
}

/// A plugin folder on disk.
#[derive(Debug)]
pub(crate) struct DiskTree {
    root: PathBuf,
    /// The root with links resolved: every path read must stay under it.
    canonical: PathBuf,
}

impl DiskTree {
    pub(crate) fn open(root: &Path) -> Result<Self> {
        let canonical = fs::canonicalize(root).map_err(|e| Error::io("read", root, e))?;
        Ok(Self {
            root: root.to_owned(),
            canonical,
        })
    }

    /// The path on disk, `None` when nothing is there; a link leading out
    /// of the plugin is refused.
    fn locate(&self, path: &str) -> Result<Option<PathBuf>> {
        let full = self.root.join(path);
        match fs::symlink_metadata(&full) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("read", &full, e)),
            Ok(_) => {}
        }
        let resolved = match fs::canonicalize(&full) {
            Ok(resolved) => resolved,
            // A dangling link.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("read", &full, e)),
        };
        if !resolved.starts_with(&self.canonical) {
            return Err(Error::invalid(
                path,
                "leads outside the plugin's folder through a link",
            ));
        }
        Ok(Some(resolved))
    }
}

impl PluginTree for DiskTree {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>> {
        let Some(full) = self.locate(path)? else {
            return Ok(None);
        };
        if !full.is_file() {
            return Err(Error::invalid(path, "must be a file"));
        }
        let file = fs::File::open(&full).map_err(|e| Error::io("read", &full, e))?;
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("read", &full, e))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(Error::invalid(
                path,
                format!("is over {} MiB", MAX_FILE_BYTES >> 20),
            ));
        }
        Ok(Some(bytes))
    }

    fn is_dir(&self, path: &str) -> Result<bool> {
        Ok(self.locate(path)?.is_some_and(|full| full.is_dir()))
    }

    fn folders(&self, path: &str) -> Vec<String> {
        let Ok(Some(dir)) = self.locate(path) else {
            return Vec::new();
        };
        let Ok(listing) = fs::read_dir(&dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = listing
            .flatten()
            // `file_type` does not follow links: a linked folder is skipped.
            .filter(|item| item.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|item| item.file_name().to_str().map(str::to_owned))
            .filter(|name| !name.starts_with('.'))
            .collect();
        names.sort();
        names
    }

    fn load_skill(&self, path: &str, _name: &str) -> Result<SkillBundle> {
        match self.locate(path)? {
            Some(dir) => SkillBundle::load(&dir),
            None => Err(Error::invalid(path, "is missing")),
        }
    }

    fn second_manifest(&self) -> Option<String> {
        let mut seen = 0;
        let mut stack = vec![(self.root.clone(), String::new(), 0)];
        while let Some((dir, prefix, depth)) = stack.pop() {
            let Ok(listing) = fs::read_dir(&dir) else {
                continue;
            };
            for item in listing.flatten() {
                seen += 1;
                if seen > MAX_WALK_ENTRIES {
                    return None;
                }
                let is_dir = item.file_type().is_ok_and(|t| t.is_dir());
                let Some(name) = item.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                if !is_dir || depth >= MAX_WALK_DEPTH {
                    continue;
                }
                let relative = join(&prefix, &name);
                if item.path().join(PLUGIN_MANIFEST).is_file() {
                    return Some(join(&relative, PLUGIN_MANIFEST));
                }
                stack.push((item.path(), relative, depth + 1));
            }
        }
        None
    }
}

/// A plugin's files in memory, by path relative to its root.
#[derive(Debug, Default)]
pub(crate) struct MemoryTree {
    pub(crate) files: BTreeMap<String, Vec<u8>>,
}

impl PluginTree for MemoryTree {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.files.get(path).cloned())
    }

    fn is_dir(&self, path: &str) -> Result<bool> {
        let prefix = join(path, "");
        Ok(path.is_empty() || self.files.keys().any(|p| p.starts_with(&prefix)))
    }

    fn folders(&self, path: &str) -> Vec<String> {
        let prefix = join(path, "");
        let names: BTreeSet<String> = self
            .files
            .keys()
            .filter_map(|p| p.strip_prefix(prefix.as_str()))
            .filter_map(|rest| rest.split_once('/').map(|(first, _)| first.to_owned()))
            .filter(|name| !name.starts_with('.'))
            .collect();
        names.into_iter().collect()
    }

    fn load_skill(&self, path: &str, name: &str) -> Result<SkillBundle> {
        let prefix = join(path, "");
        let mut skill_md = None;
        let mut files = Vec::new();
        for (file, bytes) in self.files.range(prefix.clone()..) {
            let Some(relative) = file.strip_prefix(&prefix) else {
                break;
            };
            if relative == SKILL_FILE {
                skill_md = Some(bytes.clone());
            } else {
                files.push(BundleFile::new(relative, bytes.clone()));
            }
        }
        let skill_md = skill_md
            .ok_or_else(|| Error::invalid(SKILL_FILE, "is missing from the skill's folder"))?;
        let skill_md = String::from_utf8(skill_md)
            .map_err(|_| Error::invalid(SKILL_FILE, "is not UTF-8 text"))?;
        SkillBundle::from_parts(name, skill_md, files)
    }

    /// The collector refuses a second manifest before the tree is built.
    fn second_manifest(&self) -> Option<String> {
        None
    }
}
