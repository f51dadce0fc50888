//! The UI's wasm module, handed to the page without a fetch.
//!
//! A page fetched the module (~2.9 MB) from the app's URI scheme, which
//! WebKit reads 8 KiB at a time, each piece a message to this process and
//! a turn of the page's thread; and it could only start compiling once
//! its last script ran. Instead, as WebKit makes a page, this process asks
//! the app for the module ([`UI_MODULE_MESSAGE`]; the app replies with it
//! in one message, `src-tauri/src/ui_assets.rs`), keeps the reply on the
//! page, and when the page's document gets its window, puts a copy there,
//! a `Uint8Array` at `window.pizzaUiBytes`, which `ui/first_paint.js`
//! compiles before anything is painted. A page that
//! finds none (the reply came late, an app without the answer) fetches the
//! module as before; a reply no document took is dropped once the page's
//! document has loaded.

use std::ffi::{CStr, c_char, c_void};

use glib_sys::{GError, GFALSE, GVariant, gboolean, gpointer};
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
}

/// `JSC_TYPED_ARRAY_UINT8`.
const UINT8: u32 = 5;
/// Where a page keeps the module until its document takes it.
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

/// The app's reply: its parameters (the module) are kept on the page.
unsafe extern "C" fn replied(page: *mut GObject, result: *mut c_void, _data: gpointer) {
    // SAFETY: `page` and `result` are the ones WebKit passes the callback;
    // an error is not asked for (a page without the module fetches it).
    let reply =
        unsafe { webkit_web_page_send_message_to_view_finish(page, result, std::ptr::null_mut()) };
    if reply.is_null() {
        return;
    }
    // SAFETY: `reply` is ours (transfer full); its parameters are its own,
    // so the module gets a reference of its own before the reply goes. The
    // page keeps that reference until a document takes it or loads.
    unsafe {
        let module = webkit2gtk_sys::webkit_user_message_get_parameters(reply);
        if !module.is_null() && is_bytes(module) {
            gobject_sys::g_object_set_data_full(
                page,
                KEPT.as_ptr(),
                glib_sys::g_variant_ref(module).cast(),
                Some(unref_variant),
            );
        }
        gobject_sys::g_object_unref(reply.cast());
    }
}

/// Whether `value` is a byte string (`ay`).
///
/// # Safety
///
/// `value` is a live `GVariant`.
unsafe fn is_bytes(value: *mut GVariant) -> bool {
    // SAFETY: as the caller promises; the type string is the variant's.
    let kind = unsafe { CStr::from_ptr(glib_sys::g_variant_get_type_string(value)) };
    kind.to_bytes() == b"ay"
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
    // SAFETY: the signal's live objects. The module's reference moves from
    // the page to this call, which drops it once copied; the array's data
    // is its `length` bytes, written before anything else runs; the
    // context and the value are ours to drop once set.
    unsafe {
        if webkit_frame_is_main_frame(frame) == GFALSE || is_blank(frame) {
            return;
        }
        let module = gobject_sys::g_object_steal_data(page, KEPT.as_ptr()).cast::<GVariant>();
        if module.is_null() {
            return;
        }
        let context = webkit_frame_get_js_context_for_script_world(frame, world);
        if !context.is_null() {
            let mut length = 0usize;
            let bytes = glib_sys::g_variant_get_fixed_array(module, &mut length, 1);
            let array = jsc_value_new_typed_array(context, UINT8, length);
            if !array.is_null() {
                let mut room = 0usize;
                let data = jsc_value_typed_array_get_data(array, &mut room);
                if !data.is_null() && room == length && !bytes.is_null() {
                    std::ptr::copy_nonoverlapping(bytes.cast::<u8>(), data.cast::<u8>(), length);
                    jsc_context_set_value(context, GLOBAL.as_ptr(), array);
                }
                gobject_sys::g_object_unref(array);
            }
            gobject_sys::g_object_unref(context);
        }
        glib_sys::g_variant_unref(module);
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

/// The page's document loaded: a module no window took is dropped.
unsafe extern "C" fn document_loaded(page: *mut GObject, _data: gpointer) {
    // SAFETY: `page` is the signal's; setting nothing drops what was kept.
    unsafe { gobject_sys::g_object_set_data(page, KEPT.as_ptr(), std::ptr::null_mut()) };
}

/// Drops a reference to a kept module.
unsafe extern "C" fn unref_variant(module: gpointer) {
    // SAFETY: `module` is a `GVariant` whose reference the page's data
    // held, dropped once.
    unsafe { glib_sys::g_variant_unref(module.cast()) };
}
