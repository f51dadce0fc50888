use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::ProviderList, _, _>(|host, params| async move {
        host.provider_list(params).await
    });
    registry.register::<cmd::ProviderConfigure, _, _>(|host, params| async move {
        host.provider_configure(params).await
    });
    registry.register::<cmd::ProviderRemove, _, _>(|host, params| async move {
        host.provider_remove(params).await
    });
    registry.register::<cmd::ProviderTest, _, _>(|host, params| async move {
        host.provider_test(params).await
    });
    registry.register::<cmd::ProviderAdd, _, _>(|host, params| async move {
        host.provider_add(params).await
    });
    registry.register::<cmd::ProviderDiscover, _, _>(|host, params| async move {
        host.provider_discover(params).await
    });
    registry.register::<cmd::ModelList, _, _>(|host, params| async move {
        host.model_list(params).await
    });
    registry.register::<cmd::ModelDefaultGet, _, _>(|host, params| async move {
        host.model_default_get(params).await
    });
    registry.register::<cmd::ModelDefaultSet, _, _>(|host, params| async move {
        host.model_default_set(params).await
    });
    registry.register::<cmd::ModelOverrideSet, _, _>(|host, params| async move {
        host.model_override_set(params).await
    });
}
