//! `cargo xtask test`: the whole suite, in the order that fails fastest.

use crate::services::{Xvfb, session_bus_config};
use crate::{setup, step, ui};
use anyhow::Result;
use std::process::Command;
use std::time::Instant;

pub(crate) fn all(args: &[String]) -> Result<()> {
    let started = Instant::now();
    let e2e = !args.iter().any(|a| a == "--no-e2e");
    setup::ensure(setup::Purpose::Test)?;
    let mcp_servers = crate::mcp_servers::ensure()?;

    step::cargo(&["fmt", "--all", "--check"])?;
    // Cheap and structural: a forbidden edge fails before anything compiles.
    eprintln!("\n==> layering");
    crate::layering::check()?;
    // The contract crate must build for the webview on its own; the UI build
    // proves it again with everything that uses it.
    step::cargo(&[
        "check",
        "-p",
        "pizza-protocol",
        "--target",
        "wasm32-unknown-unknown",
    ])?;
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

    // The window's pure logic (markdown, streaming blocks) runs natively.
    step::cargo(&["test", "-p", "pizza-ui", "--lib"])?;

    // One `cargo test` for everything, inside a private session bus (single
    // instance, notifications and the Secret Service talk D-Bus) and, for
    // the window tests, a private X display.
    let target = crate::target_dir()?;
    // Every failing test binary is reported, not only the first.
    let mut test_args = vec![
        "test",
        "--no-fail-fast",
        "--workspace",
        "--exclude",
        "pizza-ui",
    ];
    let mut command = Command::new("dbus-run-session");
    let _display = if e2e {
        step::cargo(&crate::app_build(&["--bins"]))?;
        let display = Xvfb::start()?;
        eprintln!("xtask: Xvfb on {}", display.display);
        command
            .env("DISPLAY", &display.display)
            .env("PIZZA_APP_BIN", target.join("debug").join("pizza-bot"));
        test_args.extend(["--features", "pizza-tests/e2e"]);
        Some(display)
    } else {
        None
    };
    let bus_config = session_bus_config(&target)?;
    command
        .arg(format!("--config-file={}", bus_config.display()))
        .arg("--")
        .arg(step::cargo_bin())
        .args(&test_args)
        .current_dir(crate::workspace_root())
        // No accessibility bus on the private session: keep GTK quiet about it.
        .env("NO_AT_BRIDGE", "1")
        .env(crate::mcp_servers::SERVERS_ENV, &mcp_servers)
        .env_remove("WAYLAND_DISPLAY");
    crate::recall::run(&mut command)?;

    eprintln!(
        "\nxtask test: all passed in {:.0}s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
