//! Installs what is missing, idempotently: Debian packages and the wasm32 target.

use crate::step;
use anyhow::{Result, bail};
use std::process::Command;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    Run,
    Test,
}

/// What Tauri v2 needs to build and run on Debian/Ubuntu.
const BUILD_PACKAGES: &[&str] = &[
    "build-essential",
    "pkg-config",
    "file",
    "libssl-dev",
    "libwebkit2gtk-4.1-dev",
    "libjavascriptcoregtk-4.1-dev",
    "libsoup-3.0-dev",
    "libayatana-appindicator3-dev",
    "librsvg2-dev",
    "libxdo-dev",
    "libdbus-1-dev",
    // The store links the system's SQLite on Linux (crates/store/Cargo.toml).
    "libsqlite3-dev",
    // Node.js runs binaryen's wasm-opt, which shrinks the UI's wasm
    // (xtask/src/ui.rs), and the Tauri CLI that makes the .deb.
    "nodejs",
];

/// What the test suite starts: a display, the WebDriver, a session bus and a
/// Secret Service.
const TEST_PACKAGES: &[&str] = &[
    "xvfb",
    "xauth",
    "webkit2gtk-driver",
    "dbus",
    "dbus-bin",
    "dbus-x11",
    "gnome-keyring",
    "libsecret-tools",
    "xdotool",
    // A clipboard the tests fill (tests/e2e/x11.rs).
    "xclip",
    // The MCP servers the tests talk to (xtask/src/mcp_servers.rs).
    "python3-venv",
];

pub(crate) fn ensure(purpose: Purpose) -> Result<()> {
    let mut wanted: Vec<&str> = BUILD_PACKAGES.to_vec();
    if purpose == Purpose::Test {
        wanted.extend_from_slice(TEST_PACKAGES);
    }
    ensure_packages(&wanted)?;
    ensure_npm()?;
    ensure_wasm_target()
}

/// npm, which Debian's `nodejs` leaves to a package of its own and
/// NodeSource's `nodejs` carries (where Debian's `npm` would conflict): the
/// package only when the command is missing.
fn ensure_npm() -> Result<()> {
    if step::have("npm") {
        return Ok(());
    }
    ensure_packages(&["npm"])
}

fn ensure_packages(wanted: &[&str]) -> Result<()> {
    if !step::have("dpkg-query") {
        eprintln!(
            "xtask: not a Debian-based system; make sure these are installed: {}",
            wanted.join(" ")
        );
        return Ok(());
    }
    let missing: Vec<&str> = wanted.iter().copied().filter(|p| !installed(p)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("xtask: installing {}", missing.join(" "));
    let as_root = is_root();
    let apt = |args: &[&str]| {
        let mut command = if as_root {
            Command::new("apt-get")
        } else {
            let mut sudo = Command::new("sudo");
            sudo.arg("apt-get");
            sudo
        };
        command.env("DEBIAN_FRONTEND", "noninteractive").args(args);
        command
    };
    step::run(&mut apt(&["update", "-q"]))?;
    let mut install = vec!["install", "-y", "-q", "--no-install-recommends"];
    install.extend_from_slice(&missing);
    step::run(&mut apt(&install))
}

fn installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).contains("install ok installed"))
        .unwrap_or(false)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
        .unwrap_or(false)
}

fn ensure_wasm_target() -> Result<()> {
    let list = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    match list {
        Ok(out)
            if String::from_utf8_lossy(&out.stdout)
                .lines()
                .any(|l| l.trim() == "wasm32-unknown-unknown") =>
        {
            Ok(())
        }
        Ok(_) => {
            step::run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
        }
        Err(_) => bail!("rustup is needed to add the wasm32-unknown-unknown target"),
    }
}
