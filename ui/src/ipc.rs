//! Typed calls into the host: [`invoke`] for a command, [`subscribe`] for a
//! command that also streams events.

mod channel_order;

use channel_order::{ChannelOrder, Incoming};
use pizza_protocol::{ApiError, Command, STREAM_CHANNEL_ARG, StreamingCommand};
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    // Tauri's internal IPC entry point; present in every Tauri webview even
    // with the global `window.__TAURI__` API turned off.
    #[wasm_bindgen(catch, js_namespace = ["window", "__TAURI_INTERNALS__"], js_name = invoke)]
    async fn tauri_invoke(cmd: &str, args: JsValue) -> Result<JsValue, JsValue>;
    /// Registers a function the host can call by id (events, channels).
    #[wasm_bindgen(js_namespace = ["window", "__TAURI_INTERNALS__"], js_name = transformCallback)]
    pub(crate) fn transform_callback(callback: &js_sys::Function, once: bool) -> f64;
    #[wasm_bindgen(catch, js_namespace = ["window", "__TAURI_INTERNALS__"], js_name = unregisterCallback)]
    fn unregister_callback(id: f64) -> Result<(), JsValue>;
}

/// How Tauri names a channel in an invoke's arguments: this prefix and the
/// id of the callback its messages go to.
const CHANNEL_PREFIX: &str = "__CHANNEL__:";

/// Calls command `C` and decodes its answer; every failure is an [`ApiError`].
pub(crate) async fn invoke<C: Command>(params: &C::Params) -> Result<C::Response, ApiError> {
    let args = encode::<C>(params)?;
    decode::<C>(tauri_invoke(C::NAME, args).await)
}

/// Calls streaming command `C`: `on_event` gets its events in the order the
/// host sent them (including those sent before the answer) until the host
/// ends the stream or the returned [`EventStream`] is dropped. A failed call
/// delivers nothing more.
pub(crate) async fn subscribe<C: StreamingCommand>(
    params: &C::Params,
    on_event: impl Fn(C::Event) + 'static,
) -> Result<(C::Response, EventStream), ApiError> {
    let args = encode::<C>(params)?;
    let stream = EventStream::open(on_event);
    let channel = format!("{CHANNEL_PREFIX}{}", stream.callback_id());
    js_sys::Reflect::set(&args, &STREAM_CHANNEL_ARG.into(), &channel.into())
        .map_err(|_| ApiError::invalid_input(format!("Could not encode {}.", C::NAME)))?;
    // On failure `stream` drops here, releasing the callback.
    let response = decode::<C>(tauri_invoke(C::NAME, args).await)?;
    Ok((response, stream))
}

fn encode<C: Command>(params: &C::Params) -> Result<JsValue, ApiError> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    params
        .serialize(&serializer)
        .map_err(|e| ApiError::invalid_input(format!("Could not encode {}: {e}", C::NAME)))
}

fn decode<C: Command>(answer: Result<JsValue, JsValue>) -> Result<C::Response, ApiError> {
    match answer {
        Ok(value) => serde_wasm_bindgen::from_value(value).map_err(|e| {
            ApiError::general(format!("The answer to {} was not understood.", C::NAME))
                .with_details(e.to_string())
        }),
        Err(error) => Err(serde_wasm_bindgen::from_value::<ApiError>(error.clone())
            .unwrap_or_else(|_| {
                ApiError::general("Pizza Bot's core did not answer.").with_details(js_text(&error))
            })),
    }
}

fn js_text(value: &JsValue) -> String {
    value
        .as_string()
        .or_else(|| {
            js_sys::JSON::stringify(value)
                .ok()
                .and_then(|s| s.as_string())
        })
        .unwrap_or_default()
}

/// The receiving end of a streaming command's channel. Dropping it stops
/// delivery at once and releases the webview callback; telling the host to
/// stop sending is the command's own business (`thread_unsubscribe`).
#[derive(Debug)]
pub(crate) struct EventStream {
    inner: Rc<StreamInner>,
}

/// What the webview calls with each raw channel message.
type StreamCallback = Closure<dyn Fn(JsValue)>;

#[derive(Debug)]
struct StreamInner {
    /// `None` once closed.
    callback_id: Cell<Option<f64>>,
    closure: RefCell<Option<StreamCallback>>,
}

impl StreamInner {
    fn is_open(&self) -> bool {
        self.callback_id.get().is_some()
    }

    fn close(&self) {
        if let Some(id) = self.callback_id.take() {
            let _ = unregister_callback(id);
        }
        // The closure may be the one running now (an event that ends or
        // reopens its stream): free it once this turn is over.
        if let Some(closure) = self.closure.borrow_mut().take() {
            wasm_bindgen_futures::spawn_local(async move { drop(closure) });
        }
    }
}

impl EventStream {
    fn open<E: serde::de::DeserializeOwned + 'static>(on_event: impl Fn(E) + 'static) -> Self {
        let inner = Rc::new(StreamInner {
            callback_id: Cell::new(None),
            closure: RefCell::new(None),
        });
        let weak: Weak<StreamInner> = Rc::downgrade(&inner);
        let order = RefCell::new(ChannelOrder::<JsValue>::default());
        let closure = StreamCallback::new(move |raw: JsValue| {
            let Some(inner) = weak.upgrade() else { return };
            if !inner.is_open() {
                return;
            }
            let Some(incoming) = incoming(raw) else {
                return;
            };
            let (due, over) = {
                let mut order = order.borrow_mut();
                let due = order.take(incoming);
                (due, order.is_over())
            };
            for message in due {
                // `on_event` may have dropped the stream.
                if !inner.is_open() {
                    return;
                }
                match serde_wasm_bindgen::from_value::<E>(message) {
                    Ok(event) => on_event(event),
                    Err(error) => {
                        web_sys::console::warn_1(&format!("stream event: {error}").into());
                    }
                }
            }
            if over {
                inner.close();
            }
        });
        let id = transform_callback(closure.as_ref().unchecked_ref(), false);
        inner.callback_id.set(Some(id));
        *inner.closure.borrow_mut() = Some(closure);
        Self { inner }
    }

    fn callback_id(&self) -> f64 {
        self.inner.callback_id.get().unwrap_or_default()
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.inner.close();
    }
}

/// Reads one raw channel message: `{message, index}` or `{end: true, index}`.
fn incoming(raw: JsValue) -> Option<Incoming<JsValue>> {
    let index = js_sys::Reflect::get(&raw, &"index".into())
        .ok()
        .and_then(|i| i.as_f64())?;
    // Indexes count messages from 0; anything else is not Tauri's framing.
    if !(index >= 0.0 && index.fract() == 0.0) {
        return None;
    }
    let index = index as u64;
    if js_sys::Reflect::has(&raw, &"end".into()).unwrap_or(false) {
        return Some(Incoming::End { index });
    }
    let message = js_sys::Reflect::get(&raw, &"message".into()).ok()?;
    Some(Incoming::Message { index, message })
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
    tauri_invoke(cmd, args)
        .await
        .map_err(|error| ApiError::general(format!("{cmd} failed.")).with_details(js_text(&error)))
}
