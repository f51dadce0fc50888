//! Window presence: whether the main window is shown and focused, and which
//! thread it shows. One service owns it, so the unread rule (run-end
//! maintenance) and the notification rule (the notifier) read one truth.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use pizza_protocol::ThreadId;

#[derive(Debug)]
pub(crate) struct WindowPresence {
    /// The thread the window shows (`thread_viewing`).
    viewing: Mutex<Option<ThreadId>>,
    /// False while the main window is hidden: nobody is looking at any thread.
    shown: AtomicBool,
    /// Whether the main window has the input focus.
    focused: AtomicBool,
}

impl Default for WindowPresence {
    fn default() -> Self {
        Self {
            viewing: Mutex::default(),
            shown: AtomicBool::new(true),
            focused: AtomicBool::new(false),
        }
    }
}

impl WindowPresence {
    pub(crate) fn set_viewing(&self, thread_id: Option<ThreadId>) {
        *self.viewing.lock().unwrap_or_else(PoisonError::into_inner) = thread_id;
    }

    pub(crate) fn set_shown(&self, shown: bool) {
        self.shown.store(shown, Ordering::Relaxed);
    }

    pub(crate) fn set_focused(&self, focused: bool) {
        self.focused.store(focused, Ordering::Relaxed);
    }

    /// The thread someone is looking at: none while the window is hidden.
    pub(crate) fn viewing(&self) -> Option<ThreadId> {
        if !self.shown.load(Ordering::Relaxed) {
            return None;
        }
        self.viewing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether the thread is on screen, for the unread rule.
    pub(crate) fn is_viewing(&self, thread_id: &str) -> bool {
        self.viewing().as_deref() == Some(thread_id)
    }

    /// Focused on the thread: the user sees its outcome already.
    pub(crate) fn is_in_view(&self, thread_id: &str) -> bool {
        self.focused.load(Ordering::Relaxed) && self.is_viewing(thread_id)
    }
}
