//! WebKit's network process, ended while no webview is open.
//!
//! WebKit starts a network process for the web context (cookies, caches,
//! storage, the connections of pages) with the first webview and keeps it
//! for the context's life, which is the app's: Tauri keeps the context on
//! Linux, and WebKit has no call to end that process. The app's pages are
//! its own bundle, served by the app itself, and keep nothing there, so
//! with every window closed to the tray the process only holds memory
//! (~30 MiB PSS, a fifth of the app's then). It is ended when the last
//! webview goes, and WebKit starts another with the next one, as it does
//! after a crash of that process; the host never used it.
//!
//! Under a WebDriver (Tauri's `TAURI_WEBVIEW_AUTOMATION`, as the end-to-end
//! tests run) the process is kept: WebKit ends the driver's session with
//! it.

#[cfg(target_os = "linux")]
use std::path::Path;

/// The executable WebKitGTK runs as its network process.
#[cfg(target_os = "linux")]
const EXECUTABLE: &str = "WebKitNetworkProcess";

/// Ends this process's WebKit network processes, unless a WebDriver
/// drives the app; returns how many.
#[cfg(target_os = "linux")]
pub(crate) fn end() -> usize {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    if std::env::var("TAURI_WEBVIEW_AUTOMATION").is_ok_and(|value| value == "true") {
        return 0;
    }
    let mut ended = 0;
    for pid in children(Path::new("/proc"), std::process::id()) {
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
        if exe.file_name().is_none_or(|name| name != EXECUTABLE) {
            continue;
        }
        let Ok(raw) = i32::try_from(pid) else {
            continue;
        };
        match kill(Pid::from_raw(raw), Signal::SIGTERM) {
            Ok(()) => ended += 1,
            Err(error) => tracing::warn!(%error, pid, "could not end WebKit's network process"),
        }
    }
    ended
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn end() -> usize {
    0
}

/// The pids of `parent`'s children, from each process's `stat` under
/// `proc_root`.
#[cfg(target_os = "linux")]
fn children(proc_root: &Path, parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(proc_root) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(proc_root.join(pid.to_string()).join("stat"))
                .ok()
                .and_then(|stat| parent_of(&stat))
                == Some(parent)
        })
        .collect()
}

/// The parent pid in a `/proc/<pid>/stat` line: the second field after the
/// command name, which is in parentheses and may hold spaces and ')'.
#[cfg(target_os = "linux")]
fn parent_of(stat: &str) -> Option<u32> {
    let (_, after_name) = stat.rsplit_once(')')?;
    after_name.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_past_a_command_name_with_spaces_and_parentheses() {
        assert_eq!(parent_of("812 (WebKitNetworkPr) S 800 800 1 0"), Some(800));
        assert_eq!(parent_of("9 (a) b (c)) R 42 9 9"), Some(42));
        assert_eq!(parent_of("9 (cut"), None);
        assert_eq!(parent_of("9 (x) S notanumber"), None);
    }

    #[test]
    fn children_are_found_by_their_parent() -> std::io::Result<()> {
        let root = tempfile::tempdir()?;
        for (pid, stat) in [
            ("10", "10 (pizza-bot) S 1 10 10"),
            ("11", "11 (WebKitNetworkPr) S 10 10 10"),
            ("12", "12 (WebKitWebProces) S 10 10 10"),
            ("13", "13 (bash) S 1 13 13"),
        ] {
            std::fs::create_dir(root.path().join(pid))?;
            std::fs::write(root.path().join(pid).join("stat"), stat)?;
        }
        std::fs::create_dir(root.path().join("self"))?;
        let mut found = children(root.path(), 10);
        found.sort_unstable();
        assert_eq!(found, [11, 12]);
        assert!(children(root.path(), 99).is_empty());
        Ok(())
    }
}
