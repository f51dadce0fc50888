//! Showing the main window on a thread, from anywhere in the app (a second
//! launch with `--thread`, quick-ask's "Open in Pizza Bot", a clicked
//! notification).

use pizza_host::Host;
use tauri::{AppHandle, Manager, Runtime};

/// Brings the main window up and asks it to show `thread_id`. The request is
/// kept by the host until the window takes it, so a window that is still
/// loading gets it too.
pub(crate) fn open_thread<R: Runtime>(app: &AppHandle<R>, thread_id: &str) {
    if let Some(host) = app.try_state::<Host>() {
        host.notification_clicked(thread_id.to_owned());
    }
    show_main_window(app);
}

/// Shows, restores and focuses the main window, making it again if it
/// was released while closed to the tray.
pub(crate) fn show_main_window<R: Runtime>(app: &AppHandle<R>) {
    crate::main_window::show(app);
}
