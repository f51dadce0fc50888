//! Typed calls into the host: [`invoke`] for a command, [`subscribe`] for a
//! command that also streams events.

mod ahead;
mod channel_order;

use channel_order::{ChannelOrder, Incoming};
use pizza_protocol::{
    ApiError, Command, STREAM_CHANNEL_ARG, STREAM_CHANNEL_PREFIX, StreamingCommand,
};
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
    // The same entry point, its answer left as the promise it returns.
    #[wasm_bindgen(catch, js_namespace = ["window", "__TAURI_INTERNALS__"], js_name = invoke)]
    fn tauri_send(cmd: &str, args: JsValue) -> Result<js_sys::Promise, JsValue>;
}

/// Calls command `C` and decodes its answer; every failure is an [`ApiError`].
/// The first call matching one sent by [`send_ahead`] takes its answer.
pub(crate) async fn invoke<C: Command>(params: &C::Params) -> Result<C::Response, ApiError> {
    let args = encode::<C>(params)?;
    if let Some(answer) = ahead::take(C::NAME, &args) {
        return decode::<C>(wasm_bindgen_futures::JsFuture::from(answer).await);
    }
    decode::<C>(tauri_invoke(C::NAME, args).await)
}

/// Sends command `C` now, for the page's first [`invoke`] of it with the
/// same `params` to take the answer (see ipc/ahead.rs). Sent nowhere if
/// the parameters cannot be encoded: the later call says why.
pub(crate) fn send_ahead<C: Command>(params: &C::Params) {
    let Ok(args) = encode::<C>(params) else {
        return;
    };
    if let Ok(answer) = tauri_send(C::NAME, args.clone()) {
        ahead::keep(C::NAME, &args, answer);
    }
}

/// Calls command `C` and hands its answer back undecoded, for a caller that
/// decodes it piece by piece; a refusal is an [`ApiError`] as for
/// [`invoke`].
pub(crate) async fn invoke_raw<C: Command>(params: &C::Params) -> Result<JsValue, ApiError> {
    let args = encode::<C>(params)?;
    tauri_invoke(C::NAME, args).await.map_err(refusal)
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
    let channel = format!("{STREAM_CHANNEL_PREFIX}{}", stream.id());
    js_sys::Reflect::set(&args, &STREAM_CHANNEL_ARG.into(), &channel.into())
        .map_err(|_| ApiError::invalid_input(format!("Could not encode {}.", C::NAME)))?;
    // On failure `stream` drops here, and hears nothing more.
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
        Err(error) => Err(refusal(error)),
    }
}

fn refusal(error: JsValue) -> ApiError {
    serde_wasm_bindgen::from_value::<ApiError>(error.clone()).unwrap_or_else(|_| {
        ApiError::general("Pizza Bot's core did not answer.").with_details(js_text(&error))
    })
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
/// delivery at once; telling the host to stop sending is the command's own
/// business (`thread_unsubscribe`).
#[derive(Debug)]
pub(crate) struct EventStream {
    inner: Rc<StreamInner>,
}

#[derive(Debug)]
struct StreamInner {
    /// The page's id of the stream (see outbox.rs); `None` once closed.
    id: Cell<Option<u32>>,
}

impl StreamInner {
    fn is_open(&self) -> bool {
        self.id.get().is_some()
    }

    fn close(&self) {
        if let Some(id) = self.id.take() {
            crate::outbox::close_stream(id);
        }
    }
}

impl EventStream {
    fn open<E: serde::de::DeserializeOwned + 'static>(on_event: impl Fn(E) + 'static) -> Self {
        let inner = Rc::new(StreamInner {
            id: Cell::new(None),
        });
        let weak: Weak<StreamInner> = Rc::downgrade(&inner);
        let order = RefCell::new(ChannelOrder::<JsValue>::default());
        let listener = move |index: u64, message: Option<JsValue>| {
            let Some(inner) = weak.upgrade() else { return };
            if !inner.is_open() {
                return;
            }
            let incoming = match message {
                Some(message) => Incoming::Message { index, message },
                None => Incoming::End { index },
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
        };
        let id = crate::outbox::open_stream(Rc::new(listener));
        inner.id.set(Some(id));
        Self { inner }
    }

    fn id(&self) -> u32 {
        self.inner.id.get().unwrap_or_default()
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.inner.close();
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
    tauri_invoke(cmd, args)
        .await
        .map_err(|error| ApiError::general(format!("{cmd} failed.")).with_details(js_text(&error)))
}
