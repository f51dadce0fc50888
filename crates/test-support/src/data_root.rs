//! Isolated data roots for tests.

use std::path::{Path, PathBuf};

/// A data root in a fresh temporary directory, removed on drop.
#[derive(Debug)]
pub struct TempDataRoot {
    dir: tempfile::TempDir,
}

impl TempDataRoot {
    /// Creates an empty temporary directory to hold a data root.
    pub fn new() -> std::io::Result<Self> {
        let dir = tempfile::Builder::new().prefix("pizza-test-").tempdir()?;
        Ok(Self { dir })
    }

    /// The data root itself (a child of the temp dir, not yet created), so
    /// tests also cover the app creating it.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The enclosing temp dir, for HOME/XDG dirs of a test process.
    pub fn base(&self) -> &Path {
        self.dir.path()
    }
}
