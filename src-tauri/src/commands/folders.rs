use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry
        .register::<cmd::FolderCreate, _, _>(|host, p| async move { host.folder_create(p).await });
    registry.register::<cmd::FolderList, _, _>(|host, p| async move { host.folder_list(p).await });
    registry
        .register::<cmd::FolderUpdate, _, _>(|host, p| async move { host.folder_update(p).await });
    registry
        .register::<cmd::FolderDelete, _, _>(|host, p| async move { host.folder_delete(p).await });
}
