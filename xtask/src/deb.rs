//! `cargo xtask deb`: a `.deb` bundle built offline with the Tauri CLI from
//! npm. `--check` then verifies the package (see [`check`]); `--no-build`
//! checks the last one built.

pub(crate) mod check;

use crate::{setup, step, ui};
use anyhow::{Context, Result, bail};
use std::process::Command;

/// The Tauri CLI version, pinned so bundles are reproducible.
const TAURI_CLI: &str = "@tauri-apps/cli@2.12.5";

/// `cargo xtask deb [--check] [--no-build]`.
pub(crate) fn command(args: &[String]) -> Result<()> {
    let (mut build, mut verify) = (true, false);
    for arg in args {
        match arg.as_str() {
            "--check" => verify = true,
            "--no-build" => build = false,
            other => bail!("unknown option {other:?}: cargo xtask deb [--check] [--no-build]"),
        }
    }
    if !build && !verify {
        bail!("`--no-build` goes with `--check`: cargo xtask deb --check --no-build");
    }
    if build {
        bundle()?;
    }
    if verify {
        check::package(&check::newest_deb()?)?;
    }
    Ok(())
}

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
    // Plain sizes only: the bundler files an `@2x` image under a folder
    // named after its pixel size plus `@2`, which promises twice that size.
    let icons: Vec<_> = ["32x32.png", "128x128.png", "256x256.png", "icon.png"]
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
