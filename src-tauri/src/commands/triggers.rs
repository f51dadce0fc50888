use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry
        .register::<cmd::TriggerList, _, _>(|host, p| async move { host.trigger_list(p).await });
    registry.register::<cmd::TriggerPreview, _, _>(|host, p| async move {
        host.trigger_preview(p).await
    });
    registry
        .register::<cmd::TriggerSave, _, _>(|host, p| async move { host.trigger_save(p).await });
    registry.register::<cmd::TriggerDelete, _, _>(
        |host, p| async move { host.trigger_delete(p).await },
    );
    registry.register::<cmd::TriggerSetEnabled, _, _>(|host, p| async move {
        host.trigger_set_enabled(p).await
    });
    registry.register::<cmd::OccurrenceList, _, _>(|host, p| async move {
        host.occurrence_list(p).await
    });
    registry.register::<cmd::TriggerRunNow, _, _>(|host, p| async move {
        host.trigger_run_now(p).await
    });
    registry.register::<cmd::TriggerRotateSecret, _, _>(|host, p| async move {
        host.trigger_rotate_secret(p).await
    });
    registry.register::<cmd::AutomationsGet, _, _>(|host, p| async move {
        host.automations_get(p).await
    });
    registry.register::<cmd::AutomationsUpdate, _, _>(|host, p| async move {
        host.automations_update(p).await
    });
}
