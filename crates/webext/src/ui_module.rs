//! The UI's wasm module, handed to the page without a fetch.
//!
//! A page fetched the module (~2.9 MB) from the app's URI scheme, which
//! WebKit reads 8 KiB at a time, each piece a message to this process and
//! a turn of the page's thread; and it could only start compiling once
//! its last script ran. Instead, as WebKit makes a page, this process asks
//! the app for the module ([`UI_MODULE_MESSAGE`]); the app replies with a
//! sealed memory file holding it (`src-tauri/src/ui_assets.rs`), which the
//! page keeps, and when the page's document gets its window, the module is
//! read from the file into a `Uint8Array` at `window.pizzaUiBytes`,
//! which `ui/first_paint.js` compiles before anything is painted. A page
//! that finds none (the reply came late, an app without the answer)
//! fetches the module as before; a file no document took is closed once
//! the page's document has loaded.

use std::ffi::{CStr, c_char, c_void};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::fs::FileExt;

use glib_sys::{GError, GFALSE, gboolean, gpointer};
use gobject_sys::GObject;
use pizza_pages::UI_MODULE_MESSAGE;
use webkit2gtk_sys::WebKitUserMessage;

// The web process's half of WebKit's interface and the JavaScriptCore
// calls it needs, which no -sys crate of this workspace binds (its WebKit
// one is the app's half). Objects are passed as plain `GObject`s.
unsafe extern "C" {
    fn webkit_script_world_get_default() -> *mut GObject;
    fn webkit_frame_is_main_frame(frame: *mut GObject) -> gboolean;
    fn webkit_frame_get_uri(frame: *mut GObject) -> *const c_char;
    fn webkit_frame_get_js_context_for_script_world(
        frame: *mut GObject,
        world: *mut GObject,
    ) -> *mut GObject;
    fn webkit_web_page_send_message_to_view(
        page: *mut GObject,
        message: *mut WebKitUserMessage,
        cancellable: *mut c_void,
        callback: Option<unsafe extern "C" fn(*mut GObject, *mut c_void, gpointer)>,
        data: gpointer,
    );
    fn webkit_web_page_send_message_to_view_finish(
        page: *mut GObject,
        result: *mut c_void,
        error: *mut *mut GError,
    ) -> *mut WebKitUserMessage;
    fn jsc_value_new_typed_array(context: *mut GObject, kind: u32, length: usize) -> *mut GObject;
    fn jsc_value_typed_array_get_data(value: *mut GObject, length: *mut usize) -> gpointer;
    fn jsc_context_set_value(context: *mut GObject, name: *const c_char, value: *mut GObject);
    fn g_unix_fd_list_get_length(list: *mut c_void) -> i32;
    fn g_unix_fd_list_get(list: *mut c_void, index: i32, error: *mut *mut GError) -> i32;
}

/// `JSC_TYPED_ARRAY_UINT8`.
const UINT8: u32 = 5;
/// Where a page keeps the module's file until its document takes it.
const KEPT: &CStr = c"pizza-bot-ui-module";
/// The name the page finds the module under (`ui/first_paint.js`).
const GLOBAL: &CStr = c"pizzaUiBytes";

/// `window-object-cleared`'s handler: `(world, page, frame, data)`.
type WindowCleared = unsafe extern "C" fn(*mut GObject, *mut GObject, *mut GObject, gpointer);
/// `document-loaded`'s handler on a page: `(page, data)`.
type DocumentLoaded = unsafe extern "C" fn(*mut GObject, gpointer);

/// Hands each new document's window the module its page was given.
pub(crate) fn watch_windows() {
    let handler: WindowCleared = window_cleared;
    // SAFETY: the default world lives as long as the process; the handler
    // has the signal's signature.
    unsafe {
        crate::connect(
            webkit_script_world_get_default(),
            c"window-object-cleared",
            std::mem::transmute::<WindowCleared, unsafe extern "C" fn()>(handler),
        );
    }
}

/// Asks the app for the module for `page`, a page being made.
///
/// # Safety
///
/// `page` is a live `WebKitWebPage`.
pub(crate) unsafe fn ask_for(page: *mut GObject) {
    let dropped: DocumentLoaded = document_loaded;
    // SAFETY: `page` is live (the caller's promise); the name is a C
    // string of ours, copied by the message; sending takes the new
    // (floating) message, and the page is the reply's source object.
    unsafe {
        crate::connect(
            page,
            c"document-loaded",
            std::mem::transmute::<DocumentLoaded, unsafe extern "C" fn()>(dropped),
        );
        let name = std::ffi::CString::new(UI_MODULE_MESSAGE).unwrap_or_default();
        let message = webkit2gtk_sys::webkit_user_message_new(name.as_ptr(), std::ptr::null_mut());
        webkit_web_page_send_message_to_view(
            page,
            message,
            std::ptr::null_mut(),
            Some(replied),
            std::ptr::null_mut(),
        );
    }
}

/// The app's reply: the file it carries (the module) is kept on the page.
unsafe extern "C" fn replied(page: *mut GObject, result: *mut c_void, _data: gpointer) {
    // SAFETY: `page` and `result` are the ones WebKit passes the callback;
    // an error is not asked for (a page without the module fetches it).
    let reply =
        unsafe { webkit_web_page_send_message_to_view_finish(page, result, std::ptr::null_mut()) };
    if reply.is_null() {
        return;
    }
    // SAFETY: `reply` is ours (transfer full) and its list its own; the
    // list gives a duplicate of its first descriptor, ours to close. The
    // page owns the boxed file until a document takes it or loads.
    unsafe {
        let files = webkit2gtk_sys::webkit_user_message_get_fd_list(reply).cast::<c_void>();
        if !files.is_null() && g_unix_fd_list_get_length(files) > 0 {
            let fd = g_unix_fd_list_get(files, 0, std::ptr::null_mut());
            if fd >= 0 {
                let file = Box::new(OwnedFd::from_raw_fd(fd));
                gobject_sys::g_object_set_data_full(
                    page,
                    KEPT.as_ptr(),
                    Box::into_raw(file).cast(),
                    Some(close_file),
                );
            }
        }
        gobject_sys::g_object_unref(reply.cast());
    }
}

/// A document's new window: the page's module goes there, once, copied
/// into a `Uint8Array` of the page's own (JavaScriptCore keeps array
/// buffers in its own cage: a buffer over memory of ours would end the
/// process).
unsafe extern "C" fn window_cleared(
    world: *mut GObject,
    page: *mut GObject,
    frame: *mut GObject,
    _data: gpointer,
) {
    // SAFETY: the signal's live objects. The boxed file moves from the
    // page to this call, which closes it; the array's data is its `room`
    // bytes, nothing else refers to them while the file is read into
    // them; the context and the value are ours to drop once set.
    unsafe {
        if webkit_frame_is_main_frame(frame) == GFALSE || is_blank(frame) {
            return;
        }
        let file = gobject_sys::g_object_steal_data(page, KEPT.as_ptr()).cast::<OwnedFd>();
        if file.is_null() {
            return;
        }
        let file = std::fs::File::from(*Box::from_raw(file));
        let Some(len) = file
            .metadata()
            .ok()
            .and_then(|meta| usize::try_from(meta.len()).ok())
            .filter(|&len| len > 0)
        else {
            return;
        };
        let context = webkit_frame_get_js_context_for_script_world(frame, world);
        if context.is_null() {
            return;
        }
        let array = jsc_value_new_typed_array(context, UINT8, len);
        if !array.is_null() {
            let mut room = 0usize;
            let data = jsc_value_typed_array_get_data(array, &mut room);
            if !data.is_null() && room == len {
                let bytes = std::slice::from_raw_parts_mut(data.cast::<u8>(), room);
                if file.read_exact_at(bytes, 0).is_ok() {
                    jsc_context_set_value(context, GLOBAL.as_ptr(), array);
                }
            }
            gobject_sys::g_object_unref(array);
        }
        gobject_sys::g_object_unref(context);
    }
}

/// Whether `frame` shows the empty document a page starts with.
///
/// # Safety
///
/// `frame` is a live `WebKitFrame`.
unsafe fn is_blank(frame: *mut GObject) -> bool {
    // SAFETY: as the caller promises; the URI is the frame's.
    let uri = unsafe { webkit_frame_get_uri(frame) };
    uri.is_null()
        || unsafe { CStr::from_ptr(uri) }
            .to_bytes()
            .starts_with(b"about:")
}

/// The page's document loaded: a module no window took is closed.
unsafe extern "C" fn document_loaded(page: *mut GObject, _data: gpointer) {
    // SAFETY: `page` is the signal's; setting nothing drops what was kept.
    unsafe { gobject_sys::g_object_set_data(page, KEPT.as_ptr(), std::ptr::null_mut()) };
}

/// Closes a kept module's file.
unsafe extern "C" fn close_file(file: gpointer) {
    // SAFETY: `file` is the box `replied` gave the page, given back once.
    drop(unsafe { Box::from_raw(file.cast::<OwnedFd>()) });
}
