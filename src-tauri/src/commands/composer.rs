use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry
        .register::<cmd::ComposerGet, _, _>(|host, p| async move { host.composer_get(p).await });
    registry.register::<cmd::ComposerDraftSave, _, _>(|host, p| async move {
        host.composer_draft_save(p).await
    });
    registry.register::<cmd::ComposerHistoryAdd, _, _>(|host, p| async move {
        host.composer_history_add(p).await
    });
}
