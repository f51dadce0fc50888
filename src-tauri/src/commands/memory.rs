use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::MemoryList, _, _>(|host, p| async move { host.memory_list(p).await });
    registry.register::<cmd::MemoryGet, _, _>(|host, p| async move { host.memory_get(p).await });
    registry
        .register::<cmd::MemoryWrite, _, _>(|host, p| async move { host.memory_write(p).await });
    registry
        .register::<cmd::MemoryDelete, _, _>(|host, p| async move { host.memory_delete(p).await });
}
