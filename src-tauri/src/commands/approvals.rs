use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::ApprovalList, _, _>(|host, params| async move {
        host.approval_list(params).await
    });
    registry.register::<cmd::ApprovalSet, _, _>(|host, params| async move {
        host.approval_set(params).await
    });
    registry.register::<cmd::ApprovalReset, _, _>(|host, params| async move {
        host.approval_reset(params).await
    });
}
