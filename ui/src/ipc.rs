//! Typed calls into the host.

use pizza_protocol::{ApiError, Command};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    // Tauri's internal IPC entry point; present in every Tauri webview even
    // with the global `window.__TAURI__` API turned off.
    #[wasm_bindgen(catch, js_namespace = ["window", "__TAURI_INTERNALS__"], js_name = invoke)]
    async fn tauri_invoke(cmd: &str, args: JsValue) -> Result<JsValue, JsValue>;
}

/// Calls command `C` and decodes its answer; every failure is an [`ApiError`].
pub(crate) async fn invoke<C: Command>(params: &C::Params) -> Result<C::Response, ApiError> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let args = params
        .serialize(&serializer)
        .map_err(|e| ApiError::invalid_input(format!("Could not encode {}: {e}", C::NAME)))?;
    match tauri_invoke(C::NAME, args).await {
        Ok(value) => serde_wasm_bindgen::from_value(value).map_err(|e| {
            ApiError::general(format!("The answer to {} was not understood.", C::NAME))
                .with_details(e.to_string())
        }),
        Err(error) => Err(serde_wasm_bindgen::from_value::<ApiError>(error.clone())
            .unwrap_or_else(|_| {
                let text = error
                    .as_string()
                    .or_else(|| {
                        js_sys::JSON::stringify(&error)
                            .ok()
                            .and_then(|s| s.as_string())
                    })
                    .unwrap_or_default();
                ApiError::general("Pizza Bot's core did not answer.").with_details(text)
            })),
    }
}

/// Calls a Tauri command that is not in the protocol table (plugin commands).
pub(crate) async fn invoke_plugin(
    cmd: &str,
    args: &serde_json::Value,
) -> Result<JsValue, ApiError> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let args = args
        .serialize(&serializer)
        .map_err(|e| ApiError::invalid_input(format!("Could not encode {cmd}: {e}")))?;
    tauri_invoke(cmd, args).await.map_err(|error| {
        let text = error
            .as_string()
            .or_else(|| {
                js_sys::JSON::stringify(&error)
                    .ok()
                    .and_then(|s| s.as_string())
            })
            .unwrap_or_default();
        ApiError::general(format!("{cmd} failed.")).with_details(text)
    })
}
