//! Live reload of `.mcp.json`: a watcher that calls back after the file was
//! created, changed, renamed onto or removed, so the host can re-read it and
//! reconnect only the servers whose entries changed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};

use crate::config::ConfigError;

/// Quiet time after the last event before calling back: an editor's save
/// (truncate, write, rename, chmod) arrives as a burst and is one change.
const DEBOUNCE: Duration = Duration::from_millis(150);
/// A file rewritten without pause is still reported this often.
const MAX_DELAY: Duration = Duration::from_secs(1);

enum Signal {
    Changed,
    Stop,
}

/// Watches one file while it lives; dropping it stops watching.
pub struct ConfigWatcher {
    _watcher: notify::RecommendedWatcher,
    stop: Sender<Signal>,
    path: PathBuf,
}

impl std::fmt::Debug for ConfigWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfigWatcher")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl ConfigWatcher {
    /// Watches the folder of `path` (the file may not exist yet, and editors
    /// replace it by rename, which a watch on the file itself would lose)
    /// and calls `on_change` on a thread of its own, once per burst of
    /// changes to that file. The folder is created if it is missing.
    pub fn start(
        path: &Path,
        on_change: impl Fn() + Send + Sync + 'static,
    ) -> Result<Self, ConfigError> {
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(ConfigError::invalid(
                path.display().to_string(),
                "is not a file path",
            ));
        };
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        std::fs::create_dir_all(dir).map_err(|e| ConfigError::io(dir, e))?;
        let (tx, rx) = mpsc::channel();
        let name: OsString = name.to_owned();
        let events = tx.clone();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let about_the_file = match event {
                    Ok(event) => {
                        !matches!(event.kind, EventKind::Access(_))
                            && event
                                .paths
                                .iter()
                                .any(|p| p.file_name() == Some(name.as_os_str()))
                    }
                    Err(e) => {
                        // Events may have been lost: re-reading is always safe.
                        tracing::warn!(error = %e, "the .mcp.json watcher failed; reloading");
                        true
                    }
                };
                if about_the_file {
                    let _ = events.send(Signal::Changed);
                }
            })
            .map_err(|e| ConfigError::io(dir, std::io::Error::other(e)))?;
        watcher
            .watch(dir, RecursiveMode::NonRecursive)
            .map_err(|e| ConfigError::io(dir, std::io::Error::other(e)))?;
        std::thread::Builder::new()
            .name("mcp-config-watch".into())
            .spawn(move || debounce(&rx, &on_change))
            .map_err(|e| ConfigError::io(dir, e))?;
        Ok(Self {
            _watcher: watcher,
            stop: tx,
            path: path.to_path_buf(),
        })
    }
}

impl Drop for ConfigWatcher {
    fn drop(&mut self) {
        // The thread is not joined: `on_change` may be what drops us.
        let _ = self.stop.send(Signal::Stop);
    }
}

/// Calls `on_change` once the events have been quiet for [`DEBOUNCE`] (or
/// have kept coming for [`MAX_DELAY`]); ends at `Stop`.
fn debounce(rx: &mpsc::Receiver<Signal>, on_change: &(dyn Fn() + Send + Sync)) {
    loop {
        match rx.recv() {
            Ok(Signal::Changed) => {}
            Ok(Signal::Stop) | Err(_) => return,
        }
        let first = Instant::now();
        loop {
            let wait = DEBOUNCE.min(MAX_DELAY.saturating_sub(first.elapsed()));
            match rx.recv_timeout(wait) {
                Ok(Signal::Changed) if first.elapsed() < MAX_DELAY => {}
                Ok(Signal::Changed) | Err(RecvTimeoutError::Timeout) => break,
                Ok(Signal::Stop) | Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        on_change();
    }
}

#[cfg(test)]
#[path = "watch_tests.rs"]
mod tests;
