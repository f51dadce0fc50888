//! The data root: one private folder holding everything the app keeps.

use crate::{HostError, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The layout version of the data root this build reads and writes.
pub const DATA_VERSION: u32 = 1;

const MARKER: &str = "pizza-bot.json";

#[derive(Debug, Serialize, Deserialize)]
struct Marker {
    data_version: u32,
    written_by: String,
}

/// A data root that exists, is private to the user, and is not from the future.
#[derive(Debug, Clone)]
pub struct DataRoot {
    path: PathBuf,
}

impl DataRoot {
    /// Creates the folder (0700) if needed and checks its version marker.
    ///
    /// Synchronous on purpose: it runs once, before the async runtime and the
    /// log files exist, so a failure can be reported plainly.
    pub fn prepare(path: impl Into<PathBuf>) -> Result<Self> {
        let path = path.into();
        let unusable = |source| HostError::DataRootUnusable {
            path: path.clone(),
            source,
        };
        // Relative to the working directory unless absolute; launches
        // compute the same path for the instance key (crates/launch).
        let path = std::path::absolute(&path).map_err(unusable)?;
        create_private_dir(&path).map_err(unusable)?;
        check_marker(&path)?;
        Ok(Self { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn logs_dir(&self) -> PathBuf {
        self.path.join("logs")
    }
}

fn create_private_dir(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(path)?;
    // Prove we can write here now rather than failing later mid-run.
    let probe = path.join(".write-test");
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(&probe)
}

fn check_marker(root: &Path) -> Result<()> {
    let marker_path = root.join(MARKER);
    match std::fs::read(&marker_path) {
        Ok(bytes) => {
            let marker: Marker =
                serde_json::from_slice(&bytes).map_err(|e| HostError::DataRootDamaged {
                    path: marker_path.clone(),
                    reason: e.to_string(),
                })?;
            if marker.data_version > DATA_VERSION {
                return Err(HostError::DataRootTooNew {
                    path: root.to_path_buf(),
                    found: marker.data_version,
                    supported: DATA_VERSION,
                });
            }
            if marker.data_version == DATA_VERSION {
                return Ok(());
            }
            write_marker(&marker_path)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => write_marker(&marker_path),
        Err(source) => Err(HostError::DataRootUnusable {
            path: marker_path,
            source,
        }),
    }
}

fn write_marker(path: &Path) -> Result<()> {
    let marker = Marker {
        data_version: DATA_VERSION,
        written_by: env!("CARGO_PKG_VERSION").to_owned(),
    };
    let bytes = serde_json::to_vec_pretty(&marker).unwrap_or_default();
    // A crash never leaves half a marker.
    pizza_tools::write_atomic(path, &bytes).map_err(|source| HostError::Write {
        path: path.to_path_buf(),
        source,
    })
}
