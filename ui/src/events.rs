//! Notices from the host (`threads_changed`, `quick_ask_shown`, files
//! dragged over the window), as they come in the page's messages (see
//! outbox.rs). The names come from `pizza-protocol` only.

use pizza_protocol::{AppEvent, DragPhase, PageMessage, WindowEvent};

/// Calls `on_event` for every app event named `name` (one of
/// `AppEvent::NAMES`), for the page's lifetime.
pub(crate) fn listen(name: &'static str, on_event: impl Fn(AppEvent) + 'static) {
    crate::outbox::listen(move |message| {
        if let PageMessage::App { event } = message
            && event.name() == name
        {
            on_event(event.clone());
        }
    });
}

/// Calls `on_event` each time this window is sent `event`, for its lifetime.
pub(crate) fn on_window_event(event: WindowEvent, on_event: impl Fn() + 'static) {
    crate::outbox::listen(move |message| {
        if matches!(message, PageMessage::Window { event: sent } if *sent == event) {
            on_event();
        }
    });
}

/// Calls `on_drag` as files from the system are dragged over this window
/// (only this one), with their paths where the phase has them (`Enter`,
/// `Drop`). The page gets no HTML drag events for such drags: the window
/// takes them over.
pub(crate) fn on_drag(on_drag: impl Fn(DragPhase, &[String]) + 'static) {
    crate::outbox::listen(move |message| {
        if let PageMessage::Drag { phase, paths } = message {
            on_drag(*phase, paths);
        }
    });
}
