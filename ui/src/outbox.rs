//! The page's messages from the host: app events, notices for this window,
//! files dragged over it and the messages of its streams. The host queues
//! them for this page (src-tauri/src/outbox.rs); the page fetches them with
//! `outbox_take`, asking again as each answer comes, and hands each to its
//! listener here. Nothing reaches the page by a script the host runs in it.

use crate::ipc::invoke_raw;
use pizza_protocol::{ApiError, OutboxTakeParams, PageMessage, cmd};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsValue;

/// How long to wait before asking again after a failed fetch.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Gets every message that is not a stream's.
type Listener = Rc<dyn Fn(&PageMessage)>;
/// Gets a stream's messages by index: `Some(message)`, or `None` for its end.
/// Left undecoded: the stream decodes its own event type.
pub(crate) type StreamListener = Rc<dyn Fn(u64, Option<JsValue>)>;

thread_local! {
    static LISTENERS: RefCell<Vec<Listener>> = const { RefCell::new(Vec::new()) };
    static STREAMS: RefCell<HashMap<u32, StreamListener>> = RefCell::new(HashMap::new());
    static NEXT_STREAM: Cell<u32> = const { Cell::new(1) };
    static FETCHING: Cell<bool> = const { Cell::new(false) };
}

/// Starts fetching this page's messages (once; later calls do nothing).
pub(crate) fn start() {
    if FETCHING.replace(true) {
        return;
    }
    fetch();
}

fn fetch() {
    leptos::task::spawn_local(async move {
        loop {
            match invoke_raw::<cmd::OutboxTake>(&OutboxTakeParams {}).await {
                Ok(messages) => js_sys::Array::from(&messages).for_each(&mut |message, _, _| {
                    deliver(message);
                }),
                Err(error) => {
                    warn(&error);
                    leptos::prelude::set_timeout(fetch, RETRY_AFTER);
                    return;
                }
            }
        }
    });
}

fn warn(error: &ApiError) {
    web_sys::console::warn_1(&format!("the window's messages: {}", error.message).into());
}

/// Hands one message to its listeners. A stream's message is passed on as
/// it came, for its stream to decode as its own type; the rest are
/// [`PageMessage`]s.
fn deliver(message: JsValue) {
    let field = |name: &str| js_sys::Reflect::get(&message, &name.into()).unwrap_or_default();
    let number = |name: &str| {
        field(name)
            .as_f64()
            .filter(|n| *n >= 0.0 && n.fract() == 0.0)
    };
    match field("kind").as_string().as_deref() {
        Some(kind @ ("stream" | "stream_end")) => {
            let (Some(channel), Some(index)) = (number("channel"), number("index")) else {
                return;
            };
            let sent = (kind == "stream").then(|| field("message"));
            to_stream(channel as u32, index as u64, sent);
        }
        _ => match serde_wasm_bindgen::from_value::<PageMessage>(message) {
            Ok(message) => {
                // A listener may add listeners: call a copy of the list.
                let listeners = LISTENERS.with_borrow(Clone::clone);
                for listener in listeners {
                    listener(&message);
                }
            }
            Err(error) => {
                web_sys::console::warn_1(&format!("a message for the window: {error}").into());
            }
        },
    }
}

fn to_stream(channel: u32, index: u64, message: Option<JsValue>) {
    // The listener may close its own stream: call it outside the map.
    let listener = STREAMS.with_borrow(|streams| streams.get(&channel).cloned());
    if let Some(listener) = listener {
        listener(index, message);
    }
}

/// Calls `listener` with each message that is not a stream's, for the
/// page's lifetime.
pub(crate) fn listen(listener: impl Fn(&PageMessage) + 'static) {
    LISTENERS.with_borrow_mut(|listeners| listeners.push(Rc::new(listener)));
}

/// A new stream's id, its messages going to `listener` until
/// [`close_stream`].
pub(crate) fn open_stream(listener: StreamListener) -> u32 {
    let id = NEXT_STREAM.get();
    NEXT_STREAM.set(id.wrapping_add(1).max(1));
    STREAMS.with_borrow_mut(|streams| streams.insert(id, listener));
    id
}

/// Stops delivering stream `id`'s messages.
pub(crate) fn close_stream(id: u32) {
    // Dropped after the borrow: the listener's own drop may reach the map.
    let removed = STREAMS.with_borrow_mut(|streams| streams.remove(&id));
    drop(removed);
}
