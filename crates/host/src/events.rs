//! App-wide notices (`threads_changed`, `activity`, `queue_changed`, …) for
//! the window to forward: one bounded broadcast every service emits on.

use std::sync::{Arc, Mutex, PoisonError};

use pizza_protocol::AppEvent;
use tokio::sync::broadcast;

/// App events buffered for a slow listener before it is told it lagged.
const EVENT_BUFFER: usize = 256;

/// Called with each event as it is emitted, before any listener has it.
type Watcher = Box<dyn Fn(&AppEvent) + Send + Sync>;

#[derive(Clone)]
pub(crate) struct AppEvents {
    sender: broadcast::Sender<AppEvent>,
    watchers: Arc<Mutex<Vec<Watcher>>>,
}

impl std::fmt::Debug for AppEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppEvents").finish_non_exhaustive()
    }
}

impl Default for AppEvents {
    fn default() -> Self {
        Self {
            sender: broadcast::channel(EVENT_BUFFER).0,
            watchers: Arc::default(),
        }
    }
}

impl AppEvents {
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<AppEvent> {
        self.sender.subscribe()
    }

    /// Calls `watcher` with every event, on the emitter's thread as it is
    /// emitted: what it does is ordered before anything that follows the
    /// emit. For quick bookkeeping only.
    pub(crate) fn watch(&self, watcher: impl Fn(&AppEvent) + Send + Sync + 'static) {
        self.watchers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Box::new(watcher));
    }

    pub(crate) fn emit(&self, event: AppEvent) {
        for watcher in self
            .watchers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
        {
            watcher(&event);
        }
        // No listener (no window yet) is fine: lists are re-read when one opens.
        let _ = self.sender.send(event);
    }
}
