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

/// Serves `interface` at `path` under the bus name `name` on the current
/// session bus (run tests under `dbus-run-session`), for the test double
/// `what` ("the tray host"). Fails (never skips) without a session bus or
/// when the name is taken.
pub(crate) fn serve_on_session_bus<I: zbus::object_server::Interface>(
    what: &str,
    name: &'static str,
    path: &'static str,
    interface: I,
) -> Result<zbus::blocking::Connection, String> {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return Err(format!(
            "no D-Bus session bus for {what} (DBUS_SESSION_BUS_ADDRESS is unset): run the tests \
             under `dbus-run-session`, as `cargo xtask test` does"
        ));
    }
    off_runtime(|| {
        zbus::blocking::connection::Builder::session()
            .and_then(|b| b.serve_at(path, interface))
            .and_then(|b| b.name(name))
            .and_then(zbus::blocking::connection::Builder::build)
    })
    .map_err(|e| format!("starting {what} on the session bus: {e}"))
}

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
