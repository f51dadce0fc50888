//! Per-webview tuning applied as each page starts loading.
//!
//! On Linux without a GPU render node, WebKitGTK's accelerated compositing
//! runs on software GL (llvmpipe), which makes every repaint of a changing
//! page go through a slow texture-upload-and-composite path: a streaming
//! answer then drops to 10–15 frames per second. WebKit's non-composited
//! renderer paints the same changes directly and keeps 60 frames per second,
//! so compositing is turned off there. With a GPU nothing changes.
//! `PIZZA_GPU_COMPOSITING=always|never` overrides the detection.
//!
//! Without compositing, WebKit's DMA-BUF renderer (a GBM device and buffers
//! in the app and in each web process) only costs memory and start-up time:
//! the process turns it off before WebKit starts (see [`prepare_process`]);
//! measured, 16 MiB less across the processes and the window made 15 ms
//! sooner.
//!
//! Nor does the app's own process draw with GL then: it only shows the
//! bitmaps the web process paints. Yet two things load Mesa's software GL
//! (and the LLVM it links) into it: GDK's GLX set-up in `gtk_init`, and
//! WebKit's EGL display when it starts a web process. Without a GPU the
//! process turns GDK's GL off and makes libglvnd's EGL find no driver in
//! this process (see [`keep_gl_drivers_out`]); web processes, which need
//! EGL, still get Mesa. Measured on the release app: the app's process
//! 103 -> 78 MiB, 17 MiB less across the processes shown (the web process
//! now carries the shared LLVM pages alone), and as much less closed to
//! the tray. (Either alone saves nothing: the other loads Mesa.)
//!
//! The page is a wasm module of ~3 MB run by JavaScriptCore in the web
//! process, and JSC's warming tiers cost more there than they give: at
//! every start and every reopen from the tray the whole module went
//! through its baseline compiler before the first paint (~100 ms of the
//! ~650), and what the tiers made stayed in memory (the web process grew
//! ~35 MiB over the first 20 runs and kept it). Interpreted (JSC's
//! in-place wasm interpreter and LLInt), measured on the release app: the
//! inbox painted ~100 ms sooner, 7 MiB less shown, and 200 runs grow the
//! idle memory 7 % instead of 13–15 %; a 46 KB answer takes 125–136 ms
//! instead of 53 to open and 0.4–0.6 s instead of 0.3 to stream as fast as
//! the mock sends it (a model takes a minute to write it; at 200 tokens a
//! second the page keeps 60 frames a second, p95 17 ms).
//!
//! The tiers are turned off one by one rather than with the JIT as a
//! whole: JSC without its JIT also prepares a module for its interpreter
//! on a single thread, and that preparation (~75 ms for the UI's module
//! on this 2-core machine) is what the page waits on between its last look
//! and its own inbox, while its main thread is idle. With the JIT kept, it
//! runs on one thread per core (at most four), and the page's own inbox
//! paints ~50 ms sooner (twelve warm starts of each, interleaved: from the
//! page's start 207 -> 154 ms, the module prepared in 41 ms instead of 74,
//! the last look unchanged). What it costs: JSC's JIT machinery in each
//! web process (its thunks, ~4–10 MiB more of the web process resident
//! shown) and a small writable and executable mapping for them.
//! `PIZZA_WEBKIT_JIT=on` keeps JSC's default (every tier), `off` turns its
//! JIT off whole (one thread, no executable memory).
//!
//! WebKit's memory-pressure monitor is off. In the app's process it is a
//! thread that reads the system's memory figures every one to five seconds
//! for as long as the app runs, closed to the tray too, with no web process
//! left to tell: it was half of the hidden app's CPU (7 of 14 ms every 30 s,
//! measured on the release app). WebKit turns the web processes' own
//! handler off with it, so a page no longer drops its caches when the
//! system runs short of memory; here those caches are small (the
//! document-viewer model below, no back-forward cache), and closing the
//! window to the tray ends the web process. `PIZZA_WEBKIT_MEMORY_MONITOR=on`
//! keeps WebKit's default.
//!
//! The pages are the app's own, loaded once from its bundle and never
//! navigated: WebKit's browser cache model (a back-forward cache, large
//! memory caches for pages visited again) only costs memory here, so every
//! webview uses the document-viewer model (`PIZZA_WEBKIT_CACHE_MODEL=browser`
//! keeps WebKit's default, to measure the difference).

use tauri::webview::PageLoadPayload;
use tauri::{Manager, Runtime, Webview};

/// Whether the webview should composite with the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compositing {
    /// WebKit's own choice (a GPU is there, or the user asked for it).
    Default,
    /// Software rendering only: compositing would cost more than it saves.
    Off,
}

/// Decides from the override variable and the presence of a render node.
pub(crate) fn compositing(override_value: Option<&str>, has_render_node: bool) -> Compositing {
    match override_value.map(str::trim) {
        Some("always") => Compositing::Default,
        Some("never") => Compositing::Off,
        _ if has_render_node => Compositing::Default,
        _ => Compositing::Off,
    }
}

/// The environment WebKit and GDK read at start for `choice`: none with a
/// GPU; without one, no DMA-BUF renderer and no GL in GDK.
pub(crate) fn process_environment(choice: Compositing) -> &'static [(&'static str, &'static str)] {
    match choice {
        Compositing::Default => &[],
        Compositing::Off => &[
            ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
            ("GDK_GL", "disable"),
        ],
    }
}

/// JavaScriptCore's tiers that compile JavaScript and wasm as it warms.
const WARMING_TIERS: [&str; 5] = [
    "JSC_useBaselineJIT",
    "JSC_useDFGJIT",
    "JSC_useFTLJIT",
    "JSC_useBBQJIT",
    "JSC_useOMGJIT",
];

/// The most threads a web process prepares the UI's module on.
const MAX_WASM_THREADS: usize = 4;

/// The environment JavaScriptCore reads in each web process, on a machine
/// of `cores`: no warming tiers, and the UI's module prepared on every core
/// (up to [`MAX_WASM_THREADS`]); unless `override_value`
/// (`PIZZA_WEBKIT_JIT`) is `on` (JSC's default) or `off` (no JIT at all).
pub(crate) fn engine_environment(
    override_value: Option<&str>,
    cores: usize,
) -> Vec<(&'static str, String)> {
    match override_value.map(str::trim) {
        Some("on") => Vec::new(),
        Some("off") => vec![("JSC_useJIT", "0".to_owned())],
        _ => WARMING_TIERS
            .iter()
            .map(|tier| (*tier, "0".to_owned()))
            .chain([(
                "JSC_numberOfWasmCompilerThreads",
                cores.clamp(1, MAX_WASM_THREADS).to_string(),
            )])
            .collect(),
    }
}

/// The environment WebKit reads for its memory-pressure monitor: off,
/// unless `override_value` (`PIZZA_WEBKIT_MEMORY_MONITOR`) is `on`.
pub(crate) fn monitor_environment(
    override_value: Option<&str>,
) -> &'static [(&'static str, &'static str)] {
    unless_on(
        override_value,
        &[("WEBKIT_DISABLE_MEMORY_PRESSURE_MONITOR", "1")],
    )
}

/// `ours`, unless the person's override asks for WebKit's own (`on`).
fn unless_on(
    override_value: Option<&str>,
    ours: &'static [(&'static str, &'static str)],
) -> &'static [(&'static str, &'static str)] {
    match override_value.map(str::trim) {
        Some("on") => &[],
        _ => ours,
    }
}

/// Sets [`process_environment`] for this machine, [`engine_environment`],
/// [`monitor_environment`] and the preload (web_preload.rs), keeping any
/// value the person set. Called first thing in `run`, before any thread
/// exists (the environment is process-wide; WebKit reads it when it starts,
/// and web processes inherit it).
#[cfg(target_os = "linux")]
pub(crate) fn prepare_process() {
    let jit = std::env::var("PIZZA_WEBKIT_JIT").ok();
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let engine = engine_environment(jit.as_deref(), cores);
    let monitor = std::env::var("PIZZA_WEBKIT_MEMORY_MONITOR").ok();
    let monitor = monitor_environment(monitor.as_deref());
    let choice = this_machine();
    let engine = engine.iter().map(|(name, value)| (*name, value.as_str()));
    for (name, value) in process_environment(choice)
        .iter()
        .copied()
        .chain(engine)
        .chain(monitor.iter().copied())
    {
        if let Err(error) = webkit2gtk::glib::setenv(name, value, false) {
            eprintln!("Pizza Bot: could not set {name}: {error}");
        }
    }
    crate::web_preload::prepare();
    if choice == Compositing::Off {
        keep_gl_drivers_out();
    }
}

/// Makes libglvnd's EGL in this process find no driver, and leaves the
/// environment as it was for the processes started later (web processes
/// need EGL). libglvnd reads its driver list once, at its first call, so
/// the list is read here with a directory that has none, before WebKit
/// asks. A person's own choice of drivers is left alone.
#[cfg(target_os = "linux")]
fn keep_gl_drivers_out() {
    // Where libglvnd looks for EGL drivers, and the list that overrides it.
    const EGL_VENDOR_DIRS: &str = "__EGL_VENDOR_LIBRARY_DIRS";
    const EGL_VENDOR_FILES: &str = "__EGL_VENDOR_LIBRARY_FILENAMES";
    if std::env::var_os(EGL_VENDOR_DIRS).is_some() || std::env::var_os(EGL_VENDOR_FILES).is_some() {
        return;
    }
    if let Err(error) = webkit2gtk::glib::setenv(EGL_VENDOR_DIRS, "/dev/null", true) {
        eprintln!("Pizza Bot: could not set {EGL_VENDOR_DIRS}: {error}");
        return;
    }
    // With no driver there are no client extensions: an error is expected.
    let _no_driver = khronos_egl::API.query_string(None, khronos_egl::EXTENSIONS);
    webkit2gtk::glib::unsetenv(EGL_VENDOR_DIRS);
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn prepare_process() {}

/// The choice for this machine, decided once: at start for the process's
/// environment, then for every page.
fn this_machine() -> Compositing {
    static CHOICE: std::sync::OnceLock<Compositing> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(|| {
        compositing(
            std::env::var("PIZZA_GPU_COMPOSITING").ok().as_deref(),
            has_render_node(),
        )
    })
}

/// True if the machine has a DRM render node a GPU driver could use.
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri")
        .map(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
        })
        .unwrap_or(false)
}

/// The `on_page_load` hook: tunes the webview before its first paint.
pub(crate) fn on_page_load<R: Runtime>(webview: &Webview<R>, payload: &PageLoadPayload<'_>) {
    if payload.event() == tauri::webview::PageLoadEvent::Finished {
        // Once the page has painted and settled, the pages of code that
        // took are handed back (mapped_pages.rs).
        crate::mapped_pages::after_settling(webview.app_handle());
        return;
    }
    // A new page: what was queued for the one before is not for it.
    if let Some(outboxes) = webview.try_state::<crate::outbox::Outboxes>() {
        outboxes.open(webview.label());
    }
    apply_cache_model(webview);
    let choice = this_machine();
    if choice == Compositing::Default {
        return;
    }
    apply_off(webview);
}

#[cfg(target_os = "linux")]
fn apply_off<R: Runtime>(webview: &Webview<R>) {
    use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
    let result = webview.with_webview(|platform| {
        if let Some(settings) = platform.inner().settings() {
            settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
        }
    });
    match result {
        Ok(()) => tracing::info!(
            label = webview.label(),
            "no GPU render node: webview compositing off (PIZZA_GPU_COMPOSITING=always to keep it)"
        ),
        Err(error) => tracing::warn!(%error, "could not tune the webview"),
    }
}

#[cfg(not(target_os = "linux"))]
fn apply_off<R: Runtime>(_webview: &Webview<R>) {}

#[cfg(target_os = "linux")]
fn apply_cache_model<R: Runtime>(webview: &Webview<R>) {
    use webkit2gtk::{CacheModel, WebContextExt, WebViewExt};
    if std::env::var("PIZZA_WEBKIT_CACHE_MODEL").is_ok_and(|model| model == "browser") {
        return;
    }
    let result = webview.with_webview(|platform| {
        if let Some(context) = platform.inner().context() {
            context.set_cache_model(CacheModel::DocumentViewer);
        }
    });
    if let Err(error) = result {
        tracing::warn!(%error, "could not set the webview's cache model");
    }
}

#[cfg(not(target_os = "linux"))]
fn apply_cache_model<R: Runtime>(_webview: &Webview<R>) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compositing_follows_the_gpu_unless_overridden() {
        assert_eq!(compositing(None, true), Compositing::Default);
        assert_eq!(compositing(None, false), Compositing::Off);
        assert_eq!(compositing(Some("always"), false), Compositing::Default);
        assert_eq!(compositing(Some("never"), true), Compositing::Off);
        assert_eq!(compositing(Some("bogus"), false), Compositing::Off);
    }

    #[test]
    fn the_dma_buf_renderer_and_gdk_gl_are_off_only_without_compositing() {
        assert!(process_environment(Compositing::Default).is_empty());
        assert_eq!(
            process_environment(Compositing::Off),
            [
                ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
                ("GDK_GL", "disable")
            ]
        );
    }

    #[test]
    fn web_processes_run_without_warming_tiers_unless_asked() {
        let tiers_off = |threads: &str| {
            WARMING_TIERS
                .iter()
                .map(|tier| (*tier, "0".to_owned()))
                .chain([("JSC_numberOfWasmCompilerThreads", threads.to_owned())])
                .collect::<Vec<_>>()
        };
        assert_eq!(engine_environment(None, 2), tiers_off("2"));
        assert_eq!(engine_environment(Some("bogus"), 1), tiers_off("1"));
        assert_eq!(engine_environment(None, 64), tiers_off("4"));
        assert_eq!(
            engine_environment(Some("off "), 2),
            [("JSC_useJIT", "0".to_owned())]
        );
        assert!(engine_environment(Some(" on"), 2).is_empty());
    }

    #[test]
    fn the_memory_pressure_monitor_is_off_unless_asked() {
        let off = [("WEBKIT_DISABLE_MEMORY_PRESSURE_MONITOR", "1")];
        assert_eq!(monitor_environment(None), off);
        assert_eq!(monitor_environment(Some("off")), off);
        assert!(monitor_environment(Some("on ")).is_empty());
    }
}
