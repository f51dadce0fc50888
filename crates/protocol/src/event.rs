//! App-wide, low-rate notices sent as Tauri events (streams use channels).

use crate::thread::ThreadId;
use serde::{Deserialize, Serialize};

/// One app event: its Tauri event name and payload come from here only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AppEvent {
    /// Threads or folders changed; lists and counts should be re-read.
    ThreadsChanged {
        /// The thread concerned, when one is.
        thread_id: Option<ThreadId>,
    },
}

impl AppEvent {
    pub const THREADS_CHANGED: &'static str = "threads_changed";

    /// The Tauri event name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::ThreadsChanged { .. } => Self::THREADS_CHANGED,
        }
    }
}
