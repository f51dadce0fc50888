//! Installing npm packages pinned by a lock file, outside the clone.
//!
//! An install is redone only when its lock file changed: a copy of the lock
//! it was made from is its stamp, written last, so an interrupted install is
//! redone too.

use crate::step;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `$HOME/.cache/pizza-bot/<name>`: shared by every checkout, never in one.
pub(crate) fn cache_dir(name: &str) -> Result<PathBuf> {
    let home = std::env::var_os("HOME").context("HOME is not set")?;
    Ok(PathBuf::from(home).join(".cache/pizza-bot").join(name))
}

/// Installs `sources`' `package.json` and `package-lock.json` into `prefix`
/// with `npm ci`, unless that lock is what `prefix` holds already. `what`
/// names the packages in the error when npm is missing.
pub(crate) fn ensure_locked(sources: &Path, prefix: &Path, what: &str) -> Result<()> {
    let lock_file = sources.join("package-lock.json");
    let lock =
        std::fs::read(&lock_file).with_context(|| format!("reading {}", lock_file.display()))?;
    let stamp = prefix.join(".installed-lock.json");
    if std::fs::read(&stamp).is_ok_and(|done| done == lock) {
        return Ok(());
    }
    if !step::have("npm") {
        bail!("npm is needed to install {what} (Debian: nodejs and npm)");
    }
    std::fs::create_dir_all(prefix)?;
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(sources.join(file), prefix.join(file))
            .with_context(|| format!("could not copy {}", sources.join(file).display()))?;
    }
    step::run(
        Command::new("npm")
            .args([
                "ci",
                "--no-audit",
                "--no-fund",
                "--ignore-scripts",
                "--prefix",
            ])
            .arg(prefix),
    )?;
    std::fs::write(&stamp, lock)?;
    Ok(())
}
