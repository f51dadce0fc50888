fn main() {
    // The embedded UI: files rewritten in place don't change the folder's
    // mtime, so name each one or an app build can keep a stale UI.
    println!("cargo::rerun-if-changed=../ui/dist");
    if let Ok(entries) = std::fs::read_dir("../ui/dist") {
        for entry in entries.flatten() {
            println!("cargo::rerun-if-changed={}", entry.path().display());
        }
    }
    packed_module();
    pack_relative_relocations();
    found_first();
    // The config lives at the repository root so the whole workspace shares one.
    let attributes = tauri_build::Attributes::new().config_path("../tauri.conf.json");
    if let Err(error) = tauri_build::try_build(attributes) {
        println!("cargo::error=tauri build step failed: {error:#}");
    }
}

/// The UI's module, packed by `cargo xtask ui` outside `ui/dist` (which
/// Tauri embeds whole), for `ui_assets.rs` to embed.
fn packed_module() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let module = std::path::Path::new(&manifest).join("../ui/packed/pizza_ui_bg.wasm.br");
    println!("cargo::rerun-if-changed={}", module.display());
    if !module.is_file() {
        println!(
            "cargo::error=the UI's module is missing ({}): run `cargo xtask ui`",
            module.display()
        );
    }
    println!("cargo::rustc-env=PIZZA_UI_MODULE={}", module.display());
}

/// WebKitGTK, which the app and WebKit's processes link.
const WEBKIT: &str = "libwebkit2gtk-4.1.so.0";

/// flite's `cmu_time_awb` voice, which WebKitGTK links for speech synthesis.
const VOICE: &str = "libflite_cmu_time_awb.so.1";

/// The libraries the loader finds the most names in as a process linking
/// WebKitGTK starts, most first (`LD_DEBUG=bindings`, Debian 12's WebKitGTK
/// 2.50: of ~72,000 lookups, 31,000 find the voice, ~6,700 JavaScriptCore,
/// ~4,400 the C library, ~3,800 libepoxy, ~3,200 GLib, ~2,200 libstdc++,
/// ~1,600 SQLite, ~1,500 GObject and WebKitGTK each, ~400-1,100 Xlib and
/// GIO). Each lookup searches the libraries in the order they were loaded
/// until one defines the name: these are loaded ~10th to ~80th otherwise.
const FOUND_FIRST: [&str; 11] = [
    VOICE,
    "libjavascriptcoregtk-4.1.so.0",
    "libc.so.6",
    "libepoxy.so.0",
    "libglib-2.0.so.0",
    "libstdc++.so.6",
    "libsqlite3.so.0",
    "libgobject-2.0.so.0",
    WEBKIT,
    "libX11.so.6",
    "libgio-2.0.so.0",
];

/// What the loader looks up most at every start of the app and of WebKit's
/// processes, found first. The voice exports some 31,000 symbols
/// (`frame_0`, `frame_1`, ...) that its own tables point at by name, and
/// WebKit's dependencies load it about eightieth; named among the app's own
/// libraries it is loaded about twentieth (`--version`, fastest of 25: 64
/// -> 48 ms). The others of [`FOUND_FIRST`] that the app calls into are
/// named before any other library (59.2 -> 55.1 ms, medians of 80).
/// WebKit's web and network processes preload the whole list, those of it
/// this machine's WebKitGTK links (handed to `src/web_preload.rs`, which
/// says what else it bought).
fn found_first() {
    let Some(webkit) = system_library(WEBKIT) else {
        return;
    };
    let linked: Vec<&str> = FOUND_FIRST
        .into_iter()
        .filter(|name| *name == WEBKIT || holds(&webkit, name.as_bytes()))
        .collect();
    // The app's own libraries are named in this order before any other,
    // so the loader loads them first; the linker keeps only those the app
    // calls into (it links `--as-needed`). The voice, which it does not
    // call, is named last, and kept.
    for name in linked.iter().filter(|name| **name != VOICE) {
        println!("cargo::rustc-link-lib=dylib:+verbatim={name}");
    }
    if linked.contains(&VOICE) {
        println!(
            "cargo::rustc-link-arg-bins=-Wl,--push-state,--no-as-needed,-l:{VOICE},--pop-state"
        );
    }
    println!(
        "cargo::rustc-env=PIZZA_WEB_PROCESS_PRELOAD={}",
        linked.join(":")
    );
}

/// The app is a position-independent executable: the loader adjusts some
/// 76,000 pointers in it at each start, listed one 24-byte entry each
/// (1.8 MB of the release binary, read at every start and then kept
/// mapped). DT_RELR packs the same list into bitmaps of a few KB. Only
/// when the C library it links with understands them (glibc 2.36+, which
/// marks that with the `GLIBC_ABI_DT_RELR` version; the linker then makes
/// an older loader refuse the binary instead of running it half-relocated).
fn pack_relative_relocations() {
    if system_library("libc.so.6").is_some_and(|libc| holds(&libc, b"GLIBC_ABI_DT_RELR")) {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether `library` holds `marker` (a version it defines, a library it
/// needs).
fn holds(library: &[u8], marker: &[u8]) -> bool {
    library.windows(marker.len()).any(|window| window == marker)
}

/// The system library `name`, where a linux-gnu target keeps its
/// libraries; none on other targets or when it is not found. A library
/// found is watched: an upgrade runs this script again.
fn system_library(name: &str) -> Option<Vec<u8>> {
    let target = |key: &str| std::env::var(key).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") != "linux" || target("CARGO_CFG_TARGET_ENV") != "gnu" {
        return None;
    }
    let arch = target("CARGO_CFG_TARGET_ARCH");
    let candidates = [
        format!("/lib/{arch}-linux-gnu/{name}"),
        format!("/usr/lib/{arch}-linux-gnu/{name}"),
        format!("/lib64/{name}"),
        format!("/usr/lib64/{name}"),
    ];
    let (path, library) = candidates
        .iter()
        .find_map(|path| Some((path, std::fs::read(path).ok()?)))?;
    println!("cargo::rerun-if-changed={path}");
    Some(library)
}
