use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::GrantList, _, _>(|host, p| async move { host.grant_list(p).await });
    registry.register::<cmd::GrantAdd, _, _>(|host, p| async move { host.grant_add(p).await });
    registry
        .register::<cmd::GrantUpdate, _, _>(|host, p| async move { host.grant_update(p).await });
    registry
        .register::<cmd::GrantRemove, _, _>(|host, p| async move { host.grant_remove(p).await });
}
