use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry
        .register::<cmd::ThreadCreate, _, _>(|host, p| async move { host.thread_create(p).await });
    registry.register::<cmd::ThreadList, _, _>(|host, p| async move { host.thread_list(p).await });
    registry.register::<cmd::ThreadGet, _, _>(|host, p| async move { host.thread_get(p).await });
    registry
        .register::<cmd::ThreadUpdate, _, _>(|host, p| async move { host.thread_update(p).await });
    registry
        .register::<cmd::ThreadDelete, _, _>(|host, p| async move { host.thread_delete(p).await });
    registry.register::<cmd::ThreadFork, _, _>(|host, p| async move { host.thread_fork(p).await });
    registry
        .register::<cmd::ThreadSearch, _, _>(|host, p| async move { host.thread_search(p).await });
    registry
        .register::<cmd::ThreadExport, _, _>(|host, p| async move { host.thread_export(p).await });
    registry
        .register::<cmd::ExportChoose, _, _>(|host, p| async move { host.export_choose(p).await });
}
