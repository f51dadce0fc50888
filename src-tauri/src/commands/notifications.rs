use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::NotificationStatus, _, _>(|host, params| async move {
        host.notification_status(params).await
    });
    registry.register::<cmd::NotificationTakePending, _, _>(|host, params| async move {
        host.notification_take_pending(params).await
    });
}
