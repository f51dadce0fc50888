//! Pizza Bot's WebKit web process extension.
//!
//! WebKitGTK loads the shared objects of the web context's extensions
//! directory into each web process it starts (the app points its windows
//! at the folder holding this one: `src-tauri/src/web_extension.rs`) and
//! calls [`webkit_web_extension_initialize`]. The extension does two
//! things. It hands each page the UI's wasm module, which it asks the app
//! for as the page is made, so the page compiles it without fetching it
//! ([`ui_module`]). And it answers one message, [`HAND_BACK_MESSAGE`],
//! which the app sends a window's page once it has settled (after its
//! first paint, after the last run ends). The web process then hands back
//! the pages of code the page read (WebKit's, JavaScriptCore's, Mesa's
//! LLVM, which the EGL display loaded and never uses again without
//! compositing), and its C allocator's free memory (see `crates/pages`),
//! and replies with what it did: `(mappings, KiB, microseconds)`. That
//! work runs on a thread of its own; only the reply is sent from the
//! page's thread.

#![cfg(target_os = "linux")]
// WebKit's C interface for extensions, with the reasoning at each call.
#![allow(unsafe_code)]

use std::ffi::{CStr, c_void};
use std::time::Instant;

use glib_sys::{GFALSE, GTRUE, GVariant, gboolean, gpointer};
use gobject_sys::GObject;
use pizza_pages::{HAND_BACK_MESSAGE, Kept, hand_back, trim_allocator};
use webkit2gtk_sys::WebKitUserMessage;

mod ui_module;

/// `page-created`'s handler: `(extension, page, data)`.
type PageCreated = unsafe extern "C" fn(*mut GObject, *mut GObject, gpointer);

/// `user-message-received`'s handler on a page: `(page, message, data)`.
type MessageReceived =
    unsafe extern "C" fn(*mut GObject, *mut WebKitUserMessage, gpointer) -> gboolean;

/// Called by WebKit once, as it loads the extension into a new web
/// process: every page the process makes will be given the UI's module and
/// answer the app's message.
///
/// # Safety
///
/// `extension` is the process's `WebKitWebExtension`, as WebKit passes it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn webkit_web_extension_initialize(extension: *mut c_void) {
    // From here on, the process's arenas keep little free memory (see
    // crates/pages): its threads otherwise kept megabytes each after a
    // day of runs.
    pizza_pages::hold_allocator_thresholds();
    let handler: PageCreated = page_created;
    // SAFETY: `extension` is a live GObject for the process's life; the
    // handler has the signal's signature (GLib calls it through the
    // generic `GCallback` type, as C callers cast it).
    unsafe {
        connect(
            extension.cast(),
            c"page-created",
            std::mem::transmute::<PageCreated, unsafe extern "C" fn()>(handler),
        );
    }
    ui_module::watch_windows();
}

/// A new page: it asks the app for the UI's module, and answers the app's
/// messages.
unsafe extern "C" fn page_created(_extension: *mut GObject, page: *mut GObject, _data: gpointer) {
    let handler: MessageReceived = message_received;
    // SAFETY: `page` is the live `WebKitWebPage` the signal passes; the
    // connection goes with it. The handler has the signal's signature.
    unsafe {
        ui_module::ask_for(page);
        connect(
            page,
            c"user-message-received",
            std::mem::transmute::<MessageReceived, unsafe extern "C" fn()>(handler),
        );
    }
}

/// The page's message from the app: the hand-back, done on a thread of its
/// own (reading the process's mappings takes ~25 ms, which the page's
/// thread would otherwise not paint in) and answered from the page's
/// thread with what it did; any other message is left to other handlers.
unsafe extern "C" fn message_received(
    _page: *mut GObject,
    message: *mut WebKitUserMessage,
    _data: gpointer,
) -> gboolean {
    // SAFETY: `message` is the live message the signal passes; its name is
    // a C string it owns.
    let name = unsafe { webkit2gtk_sys::webkit_user_message_get_name(message) };
    if name.is_null() || unsafe { CStr::from_ptr(name) }.to_bytes() != HAND_BACK_MESSAGE.as_bytes()
    {
        return GFALSE;
    }
    // SAFETY: a reference of our own keeps the message until the reply
    // (`send_reply` drops it).
    let pending = Pending(unsafe { gobject_sys::g_object_ref(message.cast()) }.cast());
    let spawned = std::thread::Builder::new()
        .name("pizza-hand-back".into())
        .spawn(move || {
            let answer = Box::new(Answer {
                figures: hand_back_now(),
                message: pending,
            });
            // SAFETY: the default main context is the page's thread's; the
            // callback runs once there and takes the box back.
            unsafe {
                glib_sys::g_main_context_invoke(
                    std::ptr::null_mut(),
                    Some(send_reply),
                    Box::into_raw(answer).cast(),
                );
            }
        });
    if let Err(error) = spawned {
        // No thread to spare: done here, and the reference dropped as the
        // closure that held it went.
        eprintln!("pizza-webext: no thread for the hand-back ({error}): done on the page's");
        reply(message, hand_back_now());
    }
    GTRUE
}

/// A message waiting for its reply, with a reference of its own. Only
/// `send_reply`, on the page's thread, uses it.
struct Pending(*mut WebKitUserMessage);

// SAFETY: the thread only carries the pointer back to the page's thread;
// the message's reference count is atomic.
unsafe impl Send for Pending {}

impl Drop for Pending {
    fn drop(&mut self) {
        // SAFETY: the reference taken in `message_received`, dropped once.
        unsafe { gobject_sys::g_object_unref(self.0.cast()) };
    }
}

/// The hand-back's figures on their way to the page's thread.
struct Answer {
    figures: [u64; 3],
    message: Pending,
}

/// Hands back this process's pages of code and its allocator's free
/// memory: `[mappings, KiB, microseconds]`.
fn hand_back_now() -> [u64; 3] {
    let began = Instant::now();
    let handed = hand_back(&Kept::pinned());
    trim_allocator();
    [
        u64::try_from(handed.mappings).unwrap_or(u64::MAX),
        handed.kib,
        u64::try_from(began.elapsed().as_micros()).unwrap_or(u64::MAX),
    ]
}

/// The main context's callback: replies to the message, once.
unsafe extern "C" fn send_reply(data: gpointer) -> gboolean {
    // SAFETY: `data` is the box `message_received`'s thread gave up.
    let answer = unsafe { Box::from_raw(data.cast::<Answer>()) };
    reply(answer.message.0, answer.figures);
    // The reference goes with the answer.
    GFALSE
}

/// Replies to `message` with `figures`, on the page's thread.
fn reply(message: *mut WebKitUserMessage, figures: [u64; 3]) {
    // SAFETY: `message` is alive (the signal's, or ours until the answer
    // drops); the tuple takes the three new (floating) values, the reply
    // takes the tuple, and sending the reply takes the reply.
    unsafe {
        let name = webkit2gtk_sys::webkit_user_message_get_name(message);
        let children: [*mut GVariant; 3] =
            figures.map(|figure| glib_sys::g_variant_new_uint64(figure));
        let figures = glib_sys::g_variant_new_tuple(children.as_ptr(), children.len());
        let reply = webkit2gtk_sys::webkit_user_message_new(name, figures);
        webkit2gtk_sys::webkit_user_message_send_reply(message, reply);
    }
}

/// Connects `handler` to `signal` on `instance`.
///
/// # Safety
///
/// `instance` is a live GObject with that signal, and `handler` is a
/// function of the signal's signature cast to `GCallback`.
unsafe fn connect(instance: *mut GObject, signal: &CStr, handler: unsafe extern "C" fn()) {
    // SAFETY: as the caller promises; no data, so nothing to free.
    unsafe {
        gobject_sys::g_signal_connect_data(
            instance,
            signal.as_ptr(),
            Some(handler),
            std::ptr::null_mut(),
            None,
            0,
        );
    }
}
