use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::ThreadHistory, _, _>(
        |host, p| async move { host.thread_history(p).await },
    );
    registry.register::<cmd::CheckpointGet, _, _>(
        |host, p| async move { host.checkpoint_get(p).await },
    );
    registry.register::<cmd::CheckpointFork, _, _>(|host, p| async move {
        host.checkpoint_fork(p).await
    });
    registry.register::<cmd::ThreadFileList, _, _>(|host, p| async move {
        host.thread_file_list(p).await
    });
    registry.register::<cmd::ThreadFileGet, _, _>(|host, p| async move {
        host.thread_file_get(p).await
    });
    registry.register::<cmd::ThreadFileSave, _, _>(|host, p| async move {
        host.thread_file_save(p).await
    });
}
