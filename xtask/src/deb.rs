//! `cargo xtask deb`: a `.deb` bundle built offline with the Tauri CLI from
//! npm. `--check` then verifies the package (see [`check`]); `--no-build`
//! checks the last one built.

pub(crate) mod check;

use crate::{setup, step, ui};
use anyhow::{Context, Result, bail};
use std::process::Command;

/// The eval worker's program (crates/sandbox).
const WORKER: &str = "pizza-eval-worker";

/// The web processes' extension (crates/webext).
const WEB_EXTENSION: &str = "libpizza_webext.so";

/// What the desktop entry starts (crates/launch): it hands a launch to the
/// running app without loading the app's libraries, or becomes the app.
const LAUNCHER: &str = "pizza-bot-open";

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
    // The eval tool's worker and the web processes' extension go in the
    // bundle's resources, where the app looks for them
    // (src-tauri/src/eval_worker.rs, web_extension.rs), the launcher beside
    // the app, which its desktop entry starts; the bundler builds only the
    // app. The packages are named together so features resolve as for the
    // app and the dependencies it shares are not built again.
    step::cargo(&crate::app_build(&[
        "--release",
        "--bin",
        WORKER,
        "--bin",
        LAUNCHER,
    ]))?;
    let release = crate::target_dir()?.join("release");
    let config = serde_json::json!({
        "build": { "frontendDist": root.join("ui/dist") },
        "bundle": {
            "icon": icons,
            "linux": { "deb": {
                "desktopTemplate": root.join("src-tauri").join("pizza-bot.desktop.hbs"),
                "files": {
                    check::WORKER_PATH: release.join(WORKER),
                    check::WEB_EXTENSION_PATH: release.join(WEB_EXTENSION),
                    check::LAUNCHER_PATH: release.join(LAUNCHER),
                }
            } }
        }
    });
    step::run(
        Command::new("npx")
            .args(["--yes", TAURI_CLI, "build", "--bundles", "deb", "--config"])
            .arg(config.to_string())
            .current_dir(&root)
            .env("TAURI_APP_PATH", root.join("src-tauri")),
    )?;
    let deb = check::newest_deb()?;
    recompress(&deb)?;
    eprintln!("xtask: .deb written to {}", deb.display());
    Ok(())
}

/// The C library an app binary with packed relocations needs (its loader
/// reads DT_RELR from 2.36 on; `src-tauri/build.rs` packs them when the
/// build machine's glibc has it).
pub(crate) const RELR_LIBC: &str = "libc6 (>= 2.36)";

/// The package of flite's voices, which the app binary names among its own
/// libraries when the build machine's WebKitGTK links them
/// (`src-tauri/build.rs`): a system whose WebKitGTK is built without
/// speech synthesis must install it too.
pub(crate) const FLITE_VOICES: &str = "libflite1";

/// What the app binary needs that the bundler does not list: [`RELR_LIBC`]
/// when it packs its relocations, [`FLITE_VOICES`] when it names a voice.
pub(crate) fn extra_depends(binary: &[u8]) -> Vec<&'static str> {
    let names = |marker: &[u8]| binary.windows(marker.len()).any(|window| window == marker);
    [
        (b"GLIBC_ABI_DT_RELR".as_slice(), RELR_LIBC),
        (b"libflite_cmu_time_awb.so.1".as_slice(), FLITE_VOICES),
    ]
    .into_iter()
    .filter(|(marker, _)| names(marker))
    .map(|(_, package)| package)
    .collect()
}

/// The bundler lists neither a C library nor flite among the package's
/// dependencies: what [`extra_depends`] finds is added, so a system
/// without it refuses the package instead of installing a program its
/// loader cannot start.
fn require_extra_depends(tree: &std::path::Path) -> Result<()> {
    let binary = tree.join("usr/bin").join(check::BINARY);
    let bytes = std::fs::read(&binary).with_context(|| format!("reading {}", binary.display()))?;
    let extra = extra_depends(&bytes);
    if extra.is_empty() {
        return Ok(());
    }
    let path = tree.join("DEBIAN/control");
    let control =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    std::fs::write(&path, with_depends(&control, &extra))
        .with_context(|| format!("writing {}", path.display()))
}

/// `control` with `extra` first in its Depends (added if it has none).
fn with_depends(control: &str, extra: &[&str]) -> String {
    let extra = extra.join(", ");
    let mut found = false;
    let mut out = String::new();
    for line in control.lines() {
        match line.strip_prefix("Depends:") {
            Some(list) => {
                found = true;
                out.push_str(&format!("Depends: {extra}, {}\n", list.trim()));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    if !found {
        out.push_str(&format!("Depends: {extra}\n"));
    }
    out
}

/// Packs the bundler's `.deb` again with its files xz-compressed, as
/// Debian's own packages are: the bundler only writes gzip (12.3 MB for this
/// app, 8.4 MB with xz; dpkg has read xz since 1.15). Built with `dpkg-deb`
/// itself, files owned by root as the bundler left them.
fn recompress(deb: &std::path::Path) -> Result<()> {
    let scratch = tempfile::Builder::new()
        .prefix("pizza-deb-repack-")
        .tempdir()?;
    let tree = scratch.path().join("tree");
    step::run(Command::new("dpkg-deb").arg("-R").arg(deb).arg(&tree))?;
    require_extra_depends(&tree)?;
    let packed = scratch.path().join("packed.deb");
    step::run(
        Command::new("dpkg-deb")
            .args(["--root-owner-group", "-Zxz", "--build"])
            .arg(&tree)
            .arg(&packed),
    )?;
    std::fs::copy(&packed, deb).with_context(|| format!("replacing {}", deb.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_binary_needs_leads_the_depends_or_becomes_it() {
        let control = "Package: pizza-bot\nDepends: ca-certificates, libgtk-3-0\nDescription: x\n";
        assert_eq!(
            with_depends(control, &[RELR_LIBC, FLITE_VOICES]),
            "Package: pizza-bot\nDepends: libc6 (>= 2.36), libflite1, ca-certificates, libgtk-3-0\nDescription: x\n"
        );
        assert_eq!(
            with_depends("Package: pizza-bot\n", &[RELR_LIBC]),
            "Package: pizza-bot\nDepends: libc6 (>= 2.36)\n"
        );
        assert_eq!(
            extra_depends(b"..GLIBC_2.34\0GLIBC_ABI_DT_RELR\0..libflite_cmu_time_awb.so.1\0"),
            [RELR_LIBC, FLITE_VOICES]
        );
        assert_eq!(
            extra_depends(b"..libflite_cmu_time_awb.so.1\0"),
            [FLITE_VOICES]
        );
        assert!(extra_depends(b"..GLIBC_2.34\0GLIBC_2.35\0..").is_empty());
    }
}
