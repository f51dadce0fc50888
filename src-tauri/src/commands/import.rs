use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::ThreadImportChoose, _, _>(|host, p| async move {
        host.thread_import_choose(p).await
    });
    registry.register::<cmd::ThreadImportPreview, _, _>(|host, p| async move {
        host.thread_import_preview(p).await
    });
    registry
        .register::<cmd::ThreadImport, _, _>(|host, p| async move { host.thread_import(p).await });
}
