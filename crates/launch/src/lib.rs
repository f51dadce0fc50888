//! Launching Pizza Bot, shared by the app and `pizza-bot-open`.
//!
//! The app serves one instance per data root: a second launch on the same
//! root hands its arguments to the first over the session bus (the
//! single-instance plugin's call) and ends. The app makes that call first
//! thing in `main`, but by then the dynamic loader has spent ~70–100 ms
//! loading WebKitGTK's ~170 libraries for a process that only makes a D-Bus
//! call. `pizza-bot-open` (this crate's program, what the desktop entry
//! starts) makes the same call without them, in a few milliseconds, and
//! starts the app beside it (`exec`, same process) only when no app answers.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variable naming the data root; tests and portable setups use it.
pub const ENV_DATA_ROOT: &str = "PIZZA_DATA_ROOT";

/// The app's program, beside `pizza-bot-open` (`/usr/bin` when installed).
pub const APP_PROGRAM: &str = "pizza-bot";

/// The interface and method the single-instance plugin serves on its name.
const INTERFACE: &str = "org.SingleInstance.DBus";
const METHOD: &str = "ExecuteCallback";

/// The data root: `$PIZZA_DATA_ROOT`, else `pizza-bot` in the platform's
/// per-user data directory. The error is a sentence for the person. The
/// app opens it made absolute with [`std::path::absolute`], which is what
/// [`instance_key`] is given.
pub fn data_root() -> Result<PathBuf, String> {
    if let Some(root) = std::env::var_os(ENV_DATA_ROOT).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(root));
    }
    platform_data_dir()
        .map(|dir| dir.join("pizza-bot"))
        .ok_or_else(|| {
            format!("No per-user data directory is known on this system; set {ENV_DATA_ROOT}.")
        })
}

/// The XDG data home on Linux, Application Support on macOS, AppData on Windows.
fn platform_data_dir() -> Option<PathBuf> {
    let env_dir = |key: &str| {
        std::env::var_os(key)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if cfg!(target_os = "windows") {
        return env_dir("APPDATA");
    }
    let home = env_dir("HOME");
    if cfg!(target_os = "macos") {
        return home.map(|h| h.join("Library").join("Application Support"));
    }
    env_dir("XDG_DATA_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| home.map(|h| h.join(".local").join("share")))
}

/// One running instance per data root: a second launch on the same root
/// goes to the first, while test instances on their own roots stay apart.
/// A valid D-Bus name element sequence (the plugin's `dbus_id`). Both
/// programs are built together, so they hash alike.
pub fn instance_key(data_root: &Path) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    data_root.hash(&mut hasher);
    format!("app.pizzabot.desktop.i{:016x}", hasher.finish())
}

/// The bus name and object path the plugin serves for `instance_key` (its
/// `dbus_id`, without the plugin's optional version suffix, not enabled).
fn plugin_address(instance_key: &str) -> (String, String) {
    let name = format!("{instance_key}.SingleInstance");
    let path = format!("/{}", name.replace('.', "/").replace('-', "_"));
    (name, path)
}

/// Hands a launch's arguments (program name first, as the app reads them)
/// to the app running on this launch's data root (made absolute, as the app
/// opens it); true when it took them, and the launching process then has
/// nothing more to do. False when nothing answers: no app on that root, no
/// session bus, another version, or no data root to tell.
pub fn hand_over_to_running_app(args: &[OsString]) -> bool {
    match data_root().map(|root| std::path::absolute(&root)) {
        Ok(Ok(root)) => hand_over(&root, args),
        _ => false,
    }
}

/// [`hand_over_to_running_app`] for the app on `data_root`.
fn hand_over(data_root: &Path, args: &[OsString]) -> bool {
    let (name, path) = plugin_address(&instance_key(data_root));
    let Ok(connection) = zbus::blocking::Connection::session() else {
        return false;
    };
    let argv: Vec<String> = args
        .iter()
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

/// What a launch asks a terminal instead of the app: answered by the
/// program started, never handed to a running app (which would show its
/// window for an option it does not know).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerminalQuestion {
    Version,
    Help,
}

/// The first `--version`/`-V` or `--help`/`-h` among the arguments after
/// the program name.
pub fn terminal_question<S: AsRef<std::ffi::OsStr>>(
    args: impl IntoIterator<Item = S>,
) -> Option<TerminalQuestion> {
    args.into_iter()
        .skip(1)
        .find_map(|arg| match arg.as_ref().to_str() {
            Some("--version" | "-V") => Some(TerminalQuestion::Version),
            Some("--help" | "-h") => Some(TerminalQuestion::Help),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_keys_are_valid_dbus_names_and_differ_per_root() {
        let a = instance_key(Path::new("/tmp/a"));
        let b = instance_key(Path::new("/tmp/b"));
        assert_ne!(a, b);
        assert_eq!(a, instance_key(Path::new("/tmp/a")));
        for element in a.split('.') {
            assert!(!element.is_empty() && !element.starts_with(|c: char| c.is_ascii_digit()));
            assert!(
                element
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
            );
        }
    }

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

    #[test]
    fn terminal_questions_are_found_after_the_program_name() {
        assert_eq!(
            terminal_question(["pizza-bot", "--hidden", "-V"]),
            Some(TerminalQuestion::Version)
        );
        assert_eq!(
            terminal_question(["pizza-bot", "-h", "--version"]),
            Some(TerminalQuestion::Help)
        );
        assert_eq!(terminal_question(["--version"]), None);
        assert_eq!(terminal_question(["pizza-bot", "--thread", "t1"]), None);
    }
}
