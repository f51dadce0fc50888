//! `cargo xtask bench desktop`: the release app as a person runs it all
//! day. Builds the release binary and its `.deb` (as `cargo xtask deb`
//! does), then runs the desktop benchmark (`tests/benches/desktop.rs`) on a
//! private X display and session bus; it prints one line per figure, beside
//! the figures of the last release build it measured.

use crate::services::{Xvfb, session_bus_config};
use crate::{deb, setup, step};
use anyhow::{Result, bail};
use std::process::Command;

const USAGE: &str = "usage: cargo xtask bench desktop [--no-build]";

/// `cargo xtask bench desktop [--no-build]`.
pub(crate) fn command(args: &[String]) -> Result<()> {
    let mut args = args.iter().map(String::as_str);
    if args.next() != Some("desktop") {
        bail!(USAGE);
    }
    let mut build = true;
    for arg in args {
        match arg {
            "--no-build" => build = false,
            other => bail!("unknown option {other:?}\n{USAGE}"),
        }
    }
    setup::ensure(setup::Purpose::Test)?;
    if build {
        deb::bundle()?;
    }
    let target = crate::target_dir()?;
    let deb = deb::check::newest_deb()?;
    let display = Xvfb::start()?;
    eprintln!("xtask: Xvfb on {}", display.display);
    let bus_config = session_bus_config(&target)?;
    // The driver's own speed does not matter: build it unoptimized, quickly.
    step::run(
        Command::new("dbus-run-session")
            .arg(format!("--config-file={}", bus_config.display()))
            .arg("--")
            .arg(step::cargo_bin())
            .args([
                "bench",
                "--profile",
                "dev",
                "-p",
                "pizza-tests",
                "--features",
                "e2e",
                "--bench",
                "desktop",
            ])
            .current_dir(crate::workspace_root())
            .env("DISPLAY", &display.display)
            .env("PIZZA_APP_BIN", target.join("release").join("pizza-bot"))
            .env("PIZZA_BENCH_DEB", deb)
            .env("PIZZA_BENCH_RESULTS", target.join("bench-desktop.json"))
            .env("NO_AT_BRIDGE", "1")
            .env_remove("WAYLAND_DISPLAY"),
    )
}
