//! `log_read`, `log_open_folder`, `app_diagnostics`. The diagnostics text is
//! scrubbed by the log redaction once more before it reaches the window.

use crate::ipc::CommandRegistry;
use pizza_host::Platform;
use pizza_protocol::{AppDiagnostics, cmd};

pub(super) fn register(registry: &mut CommandRegistry) {
    registry
        .register::<cmd::LogRead, _, _>(|host, params| async move { host.log_read(params).await });
    registry.register::<cmd::LogOpenFolder, _, _>(|host, params| async move {
        host.log_open_folder(params).await
    });
    registry.register::<cmd::AppDiagnostics, _, _>(|host, params| async move {
        let diagnostics = host.app_diagnostics(params, platform()).await?;
        Ok(AppDiagnostics {
            text: crate::logging::redact(&diagnostics.text),
        })
    });
}

/// The web engine, named as the platform calls it.
fn platform() -> Platform {
    let engine = if cfg!(target_os = "linux") {
        "WebKitGTK"
    } else if cfg!(target_os = "macos") {
        "WKWebView"
    } else {
        "WebView2"
    };
    match tauri::webview_version() {
        Ok(version) => Platform::default().with_webview(format!("{engine} {version}")),
        Err(error) => {
            tracing::debug!(%error, "no web engine version");
            Platform::default()
        }
    }
}
