//! Startup and the event loop.

use crate::ipc::{CommandRegistry, HostSlot};
use crate::{data_root, logging};
use pizza_host::{DataRoot, Host, HostOptions};
use pizza_protocol::ApiError;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::process::ExitCode;
use tauri::Manager;

/// Exit code when the app could not start (bad data root and the like).
const EXIT_STARTUP_FAILED: u8 = 2;

pub(crate) fn run() -> ExitCode {
    let (slot, _log_guard, instance_key) = match open_host() {
        Ok((host, guard)) => {
            let key = instance_key(host.data_root().path());
            (HostSlot::Ready(host), guard, Some(key))
        }
        Err(message) => {
            // Said on stderr for terminals and logs, and in the window for people.
            eprintln!("Pizza Bot cannot start: {message}");
            let guard = logging::init_stderr_only();
            (HostSlot::Failed(ApiError::general(message)), guard, None)
        }
    };
    let failed = matches!(slot, HostSlot::Failed(_));
    let host = match &slot {
        HostSlot::Ready(host) => Some(host.clone()),
        HostSlot::Failed(_) => None,
    };

    let mut builder = tauri::Builder::default();
    if let Some(key) = instance_key {
        builder = builder.plugin(
            tauri_plugin_single_instance::Builder::new()
                .dbus_id(key)
                .callback(|app, _args, _cwd| show_main_window(app))
                .build(),
        );
    }
    let app = builder
        .plugin(tauri_plugin_dialog::init())
        .on_page_load(crate::webview::on_page_load)
        .invoke_handler(crate::ipc::invoke_handler(CommandRegistry::new(), slot))
        .build(tauri::generate_context!("../tauri.conf.json"));
    let app = match app {
        Ok(app) => app,
        Err(error) => {
            eprintln!("Pizza Bot cannot open its window: {error}");
            tracing::error!(%error, "tauri failed to start");
            return ExitCode::FAILURE;
        }
    };
    if let Some(host) = &host {
        crate::events::forward(app.handle().clone(), host);
    }
    let code = app.run_return(|_app, _event| {});
    if let Some(host) = host {
        // Checkpoint the WAL and release the database before the process ends.
        tauri::async_runtime::block_on(host.close());
    }
    tracing::info!(code, "exiting");
    if failed {
        ExitCode::from(EXIT_STARTUP_FAILED)
    } else {
        ExitCode::from(u8::try_from(code).unwrap_or(1))
    }
}

/// Resolves and prepares the data root, starts file logging there, and opens
/// the host. The error is a sentence naming the path and the reason.
fn open_host() -> Result<(Host, logging::LogGuard), String> {
    let path = data_root::resolve()?;
    let data_root = DataRoot::prepare(path).map_err(|e| e.to_string())?;
    let guard = logging::init(&data_root.logs_dir());
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "starting Pizza Bot");
    let host = tauri::async_runtime::block_on(Host::open(data_root, host_options()))
        .map_err(|e| e.to_string())?;
    Ok((host, guard))
}

/// The OS services the host gets: provider secrets in the real keychain.
fn host_options() -> HostOptions {
    HostOptions::default().with_secrets(std::sync::Arc::new(
        crate::keychain::KeychainSecrets::default(),
    ))
}

/// One running instance per data root: a second launch on the same root
/// focuses the first, while test instances on their own roots stay apart.
fn instance_key(data_root: &Path) -> String {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    data_root.hash(&mut hasher);
    format!("app.pizzabot.desktop.i{:016x}", hasher.finish())
}

pub(crate) fn show_main_window<R: tauri::Runtime>(app: &tauri::AppHandle<R>) {
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    // Each step can fail on exotic window managers; the rest still helps.
    let _ = window.show();
    let _ = window.unminimize();
    let _ = window.set_focus();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_keys_are_valid_dbus_names_and_differ_per_root() {
        let a = instance_key(Path::new("/tmp/a"));
        let b = instance_key(Path::new("/tmp/b"));
        assert_ne!(a, b);
        for element in a.split('.') {
            assert!(!element.is_empty() && !element.starts_with(|c: char| c.is_ascii_digit()));
            assert!(
                element
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
            );
        }
    }
}
