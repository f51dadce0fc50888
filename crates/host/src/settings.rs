//! UI preferences persisted as one small JSON file.

use crate::{HostError, Result};
use pizza_protocol::{Settings, SettingsPatch};
use std::io::Write;
use std::path::{Path, PathBuf};
use tokio::sync::Mutex;

#[derive(Debug)]
pub(crate) struct SettingsFile {
    path: PathBuf,
    current: Mutex<Settings>,
}

impl SettingsFile {
    /// Reads the file; a missing or unreadable one reads as the defaults so a
    /// damaged preference never keeps the app from starting.
    pub(crate) async fn open(path: PathBuf) -> Result<Self> {
        let current = match tokio::fs::read(&path).await {
            Ok(bytes) => parse_lenient(&bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Settings::default(),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "settings unreadable; using defaults");
                Settings::default()
            }
        };
        Ok(Self {
            path,
            current: Mutex::new(current),
        })
    }

    pub(crate) async fn get(&self) -> Settings {
        self.current.lock().await.clone()
    }

    /// Applies the patch and saves it; on a failed save nothing changes.
    pub(crate) async fn update(&self, patch: SettingsPatch) -> Result<Settings> {
        let mut current = self.current.lock().await;
        let mut next = current.clone();
        if let Some(theme) = patch.theme {
            next.theme = theme;
        }
        let bytes = serde_json::to_vec_pretty(&next).unwrap_or_default();
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || write_atomic(&path, &bytes))
            .await
            .map_err(|e| HostError::Write {
                path: self.path.clone(),
                source: std::io::Error::other(e),
            })?
            .map_err(|source| HostError::Write {
                path: self.path.clone(),
                source,
            })?;
        *current = next.clone();
        Ok(next)
    }
}

/// Each field falls back to its default on its own, so one bad value does not
/// reset the others.
fn parse_lenient(bytes: &[u8]) -> Settings {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_slice::<serde_json::Value>(bytes)
    else {
        return Settings::default();
    };
    let mut settings = Settings::default();
    if let Some(theme) = map.get("theme").and_then(|v| serde_json::from_value(v.clone()).ok()) {
        settings.theme = theme;
    }
    settings
}

/// Writes through a temp file and a rename so a crash never leaves half a file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    // tempfile creates the file 0600 and the rename keeps that mode.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
