//! Forwards the host's app events to every open page's outbox.

use crate::outbox::Outboxes;
use pizza_host::Host;
use pizza_protocol::PageMessage;
use tauri::{AppHandle, Manager, Runtime};
use tokio::sync::broadcast::error::RecvError;

pub(crate) fn forward<R: Runtime>(app: AppHandle<R>, host: &Host) {
    let mut events = host.subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            match events.recv().await {
                Ok(event) => {
                    if let Some(outboxes) = app.try_state::<Outboxes>() {
                        outboxes.broadcast(&PageMessage::App { event });
                    }
                }
                // A burst outran the window: it re-reads lists on the next notice anyway.
                Err(RecvError::Lagged(skipped)) => tracing::debug!(skipped, "app events lagged"),
                Err(RecvError::Closed) => break,
            }
        }
    });
}
