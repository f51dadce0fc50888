//! App events from the host (`threads_changed`, …), received through Tauri's
//! event plugin without the global JS API.

use crate::ipc::invoke_plugin;
use pizza_protocol::AppEvent;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["window", "__TAURI_INTERNALS__"], js_name = transformCallback)]
    fn transform_callback(callback: &js_sys::Function, once: bool) -> f64;
}

/// Calls `on_event` for every app event named `name`, for the app's lifetime.
pub(crate) fn listen(name: &'static str, on_event: impl Fn(AppEvent) + 'static) {
    let callback = Closure::<dyn Fn(JsValue)>::new(move |message: JsValue| {
        let payload =
            js_sys::Reflect::get(&message, &JsValue::from_str("payload")).unwrap_or(JsValue::NULL);
        if let Ok(event) = serde_wasm_bindgen::from_value::<AppEvent>(payload) {
            on_event(event);
        }
    });
    let handler = transform_callback(callback.as_ref().unchecked_ref(), false);
    // Listeners live as long as the window.
    callback.forget();
    leptos::task::spawn_local(async move {
        let args =
            serde_json::json!({ "event": name, "target": { "kind": "Any" }, "handler": handler });
        if let Err(error) = invoke_plugin("plugin:event|listen", &args).await {
            web_sys::console::warn_1(&JsValue::from_str(&format!("listening to {name}: {error}")));
        }
    });
}
