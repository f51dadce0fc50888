use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::QuickAskHide, _, _>(|host, params| async move {
        host.quick_ask_hide(params).await
    });
    registry.register::<cmd::QuickAskTypedAhead, _, _>(|host, params| async move {
        host.quick_ask_typed_ahead(params).await
    });
    registry.register::<cmd::QuickAskOpenThread, _, _>(|host, params| async move {
        host.quick_ask_open_thread(params).await
    });
    registry.register::<cmd::LinkOpen, _, _>(
        |host, params| async move { host.link_open(params).await },
    );
    registry.register::<cmd::ShortcutGet, _, _>(|host, params| async move {
        host.shortcut_get(params).await
    });
    registry.register::<cmd::ShortcutSet, _, _>(|host, params| async move {
        host.shortcut_set(params).await
    });
    registry.register::<cmd::WindowPlaceSet, _, _>(|host, params| async move {
        host.window_place_set(params).await
    });
    registry.register::<cmd::WindowSnapshotSet, _, _>(|host, params| async move {
        host.window_snapshot_set(params).await
    });
    registry.register::<cmd::WindowPainted, _, _>(|host, params| async move {
        host.window_painted(params).await
    });
    // The page's messages: from its outbox, not the host.
    registry.register_outbox();
}
