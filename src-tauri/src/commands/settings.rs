use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::SettingsGet, _, _>(|host, params| async move {
        host.settings_get(params).await
    });
    registry.register::<cmd::SettingsUpdate, _, _>(|host, params| async move {
        host.settings_update(params).await
    });
}
