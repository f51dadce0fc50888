//! Forwards the host's app events to the window as Tauri events.

use pizza_host::Host;
use tauri::{AppHandle, Emitter, Runtime};
use tokio::sync::broadcast::error::RecvError;

pub(crate) fn forward<R: Runtime>(app: AppHandle<R>, host: &Host) {
    let mut events = host.subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            match events.recv().await {
                Ok(event) => {
                    if let Err(error) = app.emit(event.name(), &event) {
                        tracing::debug!(%error, "could not emit an app event");
                    }
                }
                // A burst outran the window: it re-reads lists on the next notice anyway.
                Err(RecvError::Lagged(skipped)) => tracing::debug!(skipped, "app events lagged"),
                Err(RecvError::Closed) => break,
            }
        }
    });
}
