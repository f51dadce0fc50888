//! When the app hands back the pages of code its processes read (the how
//! and the why are `crates/pages`).
//!
//! Each time the app settles — a few seconds after a page loaded, after
//! the last window went, after a start at login, after the last live run
//! ended — its process hands back the pages of code and read-only data
//! that its program and the libraries it was linked with had mapped, and
//! returns its allocator's free memory (`malloc_trim`), once the store's
//! idle connections gave back their prepared statements and page caches.
//! With windows open and no run going on, it also asks each page's web
//! process, through the app's WebKit extension, to do as much
//! (`web_extension.rs`): an idle window then holds what it uses, not all
//! that showing it once read.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use pizza_host::Host;
use pizza_pages::{Kept, hand_back, trim_allocator};
use tauri::{AppHandle, Manager, Runtime};
use tokio::sync::broadcast::error::RecvError;

/// What the process's maps said when `main` began.
static AT_START: OnceLock<Kept> = OnceLock::new();

/// The latest request to hand back once the app settled: an earlier one
/// still waiting leaves it to this one.
static SETTLING: AtomicU64 = AtomicU64::new(0);

/// Notes the program's and its libraries' mappings; first thing in `main`,
/// before anything can be loaded at run time.
pub(crate) fn note_start() {
    let _ = AT_START.set(Kept::at_start());
}

/// Hands back this process's pages of code and its allocator's free
/// memory, on a blocking thread, and logs how much, saying `when`.
fn hand_back_own(when: &'static str) {
    tauri::async_runtime::spawn_blocking(move || {
        let handed = AT_START.get().map(hand_back).unwrap_or_default();
        let trimmed = trim_allocator();
        if handed.mappings > 0 {
            tracing::info!(
                mappings = handed.mappings,
                mib = handed.kib / 1024,
                trimmed,
                "{when}: pages of code handed back to the page cache"
            );
        } else {
            tracing::debug!(trimmed, "{when}: no pages of code to hand back");
        }
    });
}

/// Once the app has settled (after [`settle_time`] with no newer request):
/// with no window open, this process's pages of code and its allocator's
/// free memory; with windows open and no live run, those and each page's
/// web process's pages of code. Called as a page loads, as the last
/// window goes (after WebKit's teardown, which runs code of its own), ~3 s
/// after a start at login and each time the last live run ends.
pub(crate) fn after_settling<R: Runtime>(app: &AppHandle<R>) {
    let ticket = SETTLING.fetch_add(1, Ordering::SeqCst) + 1;
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(settle_time()).await;
        if SETTLING.load(Ordering::SeqCst) != ticket {
            return;
        }
        crate::ui_assets::discard(&app);
        let host = app.try_state::<Host>().map(|host| host.inner().clone());
        if app.webview_windows().is_empty() {
            release_store_memory(host.as_ref()).await;
            hand_back_own("no window open");
            return;
        }
        // A live run brings another request as it ends.
        if host.as_ref().is_some_and(|host| host.live_run_count() > 0) {
            return;
        }
        release_store_memory(host.as_ref()).await;
        hand_back_own("windows settled");
        crate::web_extension::ask_pages_to_hand_back(&app);
    });
}

/// The store's idle connections give back their statements and page
/// caches, so that the allocator's trim that follows returns them.
async fn release_store_memory(host: Option<&Host>) {
    if let Some(host) = host {
        host.release_idle_memory().await;
    }
}

/// How long a window's page is left to settle first: the grace a window
/// closed to the tray gets (`PIZZA_WINDOW_RELEASE_MS`, 3 s by default).
fn settle_time() -> std::time::Duration {
    crate::main_window::release_after()
}

/// Each time the last live run ends, once the app settled: the pages of
/// code the run read and the allocator's free memory go back. A run's
/// streaming, tool calls and store writes leave freed memory in the
/// allocator, which it keeps otherwise: measured over 200 runs with the
/// window shown, the app's process grew 9 MiB without this and 5 with it
/// (its heap ended at 6.9 MiB, and 3.9).
pub(crate) fn after_runs<R: Runtime>(app: &AppHandle<R>, host: &Host) {
    let mut events = host.subscribe();
    let host = host.clone();
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let mut live = host.live_run_count();
        loop {
            match events.recv().await {
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => break,
            }
            let now = host.live_run_count();
            if live > 0 && now == 0 {
                after_settling(&app);
            }
            live = now;
        }
    });
}
