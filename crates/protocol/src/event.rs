//! App-wide, low-rate notices sent as Tauri events (streams use channels).

use crate::run::{RunId, RunStatus};
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
    /// A run ended; the same entry is kept in the activity log.
    Activity {
        /// The log's cursor of this entry.
        cursor: i64,
        thread_id: ThreadId,
        run_id: Option<RunId>,
        status: RunStatus,
        /// The thread's title when the run ended.
        title: String,
        /// The error's sentence for a failed run.
        message: Option<String>,
        created_at: i64,
    },
    /// Show this thread: a notification for it was clicked. The window takes
    /// the request with `notification_take_pending`, so one that was not
    /// ready when this was sent still gets it.
    Navigate { thread_id: ThreadId },
    /// The thread's host-side queue changed (a message queued, removed, or
    /// taken to start a run); the whole queue, oldest first.
    QueueChanged {
        thread_id: ThreadId,
        queued: Vec<crate::QueuedMessage>,
    },
}

impl AppEvent {
    pub const THREADS_CHANGED: &'static str = "threads_changed";
    pub const ACTIVITY: &'static str = "activity";
    pub const NAVIGATE: &'static str = "navigate";
    pub const QUEUE_CHANGED: &'static str = "queue_changed";

    /// The Tauri event name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::ThreadsChanged { .. } => Self::THREADS_CHANGED,
            Self::Activity { .. } => Self::ACTIVITY,
            Self::Navigate { .. } => Self::NAVIGATE,
            Self::QueueChanged { .. } => Self::QUEUE_CHANGED,
        }
    }
}
