//! Where the data lives: `$PIZZA_DATA_ROOT`, else the platform data directory.

use std::path::PathBuf;

pub(crate) const ENV_DATA_ROOT: &str = "PIZZA_DATA_ROOT";

pub(crate) fn resolve() -> Result<PathBuf, String> {
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
