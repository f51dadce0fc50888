use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry
        .register::<cmd::AppInfo, _, _>(|host, params| async move { host.app_info(params).await });
}
