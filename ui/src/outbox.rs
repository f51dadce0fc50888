//! The page's messages from the host: app events, notices for this window,
//! files dragged over it and the messages of its streams. The host queues
//! them for this page (src-tauri/src/outbox.rs); the page fetches them with
//! `outbox_take`, asking again as each answer comes, and hands each to its
//! listener here. Nothing reaches the page by a script the host runs in it.

use crate::ipc::invoke;
use pizza_protocol::{ApiError, OutboxTakeParams, PageMessage, cmd};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

/// How long to wait before asking again after a failed fetch.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Gets every message that is not a stream's.
type Listener = Rc<dyn Fn(&PageMessage)>;
/// Gets a stream's messages by index: `Some(message)`, or `None` for its end.
pub(crate) type StreamListener = Rc<dyn Fn(u64, Option<serde_json::Value>)>;

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
            match invoke::<cmd::OutboxTake>(&OutboxTakeParams {}).await {
                Ok(messages) => messages.iter().for_each(deliver),
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

fn deliver(message: &PageMessage) {
    match message {
        PageMessage::Stream {
            channel,
            index,
            message,
        } => to_stream(*channel, *index, Some(message.clone())),
        PageMessage::StreamEnd { channel, index } => to_stream(*channel, *index, None),
        other => {
            // A listener may add listeners: call a copy of the list.
            let listeners = LISTENERS.with_borrow(Clone::clone);
            for listener in listeners {
                listener(other);
            }
        }
    }
}

fn to_stream(channel: u32, index: u64, message: Option<serde_json::Value>) {
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
