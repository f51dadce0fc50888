//! App-wide notices (`threads_changed`, `activity`, `queue_changed`, …) for
//! the window to forward: one bounded broadcast every service emits on.

use pizza_protocol::AppEvent;
use tokio::sync::broadcast;

/// App events buffered for a slow listener before it is told it lagged.
const EVENT_BUFFER: usize = 256;

#[derive(Debug, Clone)]
pub(crate) struct AppEvents {
    sender: broadcast::Sender<AppEvent>,
}

impl Default for AppEvents {
    fn default() -> Self {
        Self {
            sender: broadcast::channel(EVENT_BUFFER).0,
        }
    }
}

impl AppEvents {
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<AppEvent> {
        self.sender.subscribe()
    }

    pub(crate) fn emit(&self, event: AppEvent) {
        // No listener (no window yet) is fine: lists are re-read when one opens.
        let _ = self.sender.send(event);
    }
}
