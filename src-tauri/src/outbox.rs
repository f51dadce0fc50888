//! Each page's outbox: what the host sends a window (app events, notices for
//! it, files dragged over it, its streaming commands' messages) is queued
//! here and fetched by the page with `outbox_take`, which waits while there
//! is nothing.
//!
//! Tauri's own events and channels run a script in the page for every
//! message, and WebKit turns each script's result into a JavaScript value in
//! the app's process: the first one starts a whole JavaScript engine there
//! (its heap, and ~8 MiB of JavaScriptCore's code in memory), which stays
//! after the window is closed to the tray. With the page fetching its
//! messages, no script is run in it and no engine is started: measured on the
//! release app, 7 MiB less closed to the tray and 6-10 MiB less shown.
//!
//! An outbox belongs to one page: a page starting to load gets a fresh one
//! (what was queued for the page before is dropped with its channels), and
//! the webview's end drops it (a question still waiting is answered with
//! nothing, for no one).

use pizza_protocol::{DragPhase, PageMessage};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tauri::ipc::{Channel, InvokeResponseBody};
use tokio::sync::Notify;

/// At most this many messages wait for a page. A page takes everything at
/// each answer, so only one that stopped asking (its web process crashed
/// while a long run streams to it) gets near it; its oldest are dropped
/// then, and the memory stays bounded.
const MAX_QUEUED: usize = 10_000;

/// Every open page's outbox, by its webview's label.
#[derive(Debug, Default)]
pub(crate) struct Outboxes {
    by_label: Mutex<HashMap<String, Arc<Outbox>>>,
}

impl Outboxes {
    /// A fresh outbox for the page `label` starts to load.
    pub(crate) fn open(&self, label: &str) {
        let fresh = Arc::new(Outbox::default());
        if let Some(old) = self.lock().insert(label.to_owned(), fresh) {
            old.close();
        }
    }

    /// The outbox of the page in `label` (made if its load was not seen).
    pub(crate) fn get(&self, label: &str) -> Arc<Outbox> {
        Arc::clone(self.lock().entry(label.to_owned()).or_default())
    }

    /// The webview `label` is gone, with its page.
    pub(crate) fn close(&self, label: &str) {
        if let Some(outbox) = self.lock().remove(label) {
            outbox.close();
        }
    }

    /// Queues `message` for the page in `label`, if there is one.
    pub(crate) fn send(&self, label: &str, message: PageMessage) {
        if let Some(outbox) = self.lock().get(label) {
            let _ = outbox.push(message);
        }
    }

    /// Queues `message` for every page.
    pub(crate) fn broadcast(&self, message: &PageMessage) {
        for outbox in self.lock().values() {
            let _ = outbox.push(message.clone());
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Outbox>>> {
        self.by_label.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One page's queue.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    queue: Mutex<VecDeque<PageMessage>>,
    arrived: Notify,
    closed: AtomicBool,
    /// Whether messages were dropped for want of a page taking them.
    overflowed: AtomicBool,
}

impl Outbox {
    /// Queues `message`; false (and dropped) once the page is gone.
    pub(crate) fn push(&self, message: PageMessage) -> bool {
        if self.closed.load(Ordering::Acquire) {
            return false;
        }
        {
            let mut queue = self.lock();
            if queue.len() >= MAX_QUEUED {
                queue.pop_front();
                if !self.overflowed.swap(true, Ordering::AcqRel) {
                    tracing::warn!(
                        "a window's page stopped taking its messages: the oldest are dropped"
                    );
                }
            }
            queue.push_back(message);
        }
        self.arrived.notify_waiters();
        true
    }

    /// Everything queued, oldest first; when nothing is, waits up to `wait`
    /// for something (an empty answer after that, or once the page is gone).
    pub(crate) async fn take(&self, wait: Duration) -> Vec<PageMessage> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let arrived = self.arrived.notified();
            tokio::pin!(arrived);
            // Registered before the queue is looked at: a push in between
            // still wakes this wait.
            arrived.as_mut().enable();
            if self.closed.load(Ordering::Acquire) {
                return Vec::new();
            }
            let queued: Vec<PageMessage> = self.lock().drain(..).collect();
            if !queued.is_empty() {
                return queued;
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return Vec::new();
            }
        }
    }

    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.lock().clear();
        self.arrived.notify_waiters();
    }

    /// A channel whose messages go to this page as [`PageMessage::Stream`]
    /// under the page's `channel` id, numbered from 0; when the last clone
    /// is dropped, the page is told it ended ([`PageMessage::StreamEnd`]).
    /// Sending fails once the page is gone, so the sender stops.
    pub(crate) fn channel<E>(self: &Arc<Self>, channel: u32) -> Channel<E> {
        let stream = Stream {
            outbox: Arc::clone(self),
            channel,
            sent: AtomicU64::new(0),
        };
        Channel::new(move |body| stream.send(body))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<PageMessage>> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The sending end of one page channel; its drop ends the stream.
struct Stream {
    outbox: Arc<Outbox>,
    channel: u32,
    sent: AtomicU64,
}

impl Stream {
    fn send(&self, body: InvokeResponseBody) -> tauri::Result<()> {
        let message = match body {
            InvokeResponseBody::Json(json) => serde_json::from_str(&json)?,
            InvokeResponseBody::Raw(bytes) => serde_json::from_slice(&bytes)?,
        };
        let index = self.sent.fetch_add(1, Ordering::AcqRel);
        let queued = self.outbox.push(PageMessage::Stream {
            channel: self.channel,
            index,
            message,
        });
        if queued {
            Ok(())
        } else {
            Err(tauri::Error::WebviewNotFound)
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let _ = self.outbox.push(PageMessage::StreamEnd {
            channel: self.channel,
            index: self.sent.load(Ordering::Acquire),
        });
    }
}

/// What Tauri says of files dragged over a window, for its page.
pub(crate) fn drag_message(event: &tauri::DragDropEvent) -> Option<PageMessage> {
    let paths = |paths: &[std::path::PathBuf]| {
        paths
            .iter()
            .map(|path| path.to_string_lossy().into_owned())
            .collect()
    };
    let (phase, paths) = match event {
        tauri::DragDropEvent::Enter { paths: dragged, .. } => (DragPhase::Enter, paths(dragged)),
        tauri::DragDropEvent::Over { .. } => (DragPhase::Over, Vec::new()),
        tauri::DragDropEvent::Drop { paths: dropped, .. } => (DragPhase::Drop, paths(dropped)),
        tauri::DragDropEvent::Leave => (DragPhase::Leave, Vec::new()),
        _ => return None,
    };
    Some(PageMessage::Drag { phase, paths })
}

#[cfg(test)]
#[path = "outbox_tests.rs"]
mod tests;
