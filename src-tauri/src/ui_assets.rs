//! The pages' files, served from the binary, with the UI's wasm module
//! decompressed ahead of its page.
//!
//! Tauri keeps the pages' files brotli-compressed in the binary and
//! decompresses each one on the main thread as a page asks for it. The
//! UI's module is ~2.9 MB: ~18 ms of every start and reopen went to
//! decompressing it after the page had asked, with the page waiting and
//! the main thread busy. A window being made starts it on a thread of its
//! own instead, while WebKit starts the window's web process (~150 ms):
//! the page gets the module as soon as it asks. Usually the page does not
//! ask: its web process asks for the module as WebKit makes the page, and
//! gets it in a memory file ([`hand_module_to`], `crates/webext`), before
//! any of the page's scripts run. What no page took is dropped once the
//! app settles (`mapped_pages.rs`), so nothing is held in the tray.
//!
//! The module is not among Tauri's files: `cargo xtask ui` packs it at
//! brotli's highest quality (Tauri packs at 9), and it is embedded and
//! unpacked here. The binary is ~100 KB smaller for it; unpacking takes
//! as long.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;
use tauri::utils::assets::{AssetKey, AssetsIter, CspHash};
use tauri::{AppHandle, Assets, Context, Manager, Runtime};

/// The UI's wasm module, as its pages ask for it (`ui/boot.js`).
const MODULE: &str = "/pizza_ui_bg.wasm";

/// The module as `cargo xtask ui` packed it (the build script finds it).
static PACKED_MODULE: &[u8] = include_bytes!(env!("PIZZA_UI_MODULE"));

/// Tauri's own files.
type Source<R> = Arc<OnceLock<Box<dyn Assets<R>>>>;

/// The module, unpacked.
fn unpack_module() -> Option<Vec<u8>> {
    let mut module = Vec::with_capacity(PACKED_MODULE.len() * 5);
    match brotli::BrotliDecompress(&mut &PACKED_MODULE[..], &mut module) {
        Ok(()) => Some(module),
        Err(error) => {
            tracing::error!(%error, "the UI's module could not be unpacked");
            None
        }
    }
}

/// The module read ahead for the next page that asks: the thread reading
/// it, or nothing.
pub(crate) struct ReadAhead {
    read: Box<dyn Fn() -> Option<Vec<u8>> + Send + Sync>,
    pending: Mutex<Option<JoinHandle<Option<Vec<u8>>>>>,
}

impl ReadAhead {
    /// Starts reading the module on a thread, unless a read is pending.
    fn start(self: &Arc<Self>) {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        if pending.is_some() {
            return;
        }
        let this = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("ui-read-ahead".into())
            .spawn(move || (this.read)());
        match spawned {
            Ok(handle) => *pending = Some(handle),
            Err(error) => tracing::debug!(%error, "could not read the UI's module ahead"),
        }
    }

    /// The module read ahead, once its thread is done; `None` when nothing
    /// was read ahead (the caller reads it itself).
    fn take(&self) -> Option<Vec<u8>> {
        let handle = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()?;
        handle.join().ok().flatten()
    }

    /// Drops what no page took (a read still going on drops it as it ends).
    fn discard(&self) {
        drop(
            self.pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
    }
}

/// Tauri's files, with the module taken from the read ahead when there is
/// one.
struct UiAssets<R: Runtime> {
    source: Source<R>,
    ahead: Arc<ReadAhead>,
}

impl<R: Runtime> Assets<R> for UiAssets<R> {
    fn setup(&self, app: &tauri::App<R>) {
        if let Some(source) = self.source.get() {
            source.setup(app);
        }
    }

    fn get(&self, key: &AssetKey) -> Option<Cow<'_, [u8]>> {
        if key.as_ref() == MODULE {
            return self.ahead.take().or_else(unpack_module).map(Cow::Owned);
        }
        self.source.get()?.get(key)
    }

    fn iter(&self) -> Box<AssetsIter<'_>> {
        match self.source.get() {
            Some(source) => source.iter(),
            None => Box::new(std::iter::empty()),
        }
    }

    fn csp_hashes(&self, html_path: &AssetKey) -> Box<dyn Iterator<Item = CspHash<'_>> + '_> {
        match self.source.get() {
            Some(source) => source.csp_hashes(html_path),
            None => Box::new(std::iter::empty()),
        }
    }
}

/// Serves `context`'s files through the read ahead; the app manages the
/// returned handle ([`prepare`] and [`discard`] find it there).
pub(crate) fn install<R: Runtime>(context: &mut Context<R>) -> Arc<ReadAhead> {
    let source: Source<R> = Arc::new(OnceLock::new());
    let ahead = Arc::new(ReadAhead {
        read: Box::new(unpack_module),
        pending: Mutex::new(None),
    });
    let previous = context.set_assets(Box::new(UiAssets {
        source: Arc::clone(&source),
        ahead: Arc::clone(&ahead),
    }));
    let _ = source.set(previous);
    ahead
}

/// A window is being made: its page will ask for the module.
pub(crate) fn prepare<R: Runtime>(app: &AppHandle<R>) {
    if let Some(ahead) = app.try_state::<Arc<ReadAhead>>() {
        ahead.start();
    }
}

/// Answers `window`'s web process when it asks for the UI's module
/// ([`pizza_pages::UI_MODULE_MESSAGE`], `crates/webext`) with a sealed
/// memory file holding it, read ahead or unpacked and written off the main
/// thread: the page compiles it at once instead of fetching it 8 KiB at a
/// time once its last script runs, and the module crosses to the web
/// process without being copied through WebKit's messages. Measured on the
/// release app: see the README.
#[cfg(target_os = "linux")]
pub(crate) fn hand_module_to<R: Runtime>(app: &AppHandle<R>, window: &tauri::WebviewWindow<R>) {
    use webkit2gtk::{UserMessage, UserMessageExt, WebViewExt, gio, glib};

    let Some(ahead) = app
        .try_state::<Arc<ReadAhead>>()
        .map(|ahead| Arc::clone(&ahead))
    else {
        return;
    };
    let connected = window.with_webview(move |platform| {
        platform
            .inner()
            .connect_user_message_received(move |_view, message| {
                if message.name().as_deref() != Some(pizza_pages::UI_MODULE_MESSAGE) {
                    return false;
                }
                let message = message.clone();
                let ahead = Arc::clone(&ahead);
                glib::MainContext::default().spawn_local(async move {
                    let file = gio::spawn_blocking(move || {
                        ahead
                            .take()
                            .or_else(unpack_module)
                            .and_then(|module| module_file(&module))
                    })
                    .await
                    .ok()
                    .flatten();
                    // Without a file the page fetches the module.
                    let files = file.map(|file| gio::UnixFDList::from_array([file]));
                    let reply = UserMessage::with_fd_list(
                        pizza_pages::UI_MODULE_MESSAGE,
                        None,
                        files.as_ref(),
                    );
                    message.send_reply(&reply);
                });
                true
            });
    });
    if let Err(error) = connected {
        tracing::debug!(%error, "the page will fetch the UI's module");
    }
}

/// `module` in a memory file of its own, sealed so it cannot change while
/// the web process reads it into the page.
#[cfg(target_os = "linux")]
fn module_file(module: &[u8]) -> Option<std::os::fd::OwnedFd> {
    use rustix::fs::{MemfdFlags, SealFlags};
    use std::io::Write;

    let written = rustix::fs::memfd_create(
        "pizza-ui-module",
        MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
    )
    .map_err(std::io::Error::from)
    .and_then(|fd| {
        let mut file = std::fs::File::from(fd);
        file.write_all(module)?;
        let seals = SealFlags::SEAL | SealFlags::SHRINK | SealFlags::GROW | SealFlags::WRITE;
        rustix::fs::fcntl_add_seals(&file, seals)?;
        Ok(std::os::fd::OwnedFd::from(file))
    });
    match written {
        Ok(fd) => Some(fd),
        Err(error) => {
            tracing::debug!(%error, "no memory file for the UI's module: the page fetches it");
            None
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn hand_module_to<R: Runtime>(_app: &AppHandle<R>, _window: &tauri::WebviewWindow<R>) {}

/// The app settled: what no page took is not kept.
pub(crate) fn discard<R: Runtime>(app: &AppHandle<R>) {
    if let Some(ahead) = app.try_state::<Arc<ReadAhead>>() {
        ahead.discard();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{Receiver, channel};
    use std::time::Duration;

    /// A read ahead that tells `reads` of each read.
    fn counting_ahead() -> (Arc<ReadAhead>, Receiver<()>) {
        let (read, reads) = channel();
        let ahead = Arc::new(ReadAhead {
            read: Box::new(move || {
                let _ = read.send(());
                Some(b"\0asm".to_vec())
            }),
            pending: Mutex::new(None),
        });
        (ahead, reads)
    }

    #[test]
    fn a_read_ahead_is_taken_once_then_the_caller_reads_itself() {
        let (ahead, reads) = counting_ahead();
        assert_eq!(ahead.take(), None, "nothing was read ahead yet");
        ahead.start();
        // A second window made meanwhile shares the pending read.
        ahead.start();
        assert_eq!(ahead.take().as_deref(), Some(&b"\0asm"[..]));
        assert_eq!(ahead.take(), None, "the next page reads it itself");
        // The one read was joined by the take.
        assert_eq!(reads.try_iter().count(), 1);
    }

    #[test]
    fn the_packed_module_unpacks_to_wasm() {
        let module = unpack_module().unwrap();
        assert_eq!(&module[..4], b"\0asm");
        assert!(module.len() > PACKED_MODULE.len());
    }

    #[test]
    fn what_no_page_took_is_dropped() {
        let (ahead, reads) = counting_ahead();
        ahead.start();
        ahead.discard();
        assert_eq!(ahead.take(), None);
        ahead.start();
        assert_eq!(ahead.take().as_deref(), Some(&b"\0asm"[..]));
        // The discarded read's thread is not joined: it may end later.
        for _ in 0..2 {
            reads.recv_timeout(Duration::from_secs(10)).unwrap();
        }
        assert!(reads.try_recv().is_err());
    }
}
