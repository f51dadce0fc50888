use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::RunStart, _, _>(|host, p| async move { host.run_start(p).await });
    registry.register::<cmd::RunCancel, _, _>(|host, p| async move { host.run_cancel(p).await });
    registry.register::<cmd::RunRespond, _, _>(|host, p| async move { host.run_respond(p).await });
    registry.register::<cmd::RunResume, _, _>(|host, p| async move { host.run_resume(p).await });
    registry.register::<cmd::RunDiscard, _, _>(|host, p| async move { host.run_discard(p).await });
    registry.register::<cmd::QueueAdd, _, _>(|host, p| async move { host.queue_add(p).await });
    registry
        .register::<cmd::QueueRemove, _, _>(|host, p| async move { host.queue_remove(p).await });
    // Bound to the window: another window's unsubscribe leaves it alone.
    registry.register_from_window::<cmd::ThreadUnsubscribe, _, _>(|host, window, p| async move {
        host.thread_unsubscribe_from(&window, p).await
    });
    registry.register::<cmd::ThreadViewing, _, _>(
        |host, p| async move { host.thread_viewing(p).await },
    );
    registry.register_streaming::<cmd::ThreadSubscribe, _, _>(
        |host, window, p, channel| async move {
            let (response, frames) = host.thread_subscribe_from(&window, p).await?;
            // Forwards until the stream ends (lagged) or the webview is gone;
            // dropping `frames` then unsubscribes. Runs are never tied to it.
            tauri::async_runtime::spawn(crate::frames::forward(frames, move |frame| {
                channel.send(frame).is_ok()
            }));
            Ok(response)
        },
    );
}
