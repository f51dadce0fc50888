//! Window-wide followers of the host: which thread is on screen, every
//! thread's queue, and which threads have a live run.

use super::state::Inbox;
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{AppEvent, RunStatus, ThreadViewingParams, cmd};

/// Tells the host which thread is on screen, so runs ending elsewhere mark
/// their threads unread.
pub(crate) fn track_viewing(inbox: Inbox) {
    Effect::new(move |_| {
        let thread_id = inbox.selected.get();
        leptos::task::spawn_local(async move {
            let _ = invoke::<cmd::ThreadViewing>(&ThreadViewingParams { thread_id }).await;
        });
    });
    on_cleanup(|| {
        leptos::task::spawn_local(async {
            let _ = invoke::<cmd::ThreadViewing>(&ThreadViewingParams { thread_id: None }).await;
        });
    });
}

/// Keeps every thread's queued messages as the host reports them.
pub(crate) fn track_queues(inbox: Inbox) {
    crate::events::listen(AppEvent::QUEUE_CHANGED, move |event| {
        if let AppEvent::QueueChanged { thread_id, queued } = event {
            inbox.queues.update(|q| q.replace(thread_id, queued));
        }
    });
}

/// Keeps the sidebar's running dots current from the host's activity events.
pub(crate) fn track_running(inbox: Inbox) {
    crate::events::listen(AppEvent::ACTIVITY, move |event| {
        if let AppEvent::Activity {
            thread_id, status, ..
        } = event
        {
            inbox.running.update(|r| {
                if status == RunStatus::Running {
                    r.insert(thread_id);
                } else {
                    r.remove(&thread_id);
                }
            });
        }
    });
}
