//! Native notifications as the window sees them: following a click to its
//! thread, and the status-bar hint when notifications cannot be shown.

use crate::ipc::invoke;
use crate::screen::Screen;
use crate::screens::inbox::state::Inbox;
use leptos::prelude::*;
use pizza_protocol::{AppEvent, NotificationStatusParams, NotificationTakePendingParams, cmd};

/// Shows the thread of a clicked notification. The host keeps the request
/// until it is taken: on mount (a click that started or woke the window),
/// on the `navigate` event, and when the window gains focus (a click that
/// raced the event listener's registration).
pub(crate) fn follow_clicks(screen: RwSignal<Screen>, inbox: Inbox) {
    let take = move || {
        leptos::task::spawn_local(async move {
            if let Ok(Some(thread_id)) =
                invoke::<cmd::NotificationTakePending>(&NotificationTakePendingParams {}).await
            {
                screen.set(Screen::Inbox);
                inbox.open(thread_id, None);
            }
        });
    };
    take();
    crate::events::listen(AppEvent::NAVIGATE, move |_| take());
    let focus = window_event_listener(leptos::ev::focus, move |_| take());
    on_cleanup(move || focus.remove());
}

/// "Notifications unavailable" in the status bar while no notification
/// service answers; re-checked on focus and after each run.
#[component]
pub(crate) fn NotificationHint() -> impl IntoView {
    let available = RwSignal::new(true);
    let check = move || {
        leptos::task::spawn_local(async move {
            if let Ok(status) =
                invoke::<cmd::NotificationStatus>(&NotificationStatusParams {}).await
            {
                available.set(status.available);
            }
        });
    };
    check();
    crate::events::listen(AppEvent::ACTIVITY, move |_| check());
    let focus = window_event_listener(leptos::ev::focus, move |_| check());
    on_cleanup(move || focus.remove());
    view! {
        <Show when=move || !available.get()>
            <span
                class="statusbar__item muted"
                data-testid="notifications-unavailable"
                title="No notification service is running on this desktop (org.freedesktop.Notifications). \
                       Finished runs and approvals show in Unread and Action instead."
            >
                "Notifications unavailable"
            </span>
        </Show>
    }
}
