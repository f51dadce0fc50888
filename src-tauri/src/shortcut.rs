//! The quick-ask global shortcut. On X11 the app grabs the key itself
//! ([`x11`]: one thread asleep until the key is pressed); on macOS and
//! Windows `tauri-plugin-global-shortcut` does. Registration waits for the
//! window system's answer, so callers use a blocking thread.

#[cfg(target_os = "linux")]
mod x11;

use std::sync::{Mutex, PoisonError};

use pizza_host::ShortcutError;
use tauri::{AppHandle, Runtime};
use tauri_plugin_global_shortcut::Shortcut;

/// Adds what the shortcut needs to the app: the plugin, except on Linux.
pub(crate) fn install<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    #[cfg(target_os = "linux")]
    return builder;
    #[cfg(not(target_os = "linux"))]
    return builder.plugin(plugin());
}

/// The plugin, with every press of a registered shortcut opening quick-ask
/// (the quick-ask shortcut is the only one the app registers).
#[cfg(not(target_os = "linux"))]
fn plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    use tauri_plugin_global_shortcut::ShortcutState;
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
    /// The key grabs, made when a shortcut is first set.
    #[cfg(target_os = "linux")]
    grabs: std::sync::OnceLock<Result<x11::Grabs, String>>,
}

impl<R: Runtime> QuickAskShortcut<R> {
    pub(crate) fn new(app: AppHandle<R>) -> Self {
        Self {
            app,
            current: Mutex::new(None),
            #[cfg(target_os = "linux")]
            grabs: std::sync::OnceLock::new(),
        }
    }

    /// Replaces the shortcut; on failure the previous one is registered again.
    pub(crate) fn set(&self, accelerator: Option<&str>) -> Result<(), ShortcutError> {
        let wanted = accelerator
            .map(|a| parse(a).ok_or_else(|| ShortcutError::Invalid(a.to_owned())))
            .transpose()?;
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if *current == wanted && wanted.is_some() {
            return Ok(());
        }
        let previous = current.take();
        if let Some(old) = previous
            && let Err(error) = self.unregister(old)
        {
            tracing::debug!(%error, "could not release the previous shortcut");
        }
        let Some(shortcut) = wanted else {
            return Ok(());
        };
        match self.register(shortcut) {
            Ok(()) => {
                *current = Some(shortcut);
                Ok(())
            }
            Err(error) => {
                tracing::info!(%error, accelerator, "shortcut refused");
                // Nothing changes when the new one is refused.
                *current = previous.filter(|old| self.register(*old).is_ok());
                Err(ShortcutError::Taken(
                    accelerator.unwrap_or_default().trim().to_owned(),
                ))
            }
        }
    }

    #[cfg(target_os = "linux")]
    fn grabs(&self) -> Result<&x11::Grabs, String> {
        let app = self.app.clone();
        self.grabs
            .get_or_init(|| {
                x11::Grabs::start(move || crate::quick_ask::show(&app)).map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    #[cfg(target_os = "linux")]
    fn register(&self, shortcut: Shortcut) -> Result<(), String> {
        self.grabs()?
            .set(Some(&shortcut))
            .map_err(|e| e.to_string())
    }

    #[cfg(target_os = "linux")]
    fn unregister(&self, _shortcut: Shortcut) -> Result<(), String> {
        self.grabs()?.set(None).map_err(|e| e.to_string())
    }

    #[cfg(not(target_os = "linux"))]
    fn register(&self, shortcut: Shortcut) -> Result<(), String> {
        use tauri_plugin_global_shortcut::GlobalShortcutExt;
        self.app
            .global_shortcut()
            .register(shortcut)
            .map_err(|e| e.to_string())
    }

    #[cfg(not(target_os = "linux"))]
    fn unregister(&self, shortcut: Shortcut) -> Result<(), String> {
        use tauri_plugin_global_shortcut::GlobalShortcutExt;
        self.app
            .global_shortcut()
            .unregister(shortcut)
            .map_err(|e| e.to_string())
    }
}

/// Parses `Ctrl+Shift+Space`-style text; `None` when it is not a shortcut
/// (a modifier alone, an unknown key name).
fn parse(accelerator: &str) -> Option<Shortcut> {
    accelerator.trim().parse::<Shortcut>().ok()
}
