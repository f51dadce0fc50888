use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::AttachmentAdd, _, _>(|host, params| async move {
        host.attachment_add(params).await
    });
    registry.register::<cmd::AttachmentPick, _, _>(|host, params| async move {
        host.attachment_pick(params).await
    });
    registry.register::<cmd::AttachmentRemove, _, _>(|host, params| async move {
        host.attachment_remove(params).await
    });
    registry.register::<cmd::AttachmentOpen, _, _>(|host, params| async move {
        host.attachment_open(params).await
    });
}
