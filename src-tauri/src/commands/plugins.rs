use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::PluginList, _, _>(|host, p| async move { host.plugin_list(p).await });
    registry.register::<cmd::PluginInstallPreview, _, _>(|host, p| async move {
        host.plugin_install_preview(p).await
    });
    registry.register::<cmd::PluginInstall, _, _>(
        |host, p| async move { host.plugin_install(p).await },
    );
    registry
        .register::<cmd::PluginRemove, _, _>(|host, p| async move { host.plugin_remove(p).await });
    registry.register::<cmd::PluginSetEnabled, _, _>(|host, p| async move {
        host.plugin_set_enabled(p).await
    });
    registry.register::<cmd::PluginInstallChoose, _, _>(|host, p| async move {
        host.plugin_install_choose(p).await
    });
}
