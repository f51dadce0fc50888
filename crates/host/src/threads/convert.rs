//! Store rows to protocol DTOs.

use pizza_protocol::{Folder, MessagePart, MessageView, Role, ThreadSource, ThreadSummary};
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

pub(crate) fn role(role: store::Role) -> Role {
    match role {
        store::Role::System => Role::System,
        store::Role::User => Role::User,
        store::Role::Assistant => Role::Assistant,
        store::Role::Tool => Role::Tool,
    }
}

pub(crate) fn folder(folder: store::Folder) -> Folder {
    Folder {
        id: folder.id,
        name: folder.name,
        sort_order: folder.sort_order,
    }
}

/// Messages are stored as a JSON array of [`MessagePart`]s. Anything else
/// (an older or damaged row) still shows, as its plain text, rather than
/// hiding the message.
pub(crate) fn message_view(message: store::Message) -> MessageView {
    let parts = serde_json::from_value::<Vec<MessagePart>>(message.content)
        .unwrap_or_else(|_| vec![MessagePart::Text { text: message.text }]);
    MessageView {
        id: message.id,
        seq: message.seq,
        role: role(message.role),
        parts,
        created_at: message.created_at,
    }
}
