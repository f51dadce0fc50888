//! `cargo xtask test`: the whole suite, in the order that fails fastest.

use crate::{services::Xvfb, setup, step, ui};
use anyhow::Result;
use std::process::Command;
use std::time::Instant;

pub(crate) fn all(args: &[String]) -> Result<()> {
    let started = Instant::now();
    let e2e = !args.iter().any(|a| a == "--no-e2e");
    setup::ensure(setup::Purpose::Test)?;

    step::cargo(&["fmt", "--all", "--check"])?;
    // The contract crate must build for the webview; the UI build proves it
    // again with everything that uses it.
    step::cargo(&["check", "-p", "pizza-protocol", "--target", "wasm32-unknown-unknown"])?;
    ui::build()?;
    step::cargo(&[
        "clippy",
        "-p",
        "pizza-ui",
        "--target",
        "wasm32-unknown-unknown",
        "--",
        "-D",
        "warnings",
    ])?;
    step::cargo(&[
        "clippy",
        "--workspace",
        "--exclude",
        "pizza-ui",
        "--all-targets",
        "--features",
        "pizza-tests/e2e",
        "--",
        "-D",
        "warnings",
    ])?;
    step::cargo(&["test", "--workspace", "--exclude", "pizza-ui"])?;

    if e2e {
        step::cargo(&["build", "-p", "pizza-bot"])?;
        let app = crate::target_dir()?.join("debug").join("pizza-bot");
        let display = Xvfb::start()?;
        eprintln!("xtask: Xvfb on {}", display.display);
        // A private session bus for everything the app talks D-Bus to
        // (single instance, notifications, the Secret Service).
        let mut command = Command::new("dbus-run-session");
        command
            .args(["--", &step::cargo_bin(), "test", "-p", "pizza-tests", "--features", "e2e", "--test", "e2e"])
            .current_dir(crate::workspace_root())
            .env("DISPLAY", &display.display)
            .env("PIZZA_APP_BIN", &app)
            .env_remove("WAYLAND_DISPLAY");
        step::run(&mut command)?;
    }
    eprintln!("\nxtask test: all passed in {:.0}s", started.elapsed().as_secs_f64());
    Ok(())
}
