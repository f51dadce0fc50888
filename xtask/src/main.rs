//! `cargo xtask <command>`: the project's setup, build and test entry points.
//!
//! - `run`   installs what is missing, builds the UI and the app, starts it.
//! - `test`  installs what is missing and runs the whole suite: fmt, clippy,
//!   the wasm32 build, unit and integration tests, end-to-end tests under Xvfb.
//! - `mcp-servers` installs the MCP servers the tests talk to (also part of `test`).
//! - `layering` checks the crate graph against DESIGN.md §2 (also part of `test`).
//! - `ui`    builds the UI into `ui/dist` only.
//! - `deb`   bundles a `.deb` offline (needs npm for the Tauri CLI); `--check`
//!   then unpacks it and starts the packaged app (needs a display).

mod bench;
mod deb;
mod layering;
mod mcp_servers;
mod npm;
mod recall;
mod services;
mod setup;
mod step;
mod test;
mod ui;

use anyhow::{Result, bail};
use std::path::PathBuf;

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_default();
    let rest: Vec<String> = args.collect();
    match command.as_str() {
        "run" => {
            setup::ensure(setup::Purpose::Run)?;
            ui::build()?;
            step::cargo(&app_build(&["--bins"]))?;
            let app = target_dir()?.join("debug").join("pizza-bot");
            step::run(std::process::Command::new(app).args(&rest))
        }
        "test" => test::all(&rest),
        "setup" => setup::ensure(setup::Purpose::Test),
        "mcp-servers" => {
            let dir = mcp_servers::ensure()?;
            eprintln!("xtask: MCP test servers in {}", dir.display());
            Ok(())
        }
        "layering" => layering::check(),
        "ui" => ui::build(),
        "deb" => deb::command(&rest),
        "bench" => bench::command(&rest),
        _ => bail!(
            "usage: cargo xtask <run|test|layering|ui|deb|bench|setup|mcp-servers>\n  run   set up, build and start the app\n  test  set up and run the whole test suite (test --no-e2e skips the window tests)\n  mcp-servers  install the MCP servers the tests talk to (part of test)\n  layering  check which crate may depend on which (DESIGN.md §2)\n  deb   bundle a .deb (deb --check also verifies it; deb --check --no-build verifies the last one)\n  bench desktop  the release app's start-up, memory, CPU, reopen time, soak and sizes"
        ),
    }
}

/// The app's packages, with what it starts or loads from beside itself:
/// the eval worker and the WebKit extension its web processes load, and
/// `pizza-bot-open`, which starts it or hands a launch over to it.
const APP_PACKAGES: &[&str] = &[
    "-p",
    "pizza-bot",
    "-p",
    "pizza-launch",
    "-p",
    "pizza-sandbox",
    "-p",
    "pizza-webext",
    "--lib",
];

/// `cargo build` of the app's packages and `more` (a profile, binaries), in
/// one cargo run (one feature resolution, nothing built twice).
pub(crate) fn app_build<'a>(more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["build"];
    args.extend_from_slice(APP_PACKAGES);
    args.extend_from_slice(more);
    args
}

/// The workspace root (this crate's parent).
pub(crate) fn workspace_root() -> PathBuf {
    // `cargo run` sets it at run time; prefer that over the path baked in at
    // build time, which is stale when another checkout sharing the target
    // directory built the binary last.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

/// Where cargo puts build output, honouring `CARGO_TARGET_DIR` and config.
pub(crate) fn target_dir() -> Result<PathBuf> {
    let output = std::process::Command::new(step::cargo_bin())
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(workspace_root())
        .output()?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let meta: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    match meta["target_directory"].as_str() {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => bail!("cargo metadata has no target_directory"),
    }
}
