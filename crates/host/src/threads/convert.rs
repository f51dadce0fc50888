//! Store rows to protocol DTOs.

use pizza_protocol::{Folder, MessageView, ThreadSource, ThreadSummary};
use pizza_store as store;

pub(crate) fn summary(thread: store::Thread) -> ThreadSummary {
    ThreadSummary {
        id: thread.id,
        title: thread.title,
        folder_id: thread.folder_id,
        pinned: thread.pinned,
        unread: thread.unread,
        awaiting_action: thread.awaiting_action,
        source: match thread.source {
            store::ThreadSource::User => ThreadSource::User,
            store::ThreadSource::Trigger => ThreadSource::Trigger,
            store::ThreadSource::Fork => ThreadSource::Fork,
        },
        model: thread.model,
        created_at: thread.created_at,
        last_activity_at: thread.last_activity_at,
        preview: thread.preview,
        parent_thread_id: thread.parent_thread_id,
        last_seq: thread.last_seq,
        live_run_id: None,
        last_run: None,
    }
}

pub(crate) fn folder(folder: store::Folder) -> Folder {
    Folder {
        id: folder.id,
        name: folder.name,
        sort_order: folder.sort_order,
    }
}

/// The stored message as the window shows it (derived in the store, the one
/// place that knows the stored transcript).
pub(crate) fn message_view(message: &store::Message) -> MessageView {
    store::transcript::view(message)
}
