//! Builds the Leptos UI to `ui/dist` without Trunk: cargo for wasm32, then
//! wasm-bindgen as a library (its version is pinned to the one in Cargo.lock).

use crate::step;
use anyhow::{Context, Result};
use std::path::Path;

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
    for file in ["pizza_ui.js", "pizza_ui_bg.wasm"] {
        copy_if_changed(&staging.join(file), &dist.join(file))?;
    }
    for file in STATIC_FILES {
        copy_if_changed(&ui.join(file), &dist.join(file))?;
    }
    eprintln!(
        "<== {:.1}s  wasm-bindgen → {}",
        started.elapsed().as_secs_f64(),
        dist.display()
    );
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
