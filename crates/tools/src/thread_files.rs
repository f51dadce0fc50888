//! A thread's state files as an in-memory view.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::error::{Result, ToolError};
use crate::fs::{DirEntry, FileSystem};
use crate::path::is_under;

#[derive(Debug, Default)]
struct Inner {
    files: BTreeMap<String, String>,
    /// Paths changed since the last [`ThreadFiles::take_changes`].
    dirty: BTreeSet<String>,
}

/// The state files of one thread: the checkpoint's snapshot plus changes not
/// yet committed. Clones share the same view, so parallel tool calls of one
/// step see each other's writes.
#[derive(Debug, Clone, Default)]
pub struct ThreadFiles {
    inner: Arc<Mutex<Inner>>,
}

impl ThreadFiles {
    /// A view over `files` (path → content) with no pending changes.
    pub fn new(files: BTreeMap<String, String>) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Inner {
                files,
                dirty: BTreeSet::new(),
            })),
        }
    }

    /// The changes since the last call, as `(path, Some(content))` writes or
    /// `(path, None)` deletions, and forgets them: the caller commits them.
    pub fn take_changes(&self) -> Vec<(String, Option<String>)> {
        let mut inner = self.lock();
        let dirty = std::mem::take(&mut inner.dirty);
        dirty
            .into_iter()
            .map(|path| {
                let content = inner.files.get(&path).cloned();
                (path, content)
            })
            .collect()
    }

    pub fn has_changes(&self) -> bool {
        !self.lock().dirty.is_empty()
    }

    /// A copy of every file, path → content.
    pub fn snapshot(&self) -> BTreeMap<String, String> {
        self.lock().files.clone()
    }

    /// Removes a file (no tool deletes yet; the host's state edits may).
    pub fn delete(&self, path: &str) -> bool {
        let mut inner = self.lock();
        let removed = inner.files.remove(path).is_some();
        if removed {
            inner.dirty.insert(path.to_owned());
        }
        removed
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // The map is always left consistent (single inserts), so a panic
        // elsewhere while holding the lock does not corrupt it.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait::async_trait]
impl FileSystem for ThreadFiles {
    async fn list(&self, dir: &str) -> Result<Vec<DirEntry>> {
        let inner = self.lock();
        let prefix = if dir == "/" {
            "/".to_owned()
        } else {
            format!("{dir}/")
        };
        let mut children: BTreeMap<String, DirEntry> = BTreeMap::new();
        for (path, content) in inner.files.range(prefix.clone()..) {
            let Some(rest) = path.strip_prefix(&prefix) else {
                break;
            };
            match rest.split_once('/') {
                Some((child, _)) => {
                    let child_path = format!("{prefix}{child}");
                    children.entry(child_path.clone()).or_insert(DirEntry {
                        path: child_path,
                        is_dir: true,
                        size: 0,
                    });
                }
                None => {
                    children.insert(
                        path.clone(),
                        DirEntry {
                            path: path.clone(),
                            is_dir: false,
                            size: content.len() as u64,
                        },
                    );
                }
            }
        }
        if children.is_empty() && dir != "/" {
            return Err(if inner.files.contains_key(dir) {
                ToolError::failed(format!("{dir} is a file, not a directory; use read_file"))
            } else {
                ToolError::NotFound {
                    path: dir.to_owned(),
                }
            });
        }
        Ok(children.into_values().collect())
    }

    async fn files_under(&self, dir: &str) -> Result<Vec<String>> {
        let inner = self.lock();
        Ok(inner
            .files
            .keys()
            .filter(|path| is_under(path, dir))
            .cloned()
            .collect())
    }

    async fn read(&self, path: &str) -> Result<String> {
        let inner = self.lock();
        if let Some(content) = inner.files.get(path) {
            return Ok(content.clone());
        }
        let prefix = format!("{path}/");
        if inner.files.keys().any(|p| p.starts_with(&prefix)) {
            return Err(ToolError::failed(format!(
                "{path} is a directory, not a file; use ls"
            )));
        }
        Err(ToolError::NotFound {
            path: path.to_owned(),
        })
    }

    async fn write(&self, path: &str, content: String) -> Result<()> {
        if path == "/" {
            return Err(ToolError::failed("cannot write to / (it is a directory)"));
        }
        let mut inner = self.lock();
        let prefix = format!("{path}/");
        if inner.files.keys().any(|p| p.starts_with(&prefix)) {
            return Err(ToolError::failed(format!(
                "{path} is a directory; choose a file path below it"
            )));
        }
        // A file cannot also be a parent directory of the new path.
        let mut parent = path;
        while let Some((up, _)) = parent.rsplit_once('/') {
            if up.is_empty() {
                break;
            }
            if inner.files.contains_key(up) {
                return Err(ToolError::failed(format!(
                    "{up} is a file, so {path} cannot be created below it"
                )));
            }
            parent = up;
        }
        inner.files.insert(path.to_owned(), content);
        inner.dirty.insert(path.to_owned());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn files() -> ThreadFiles {
        ThreadFiles::new(BTreeMap::from([
            ("/a.md".to_owned(), "A".to_owned()),
            ("/docs/b.md".to_owned(), "BB".to_owned()),
            ("/docs/deep/c.md".to_owned(), "C".to_owned()),
            ("/docsx".to_owned(), "X".to_owned()),
        ]))
    }

    #[tokio::test]
    async fn lists_direct_children_with_implied_directories() {
        let fs = files();
        let root: Vec<_> = fs
            .list("/")
            .await
            .unwrap()
            .into_iter()
            .map(|e| (e.path, e.is_dir))
            .collect();
        assert_eq!(
            root,
            vec![
                ("/a.md".to_owned(), false),
                ("/docs".to_owned(), true),
                ("/docsx".to_owned(), false)
            ]
        );
        let docs = fs.list("/docs").await.unwrap();
        assert_eq!(docs.len(), 2);
        assert!(matches!(
            fs.list("/nope").await,
            Err(ToolError::NotFound { .. })
        ));
    }

    #[tokio::test]
    async fn writes_are_tracked_until_taken() {
        let fs = files();
        assert!(!fs.has_changes());
        fs.write("/new.md", "n".into()).await.unwrap();
        fs.write("/a.md", "A2".into()).await.unwrap();
        assert!(fs.delete("/docsx"));
        assert_eq!(
            fs.take_changes(),
            vec![
                ("/a.md".to_owned(), Some("A2".to_owned())),
                ("/docsx".to_owned(), None),
                ("/new.md".to_owned(), Some("n".to_owned())),
            ]
        );
        assert!(fs.take_changes().is_empty());
        assert_eq!(fs.read("/a.md").await.unwrap(), "A2");
    }

    #[tokio::test]
    async fn files_and_directories_do_not_collide() {
        let fs = files();
        assert!(fs.write("/docs", "x".into()).await.is_err());
        assert!(fs.write("/a.md/inner", "x".into()).await.is_err());
        assert!(fs.read("/docs").await.is_err());
        assert_eq!(
            fs.files_under("/docs").await.unwrap(),
            vec!["/docs/b.md".to_owned(), "/docs/deep/c.md".to_owned()]
        );
    }
}
