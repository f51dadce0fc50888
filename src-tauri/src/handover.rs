//! A second launch hands over to the running app before anything else.
//!
//! Launching the app while it runs (a launcher on a desktop without a tray,
//! a desktop's shortcut for quick-ask, `--thread` from a script) shows the
//! running app's window instead of starting another app. The single-instance
//! plugin does that once the second process has opened the data root, its
//! log and the store, and made its runtime and GTK's display connection:
//! work thrown away a moment later, while the running app makes its window
//! on the same cores. So a launch first makes the plugin's own D-Bus call to
//! the app running on its data root, and ends when that app took its
//! arguments. When nothing answers (no app running, no session bus, another
//! version), the start goes on and the plugin decides as before.

use std::path::Path;

/// The interface the single-instance plugin serves on its name.
const INTERFACE: &str = "org.SingleInstance.DBus";
const METHOD: &str = "ExecuteCallback";

/// Hands this launch's arguments to the app running on `data_root`; true
/// when it took them (this process then has nothing more to do).
pub(crate) fn to_running_app(data_root: &Path) -> bool {
    let (name, path) = plugin_address(&crate::startup::instance_key(data_root));
    let Ok(connection) = zbus::blocking::Connection::session() else {
        return false;
    };
    let argv: Vec<String> = std::env::args_os()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let cwd = std::env::current_dir()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    // A name no app owns is answered at once (it is not activatable).
    connection
        .call_method(
            Some(name.as_str()),
            path.as_str(),
            Some(INTERFACE),
            METHOD,
            &(argv, cwd),
        )
        .is_ok()
}

/// The bus name and object path the plugin serves for `instance_key` (its
/// `dbus_id`, without the plugin's optional version suffix, not enabled).
fn plugin_address(instance_key: &str) -> (String, String) {
    let name = format!("{instance_key}.SingleInstance");
    let path = format!("/{}", name.replace('.', "/").replace('-', "_"));
    (name, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_is_the_plugins() {
        assert_eq!(
            plugin_address("app.pizzabot.desktop.i00ff"),
            (
                "app.pizzabot.desktop.i00ff.SingleInstance".to_owned(),
                "/app/pizzabot/desktop/i00ff/SingleInstance".to_owned()
            )
        );
    }
}
