//! Builds the Leptos UI to `ui/dist` without Trunk: cargo for wasm32,
//! wasm-bindgen as a library (its version is pinned to the one in Cargo.lock),
//! then binaryen's `wasm-opt` (npm's `binaryen`, pinned by
//! `xtask/binaryen/package-lock.json` and installed under
//! `~/.cache/pizza-bot/binaryen`: Debian's is too old, it writes the
//! externref table wasm-bindgen uses as an anyref one, which WebKit refuses).
//! The module itself goes to `ui/packed`, brotli-compressed at the highest
//! quality, for the app to embed and serve ([`MODULE_PACKED`]).

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
    pack(&staging, &ui.join("packed"))?;
    // Tauri embeds all of `dist`: the module is served from `packed`.
    let stale = dist.join("pizza_ui_bg.wasm");
    if stale.exists() {
        std::fs::remove_file(&stale).with_context(|| format!("removing {}", stale.display()))?;
    }
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
    let module = std::fs::read(&input).with_context(|| format!("reading {}", input.display()))?;
    if made_from(&shrunk, &from, &module) {
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

/// The UI's module as the app embeds it (`src-tauri/src/ui_assets.rs`):
/// brotli at quality 11, where Tauri packs the pages' files at 9 (the
/// module 764 -> 665 KB, the binary as much smaller; unpacking takes as
/// long). Its source is kept beside it, so an unchanged module is not
/// packed again (~6 s).
const MODULE_PACKED: &str = "pizza_ui_bg.wasm.br";
const PACKED_FROM: &str = "pizza_ui_bg.packed-from.wasm";

fn pack(staging: &Path, packed: &Path) -> Result<()> {
    let shrunk = staging.join(SHRUNK);
    let module = std::fs::read(&shrunk).with_context(|| format!("reading {}", shrunk.display()))?;
    let (from, to) = (staging.join(PACKED_FROM), packed.join(MODULE_PACKED));
    if made_from(&to, &from, &module) {
        return Ok(());
    }
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 22,
        ..Default::default()
    };
    let mut bytes = Vec::new();
    brotli::BrotliCompress(&mut module.as_slice(), &mut bytes, &params)
        .with_context(|| format!("compressing {}", shrunk.display()))?;
    std::fs::create_dir_all(packed).with_context(|| format!("creating {}", packed.display()))?;
    copy_bytes_if_changed(&bytes, &to)?;
    std::fs::write(&from, &module).with_context(|| format!("writing {}", from.display()))?;
    Ok(())
}

/// Whether `output` is there and was made from `input` (kept as `from`
/// when it was made).
fn made_from(output: &Path, from: &Path, input: &[u8]) -> bool {
    output.is_file() && std::fs::read(from).ok().as_deref() == Some(input)
}

/// Leaves unchanged files untouched so cargo does not rebuild the app for nothing.
fn copy_if_changed(from: &Path, to: &Path) -> Result<()> {
    let bytes = std::fs::read(from).with_context(|| format!("reading {}", from.display()))?;
    copy_bytes_if_changed(&bytes, to)
}

fn copy_bytes_if_changed(bytes: &[u8], to: &Path) -> Result<()> {
    if std::fs::read(to).ok().as_deref() != Some(bytes) {
        std::fs::write(to, bytes).with_context(|| format!("writing {}", to.display()))?;
    }
    Ok(())
}
