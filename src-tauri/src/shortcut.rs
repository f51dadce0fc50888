//! The quick-ask global shortcut (`tauri-plugin-global-shortcut`; X11,
//! macOS and Windows). Registration happens on the main thread and waits for
//! the window system's answer, so callers use a blocking thread.

use std::sync::{Mutex, PoisonError};

use pizza_host::ShortcutError;
use tauri::{AppHandle, Runtime};
use tauri_plugin_global_shortcut::{GlobalShortcutExt, Shortcut, ShortcutState};

/// The plugin, with every press of a registered shortcut opening quick-ask
/// (the quick-ask shortcut is the only one the app registers).
pub(crate) fn plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_global_shortcut::Builder::new()
        .with_handler(|app, _shortcut, event| {
            if event.state == ShortcutState::Pressed {
                crate::quick_ask::show(app);
            }
        })
        .build()
}

/// Why global shortcuts cannot work in this session, if they cannot:
/// a Wayland session has no X11 key grabs (a desktop portal would be needed).
pub(crate) fn unsupported_reason() -> Option<String> {
    let wayland = std::env::var_os("WAYLAND_DISPLAY").is_some()
        || std::env::var("XDG_SESSION_TYPE").is_ok_and(|t| t == "wayland");
    if cfg!(target_os = "linux") && wayland {
        return Some(
            "Global shortcuts are not available on Wayland. Bind a key to \
             “pizza-bot --quick-ask” in your desktop's keyboard settings instead."
                .to_owned(),
        );
    }
    if cfg!(target_os = "linux") && std::env::var_os("DISPLAY").is_none() {
        return Some("Global shortcuts need a display; none is available.".to_owned());
    }
    None
}

/// The registered quick-ask shortcut.
pub(crate) struct QuickAskShortcut<R: Runtime> {
    app: AppHandle<R>,
    current: Mutex<Option<Shortcut>>,
}

impl<R: Runtime> QuickAskShortcut<R> {
    pub(crate) fn new(app: AppHandle<R>) -> Self {
        Self {
            app,
            current: Mutex::new(None),
        }
    }

    /// Replaces the shortcut; on failure the previous one is registered again.
    pub(crate) fn set(&self, accelerator: Option<&str>) -> Result<(), ShortcutError> {
        let wanted = accelerator
            .map(|a| parse(a).ok_or_else(|| ShortcutError::Invalid(a.to_owned())))
            .transpose()?;
        let manager = self.app.global_shortcut();
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if *current == wanted && wanted.is_some() {
            return Ok(());
        }
        let previous = current.take();
        if let Some(old) = previous
            && let Err(error) = manager.unregister(old)
        {
            tracing::debug!(%error, "could not release the previous shortcut");
        }
        let Some(shortcut) = wanted else {
            return Ok(());
        };
        match manager.register(shortcut) {
            Ok(()) => {
                *current = Some(shortcut);
                Ok(())
            }
            Err(error) => {
                tracing::info!(%error, accelerator, "shortcut refused");
                // Nothing changes when the new one is refused.
                *current = previous.filter(|old| manager.register(*old).is_ok());
                Err(ShortcutError::Taken(
                    accelerator.unwrap_or_default().trim().to_owned(),
                ))
            }
        }
    }
}

/// Parses `Ctrl+Shift+Space`-style text; `None` when it is not a shortcut
/// (a modifier alone, an unknown key name).
fn parse(accelerator: &str) -> Option<Shortcut> {
    accelerator.trim().parse::<Shortcut>().ok()
}
