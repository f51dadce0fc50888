//! Builds the Leptos UI to `ui/dist` without Trunk: cargo for wasm32,
//! wasm-bindgen as a library (its version is pinned to the one in Cargo.lock),
//! then binaryen's `wasm-opt` (npm's `binaryen`, pinned by
//! `xtask/binaryen/package-lock.json` and installed under
//! `~/.cache/pizza-bot/binaryen`: Debian's is too old, it writes the
//! externref table wasm-bindgen uses as an anyref one, which WebKit refuses).

use crate::step;
use anyhow::{Context, Result};
use std::path::Path;
use std::process::Command;

/// The cargo profile for the UI: optimised for size, quick to compile.
const PROFILE: &str = "ui";
const STATIC_FILES: &[&str] = &[
    "index.html",
    "first_paint.js",
    "snapshot.js",
    "boot.js",
    "styles.css",
];

pub(crate) fn build() -> Result<()> {
    step::cargo(&[
        "build",
        "-p",
        "pizza-ui",
        "--lib",
        "--target",
        "wasm32-unknown-unknown",
        "--profile",
        PROFILE,
    ])?;
    let wasm = crate::target_dir()?
        .join("wasm32-unknown-unknown")
        .join(PROFILE)
        .join("pizza_ui.wasm");
    let ui = crate::workspace_root().join("ui");
    let dist = ui.join("dist");
    let staging = crate::target_dir()?.join("ui-bindgen");
    for dir in [&dist, &staging] {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }

    let started = std::time::Instant::now();
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&wasm)
        .web(true)?
        .typescript(false)
        // Names only help a debugger; the page compiles less without them.
        .remove_name_section(true)
        .remove_producers_section(true)
        .omit_default_module_path(false)
        .generate(&staging)
        .with_context(|| format!("wasm-bindgen on {}", wasm.display()))?;
    shrink(&staging)?;
    copy_if_changed(&staging.join("pizza_ui.js"), &dist.join("pizza_ui.js"))?;
    copy_if_changed(&staging.join(SHRUNK), &dist.join("pizza_ui_bg.wasm"))?;
    for file in STATIC_FILES {
        copy_if_changed(&ui.join(file), &dist.join(file))?;
    }
    eprintln!(
        "<== {:.1}s  wasm-bindgen and wasm-opt → {}",
        started.elapsed().as_secs_f64(),
        dist.display()
    );
    Ok(())
}

/// What `wasm-opt` made of the last `pizza_ui_bg.wasm` it was given (kept
/// beside it as `SHRUNK_FROM`), so an unchanged UI is not optimised again.
const SHRUNK: &str = "pizza_ui_bg.shrunk.wasm";
const SHRUNK_FROM: &str = "pizza_ui_bg.shrunk-from.wasm";

/// The wasm features rustc's wasm32-unknown-unknown target turns on, which
/// `wasm-opt` must be told of; a feature the target gains makes `wasm-opt`
/// refuse the module, loudly.
const WASM_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-multivalue",
    "--enable-mutable-globals",
    "--enable-nontrapping-float-to-int",
    "--enable-reference-types",
    "--enable-sign-ext",
];

/// Optimises the wasm for size: the page's engine validates and prepares
/// all of it before the first paint, at every start and reopen.
fn shrink(staging: &Path) -> Result<()> {
    let input = staging.join("pizza_ui_bg.wasm");
    let (from, shrunk) = (staging.join(SHRUNK_FROM), staging.join(SHRUNK));
    let unchanged = shrunk.is_file()
        && std::fs::read(&from).ok()
            == Some(std::fs::read(&input).with_context(|| format!("reading {}", input.display()))?);
    if unchanged {
        return Ok(());
    }
    let binaryen = crate::npm::cache_dir("binaryen")?;
    crate::npm::ensure_locked(
        &crate::workspace_root().join("xtask/binaryen"),
        &binaryen,
        "binaryen's wasm-opt",
    )?;
    step::run(
        Command::new(binaryen.join("node_modules/.bin/wasm-opt"))
            .arg("-Oz")
            .args(WASM_FEATURES)
            .arg(&input)
            .arg("-o")
            .arg(&shrunk),
    )?;
    std::fs::copy(&input, &from).with_context(|| format!("writing {}", from.display()))?;
    Ok(())
}

/// Leaves unchanged files untouched so cargo does not rebuild the app for nothing.
fn copy_if_changed(from: &Path, to: &Path) -> Result<()> {
    let bytes = std::fs::read(from).with_context(|| format!("reading {}", from.display()))?;
    if std::fs::read(to).ok().as_deref() != Some(bytes.as_slice()) {
        std::fs::write(to, bytes).with_context(|| format!("writing {}", to.display()))?;
    }
    Ok(())
}
