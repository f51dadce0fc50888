//! Tauri events from the host (`threads_changed`, `quick_ask_shown`, …),
//! received through Tauri's event plugin without the global JS API. The
//! names come from `pizza-protocol` only.

use crate::ipc::{invoke_plugin, transform_callback};
use pizza_protocol::{AppEvent, WindowEvent};
use wasm_bindgen::prelude::*;

/// Calls `on_event` for every app event named `name` (one of
/// `AppEvent::NAMES`), for the app's lifetime.
pub(crate) fn listen(name: &'static str, on_event: impl Fn(AppEvent) + 'static) {
    listen_raw(name, move |message| {
        let payload =
            js_sys::Reflect::get(&message, &JsValue::from_str("payload")).unwrap_or(JsValue::NULL);
        if let Ok(event) = serde_wasm_bindgen::from_value::<AppEvent>(payload) {
            on_event(event);
        }
    });
}

/// Calls `on_event` each time this window is sent `event`, for its lifetime.
pub(crate) fn on_window_event(event: WindowEvent, on_event: impl Fn() + 'static) {
    listen_raw(event.name(), move |_message| on_event());
}

/// Calls `on_payload` with the raw payload of each event `name` sent to
/// this window, for its lifetime: Tauri's own window events
/// (`tauri://drag-drop`, …), which are no [`AppEvent`]. Listening for this
/// window only, a drop on another window is not taken for one here.
pub(crate) fn listen_here(name: &'static str, on_payload: impl Fn(JsValue) + 'static) {
    let target = current_label().map_or_else(
        || serde_json::json!({ "kind": "Any" }),
        |label| serde_json::json!({ "kind": "WebviewWindow", "label": label }),
    );
    listen_to(name, target, move |message| {
        on_payload(
            js_sys::Reflect::get(&message, &JsValue::from_str("payload")).unwrap_or(JsValue::NULL),
        );
    });
}

/// This webview's label, as Tauri tells each page in its internals.
fn current_label() -> Option<String> {
    ["__TAURI_INTERNALS__", "metadata", "currentWebview", "label"]
        .into_iter()
        .try_fold(js_sys::global().into(), |value: JsValue, key| {
            js_sys::Reflect::get(&value, &JsValue::from_str(key))
                .ok()
                .filter(|v| !v.is_undefined() && !v.is_null())
        })
        .and_then(|label| label.as_string())
}

fn listen_raw(name: &'static str, on_message: impl Fn(JsValue) + 'static) {
    listen_to(name, serde_json::json!({ "kind": "Any" }), on_message);
}

fn listen_to(
    name: &'static str,
    target: serde_json::Value,
    on_message: impl Fn(JsValue) + 'static,
) {
    let callback = Closure::<dyn Fn(JsValue)>::new(on_message);
    let handler = transform_callback(callback.as_ref().unchecked_ref(), false);
    // Listeners live as long as the window.
    callback.forget();
    leptos::task::spawn_local(async move {
        let args = serde_json::json!({ "event": name, "target": target, "handler": handler });
        if let Err(error) = invoke_plugin("plugin:event|listen", &args).await {
            web_sys::console::warn_1(&JsValue::from_str(&format!("listening to {name}: {error}")));
        }
    });
}
