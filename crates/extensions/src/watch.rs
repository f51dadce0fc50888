//! Live reload: a watcher on the user skills folder that calls back when
//! anything in it changes, so the host can `Catalog::reload()`.

use std::path::{Path, PathBuf};

use notify::{EventKind, RecursiveMode, Watcher};

use crate::error::{Error, Result};

/// Watches `<data root>/skills` while it lives; dropping it stops watching.
pub struct UserSkillsWatcher {
    _watcher: notify::RecommendedWatcher,
    dir: PathBuf,
}

impl std::fmt::Debug for UserSkillsWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserSkillsWatcher")
            .field("dir", &self.dir)
            .finish()
    }
}

impl UserSkillsWatcher {
    /// Creates the folder if needed and calls `on_change` (on the
    /// watcher's own thread) after each change to a skill in it. Changes
    /// inside dot-folders — saves and deletes in progress — are not
    /// reported; the rename that ends them is. Bursts are not coalesced:
    /// a reload is cheap, and the callback may debounce.
    pub fn start(dir: &Path, on_change: impl Fn() + Send + 'static) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
        let root = dir.to_path_buf();
        let watched = root.clone();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let event = match event {
                    Ok(event) => event,
                    Err(e) => {
                        tracing::warn!(error = %e, "the skills folder watcher failed; reloading");
                        on_change();
                        return;
                    }
                };
                if matches!(event.kind, EventKind::Access(_)) {
                    return;
                }
                let about_a_skill = event.paths.iter().any(|path| {
                    path.strip_prefix(&watched)
                        .ok()
                        .and_then(|rel| rel.components().next())
                        .and_then(|first| first.as_os_str().to_str())
                        .is_some_and(|first| !first.starts_with('.'))
                });
                if about_a_skill {
                    on_change();
                }
            })
            .map_err(|e| Error::io("watch", &root, std::io::Error::other(e)))?;
        watcher
            .watch(&root, RecursiveMode::Recursive)
            .map_err(|e| Error::io("watch", &root, std::io::Error::other(e)))?;
        Ok(Self {
            _watcher: watcher,
            dir: root,
        })
    }
}
