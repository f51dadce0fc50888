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
    voice_found_first();
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

/// The library behind most of the loader's work at every start: WebKitGTK
/// links flite's voices, and the `cmu_time_awb` one exports some 31,000
/// symbols (`frame_0`, `frame_1`, ...) that its own tables point at by
/// name; the loader looks each up through every library loaded before it,
/// and WebKit's dependencies load it about eightieth. Named among the
/// app's own libraries it is loaded about twentieth: ~16 ms less of the
/// app's start (`--version`, fastest of 25: 64 -> 48 ms). WebKit's web and
/// network processes preload it (`src/web_preload.rs`, which also says
/// what it bought). Only when this machine's WebKitGTK links it.
fn voice_found_first() {
    const VOICE: &str = "libflite_cmu_time_awb.so.1";
    if system_library_holds("libwebkit2gtk-4.1.so.0", VOICE.as_bytes()) {
        println!(
            "cargo::rustc-link-arg-bins=-Wl,--push-state,--no-as-needed,-l:{VOICE},--pop-state"
        );
        println!("cargo::rustc-env=PIZZA_WEB_PROCESS_PRELOAD={VOICE}");
    }
}

/// The app is a position-independent executable: the loader adjusts some
/// 76,000 pointers in it at each start, listed one 24-byte entry each
/// (1.8 MB of the release binary, read at every start and then kept
/// mapped). DT_RELR packs the same list into bitmaps of a few KB. Only
/// when the C library it links with understands them (glibc 2.36+, which
/// marks that with the `GLIBC_ABI_DT_RELR` version; the linker then makes
/// an older loader refuse the binary instead of running it half-relocated).
fn pack_relative_relocations() {
    if system_library_holds("libc.so.6", b"GLIBC_ABI_DT_RELR") {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the system library `name`, where a linux-gnu target keeps its
/// libraries, holds `marker` (a version it defines, a library it needs);
/// false on other targets or when it is not found. A library found is
/// watched: an upgrade runs this script again.
fn system_library_holds(name: &str, marker: &[u8]) -> bool {
    let target = |key: &str| std::env::var(key).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") != "linux" || target("CARGO_CFG_TARGET_ENV") != "gnu" {
        return false;
    }
    let arch = target("CARGO_CFG_TARGET_ARCH");
    let candidates = [
        format!("/lib/{arch}-linux-gnu/{name}"),
        format!("/usr/lib/{arch}-linux-gnu/{name}"),
        format!("/lib64/{name}"),
        format!("/usr/lib64/{name}"),
    ];
    let Some((path, library)) = candidates
        .iter()
        .find_map(|path| Some((path, std::fs::read(path).ok()?)))
    else {
        return false;
    };
    println!("cargo::rerun-if-changed={path}");
    library.windows(marker.len()).any(|window| window == marker)
}
