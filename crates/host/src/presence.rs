//! Window presence: whether the main window is shown and focused, and which
//! thread it shows. One service owns it, so the unread rule (run-end
//! maintenance) and the notification rule (the notifier) read one truth.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use pizza_protocol::{ApiError, ThreadId, WindowPaintedParams, WindowPlace};

use crate::Host;

#[derive(Debug)]
pub(crate) struct WindowPresence {
    /// The thread the window shows (`thread_viewing`).
    viewing: Mutex<Option<ThreadId>>,
    /// False while the main window is hidden: nobody is looking at any thread.
    shown: AtomicBool,
    /// Whether the main window has the input focus.
    focused: AtomicBool,
    /// Where the main window last said it was.
    place: Mutex<Option<WindowPlace>>,
}

impl Default for WindowPresence {
    fn default() -> Self {
        Self {
            viewing: Mutex::default(),
            shown: AtomicBool::new(true),
            focused: AtomicBool::new(false),
            place: Mutex::default(),
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

    pub(crate) fn set_place(&self, place: WindowPlace) {
        *self.place.lock().unwrap_or_else(PoisonError::into_inner) = Some(place);
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

impl Host {
    /// Where the main window last said it was; `None` before it first did.
    /// A window made again gets it in its page's address.
    pub fn window_place(&self) -> Option<WindowPlace> {
        self.inner
            .presence
            .place
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Keeps where the main window is, for a window made again.
    pub async fn window_place_set(&self, place: WindowPlace) -> Result<(), ApiError> {
        self.inner.presence.set_place(place);
        Ok(())
    }

    /// A window painted its inbox: the start-up (or reopen) figure, in the log.
    pub async fn window_painted(&self, params: WindowPaintedParams) -> Result<(), ApiError> {
        tracing::info!(
            page_ms = params.page_ms,
            app_ms = params.app_ms,
            list_ms = params.list_ms,
            snapshot_ms = params.snapshot_ms,
            "inbox painted"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_protocol::WindowScreen;

    #[tokio::test]
    async fn the_window_place_is_kept_for_a_window_made_again() {
        let root = pizza_test_support::data_root::TempDataRoot::new().unwrap();
        let host = crate::tests::open(&root).await;
        assert_eq!(host.window_place(), None);
        let place = WindowPlace {
            screen: WindowScreen::Inbox,
            thread_id: Some("t1".into()),
        };
        host.window_place_set(place.clone()).await.unwrap();
        assert_eq!(host.window_place(), Some(place));
    }
}
