//! Dev-only helpers shared by the workspace's tests. Never a dependency of
//! shipping code.

pub mod data_root;
pub mod mcp;
pub mod mock_provider;
pub mod notification_server;
pub mod portal_settings;
pub mod procs;
pub mod secret_service;
pub mod tray_watcher;

/// Runs `f`, a zbus blocking call, on a thread of its own. With zbus's
/// `tokio` feature (on in this workspace) a blocking call runs on a tokio
/// runtime of zbus's, and tokio refuses to start one on a thread already
/// running one, as an async test's is.
pub(crate) fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| match scope.spawn(f).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}
