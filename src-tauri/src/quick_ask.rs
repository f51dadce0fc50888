//! The quick-ask window: a small floating window, opened from the tray or the
//! global shortcut, where a question starts a new thread. The same UI renders
//! it, told by the `view=quick-ask` query.

use pizza_host::{DesktopShell, ShortcutError};
use pizza_protocol::WindowEvent;
use tauri::{AppHandle, Emitter, Manager, Runtime, WebviewUrl, WebviewWindowBuilder};

/// The window's label (its capability in `capabilities/quick-ask.json` names it).
pub(crate) const LABEL: &str = "quick-ask";
const URL: &str = "index.html?view=quick-ask";
const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 360.0;

/// Shows the quick-ask window, creating it the first time.
pub(crate) fn show<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(LABEL) {
        let _ = window.show();
        let _ = window.unminimize();
        let _ = window.set_focus();
        if let Err(error) = window.emit_to(LABEL, WindowEvent::QuickAskShown.name(), ()) {
            tracing::debug!(%error, "could not tell quick-ask it was shown");
        }
        return;
    }
    let built = WebviewWindowBuilder::new(app, LABEL, WebviewUrl::App(URL.into()))
        .title("Quick ask — Pizza Bot")
        .inner_size(WIDTH, HEIGHT)
        .resizable(false)
        .decorations(false)
        .always_on_top(true)
        .skip_taskbar(true)
        .center()
        .focused(true)
        .build();
    if let Err(error) = built {
        tracing::warn!(%error, "could not open the quick-ask window");
    }
}

/// Hides the quick-ask window; its run goes on and lands in the inbox.
pub(crate) fn hide<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(LABEL) {
        let _ = window.hide();
    }
}

/// The host's window and shortcut operations, on this app's windows.
pub(crate) struct TauriShell<R: Runtime> {
    app: AppHandle<R>,
    shortcut: crate::shortcut::QuickAskShortcut<R>,
}

impl<R: Runtime> TauriShell<R> {
    pub(crate) fn new(app: AppHandle<R>) -> Self {
        Self {
            shortcut: crate::shortcut::QuickAskShortcut::new(app.clone()),
            app,
        }
    }
}

impl<R: Runtime> DesktopShell for TauriShell<R> {
    fn open_thread(&self, thread_id: &str) {
        hide(&self.app);
        crate::navigate::open_thread(&self.app, thread_id);
    }

    fn hide_quick_ask(&self) {
        hide(&self.app);
    }

    fn set_quick_ask_shortcut(&self, accelerator: Option<&str>) -> Result<(), ShortcutError> {
        self.shortcut.set(accelerator)
    }

    fn shortcuts_unsupported(&self) -> Option<String> {
        crate::shortcut::unsupported_reason()
    }
}
