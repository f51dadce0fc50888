//! Installs the real MCP servers the tests talk to, pinned and outside the
//! clone: the npm reference servers from `tests/mcp/package-lock.json` and
//! `mcp-server-time` in a venv from `tests/mcp/requirements.txt`.
//!
//! Each install is redone only when its lock file changed: a copy of the
//! lock it was made from is its stamp, written last, so an interrupted
//! install is redone too.

use crate::step;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable the tests read the install directory from.
pub(crate) const SERVERS_ENV: &str = "PIZZA_MCP_SERVERS";

/// `$HOME/.cache/pizza-bot/mcp`: shared by every checkout, never in one.
pub(crate) fn servers_dir() -> Result<PathBuf> {
    crate::npm::cache_dir("mcp")
}

/// Installs what changed and returns the install directory.
pub(crate) fn ensure() -> Result<PathBuf> {
    let dir = servers_dir()?;
    let sources = crate::workspace_root().join("tests/mcp");
    crate::npm::ensure_locked(&sources, &dir.join("npm"), "the MCP test servers")?;
    ensure_venv(&sources, &dir.join("venv"))?;
    Ok(dir)
}

fn ensure_venv(sources: &Path, venv: &Path) -> Result<()> {
    let requirements = sources.join("requirements.txt");
    let lock = std::fs::read(&requirements)?;
    let stamp = venv.join(".installed-requirements.txt");
    if std::fs::read(&stamp).is_ok_and(|done| done == lock) {
        return Ok(());
    }
    // Debian's python3 with python3-venv (in the test packages); another
    // python3 on PATH may lack venv.
    let python = ["/usr/bin/python3", "python3"]
        .into_iter()
        .find(|p| Path::new(p).is_file() || step::have(p))
        .context("python3 is needed to install the MCP test servers")?;
    // A fresh venv each time: what the old lock installed must not linger.
    if venv.exists() {
        std::fs::remove_dir_all(venv)?;
    }
    step::run(Command::new(python).args(["-m", "venv"]).arg(venv))?;
    step::run(
        Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "-r",
            ])
            .arg(&requirements),
    )?;
    std::fs::write(&stamp, lock)?;
    Ok(())
}
