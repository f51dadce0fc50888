//! `cargo xtask deb`: a `.deb` bundle built offline with the Tauri CLI from npm.

use crate::{setup, step, ui};
use anyhow::{Context, Result};
use std::process::Command;

/// The Tauri CLI version, pinned so bundles are reproducible.
const TAURI_CLI: &str = "@tauri-apps/cli@2.12.5";

pub(crate) fn bundle() -> Result<()> {
    setup::ensure(setup::Purpose::Run)?;
    ui::build()?;
    let root = crate::workspace_root();
    // The CLI looks for its config inside src-tauri; point it at the root one.
    let link = root.join("src-tauri").join("tauri.conf.json");
    if !link.exists() {
        std::os::unix::fs::symlink("../tauri.conf.json", &link)
            .with_context(|| format!("linking {}", link.display()))?;
    }
    let icons: Vec<_> = ["32x32.png", "128x128.png", "128x128@2x.png", "icon.png"]
        .iter()
        .map(|icon| root.join("icons").join(icon))
        .collect();
    let config = serde_json::json!({
        "build": { "frontendDist": root.join("ui/dist") },
        "bundle": { "icon": icons }
    });
    step::run(
        Command::new("npx")
            .args(["--yes", TAURI_CLI, "build", "--bundles", "deb", "--config"])
            .arg(config.to_string())
            .current_dir(&root)
            .env("TAURI_APP_PATH", root.join("src-tauri")),
    )?;
    let out = crate::target_dir()?
        .join("release")
        .join("bundle")
        .join("deb");
    eprintln!("xtask: .deb written to {}", out.display());
    Ok(())
}
