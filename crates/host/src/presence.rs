//! Window presence: whether the main window is shown and focused, and which
//! thread it shows. One service owns it, so the unread rule (run-end
//! maintenance) and the notification rule (the notifier) read one truth.
//! It also keeps where the window was left (screen and thread), in the
//! settings too: a window made again, and the next start, land there.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use pizza_protocol::{ApiError, ThreadId, WindowPaintedParams, WindowPlace};
use pizza_store::Store;

use crate::settings::keys;
use crate::{Host, HostError};

#[derive(Debug)]
pub(crate) struct WindowPresence {
    /// The thread the window shows (`thread_viewing`).
    viewing: Mutex<Option<ThreadId>>,
    /// False while the main window is hidden: nobody is looking at any thread.
    shown: AtomicBool,
    /// Whether the main window has the input focus.
    focused: AtomicBool,
    /// Where the main window last said it was (at start, where the last
    /// session left it).
    place: Mutex<Option<WindowPlace>>,
    /// Orders the writes of the place to the settings: the last one kept
    /// is the place now.
    keeping: tokio::sync::Mutex<()>,
}

impl Default for WindowPresence {
    fn default() -> Self {
        Self {
            viewing: Mutex::default(),
            shown: AtomicBool::new(true),
            focused: AtomicBool::new(false),
            place: Mutex::default(),
            keeping: tokio::sync::Mutex::default(),
        }
    }
}

impl WindowPresence {
    /// Presence at start: the window is made where the last session left
    /// it, without a thread deleted since.
    pub(crate) async fn open(store: &Store) -> Self {
        let presence = Self::default();
        let place = match keys::WINDOW_PLACE.read(store).await {
            Ok(place) => place,
            Err(error) => {
                tracing::warn!(%error, "could not read where the window was left");
                None
            }
        };
        if let Some(mut place) = place {
            if let Some(thread_id) = &place.thread_id
                && let Err(error) = store.thread(thread_id).await
            {
                tracing::info!(%error, "the window was left on a thread that is gone");
                place.thread_id = None;
            }
            presence.set_place(place);
        }
        presence
    }

    pub(crate) fn set_viewing(&self, thread_id: Option<ThreadId>) {
        *self.viewing.lock().unwrap_or_else(PoisonError::into_inner) = thread_id;
    }

    pub(crate) fn set_shown(&self, shown: bool) {
        self.shown.store(shown, Ordering::Relaxed);
    }

    pub(crate) fn set_focused(&self, focused: bool) {
        self.focused.store(focused, Ordering::Relaxed);
    }

    /// Keeps `place`; false when it is where the window already was.
    pub(crate) fn set_place(&self, place: WindowPlace) -> bool {
        let mut current = self.place.lock().unwrap_or_else(PoisonError::into_inner);
        if current.as_ref() == Some(&place) {
            return false;
        }
        *current = Some(place);
        true
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
    /// Where the main window last said it was, or where the last session
    /// left it; `None` before any window said. A window made (again, or at
    /// start) gets it in its page's address.
    pub fn window_place(&self) -> Option<WindowPlace> {
        self.inner
            .presence
            .place
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Keeps where the main window is, for a window made again and the
    /// next start. A place the settings could not keep is logged, not
    /// reported: it still holds for this session.
    pub async fn window_place_set(&self, place: WindowPlace) -> Result<(), ApiError> {
        // A thread the store does not have is refused; nothing is kept.
        if let Some(thread_id) = &place.thread_id {
            self.inner
                .store
                .thread(thread_id)
                .await
                .map_err(|error| ApiError::from(HostError::from(error)))?;
        }
        if !self.inner.presence.set_place(place) {
            return Ok(());
        }
        let _keeping = self.inner.presence.keeping.lock().await;
        if let Some(place) = self.window_place()
            && let Err(error) = keys::WINDOW_PLACE.write(&self.inner.store, &place).await
        {
            tracing::warn!(%error, "could not keep where the window was left");
        }
        Ok(())
    }

    /// A window painted its inbox (or the quick-ask window its input): the
    /// start-up (or reopen) figure, in the log.
    pub async fn window_painted(&self, params: WindowPaintedParams) -> Result<(), ApiError> {
        if params.quick_ask {
            tracing::info!(
                page_ms = params.page_ms,
                app_ms = params.app_ms,
                module_handed = params.module_handed,
                "quick-ask painted"
            );
            return Ok(());
        }
        tracing::info!(
            page_ms = params.page_ms,
            app_ms = params.app_ms,
            list_ms = params.list_ms,
            snapshot_ms = params.snapshot_ms,
            module_handed = params.module_handed,
            "inbox painted"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_protocol::{ThreadCreateParams, ThreadIdParams, WindowScreen};
    use pizza_test_support::data_root::TempDataRoot;

    #[tokio::test]
    async fn the_window_place_is_kept_for_a_window_made_again() {
        let root = TempDataRoot::new().unwrap();
        let host = crate::tests::open(&root).await;
        assert_eq!(host.window_place(), None);
        let thread = host
            .thread_create(ThreadCreateParams::default())
            .await
            .unwrap();
        let place = WindowPlace {
            screen: WindowScreen::Inbox,
            thread_id: Some(thread.id),
        };
        host.window_place_set(place.clone()).await.unwrap();
        assert_eq!(host.window_place(), Some(place.clone()));

        // A thread that does not exist is refused, and the place stays.
        let error = host
            .window_place_set(WindowPlace {
                screen: WindowScreen::Settings,
                thread_id: Some("no-such-thread".into()),
            })
            .await
            .unwrap_err();
        assert_eq!(error.code, pizza_protocol::ErrorCode::NotFound);
        assert_eq!(host.window_place(), Some(place.clone()));
        host.close().await;
        let host = crate::tests::open(&root).await;
        assert_eq!(host.window_place(), Some(place));
    }

    /// Closes `host` and opens its data root again, as the next start does.
    async fn restart(host: &Host, root: &TempDataRoot) -> Host {
        host.close().await;
        crate::tests::open(root).await
    }

    #[tokio::test]
    async fn a_start_lands_where_the_window_was_left_unless_its_thread_is_gone() {
        let root = TempDataRoot::new().unwrap();
        let host = crate::tests::open(&root).await;
        let kept = host
            .thread_create(ThreadCreateParams::default())
            .await
            .unwrap();
        let gone = host
            .thread_create(ThreadCreateParams::default())
            .await
            .unwrap();
        let on = |screen, thread_id: Option<&str>| WindowPlace {
            screen,
            thread_id: thread_id.map(Into::into),
        };

        host.window_place_set(on(WindowScreen::Settings, None))
            .await
            .unwrap();
        host.window_place_set(on(WindowScreen::Inbox, Some(&kept.id)))
            .await
            .unwrap();
        let host = restart(&host, &root).await;
        assert_eq!(
            host.window_place(),
            Some(on(WindowScreen::Inbox, Some(&kept.id))),
            "the last place, not the first"
        );

        host.window_place_set(on(WindowScreen::Automations, Some(&gone.id)))
            .await
            .unwrap();
        host.thread_delete(ThreadIdParams {
            thread_id: gone.id.clone(),
        })
        .await
        .unwrap();
        let host = restart(&host, &root).await;
        assert_eq!(
            host.window_place(),
            Some(on(WindowScreen::Automations, None)),
            "its screen, without the deleted thread"
        );
    }
}
