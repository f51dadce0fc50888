//! The libraries WebKit's processes find first.
//!
//! Loading WebKitGTK's ~170 libraries is most of the start of every process
//! that links it, and most of that is the loader looking names up through
//! the libraries in the order they were loaded. A few libraries answer most
//! of the lookups (`FOUND_FIRST` in src-tauri/build.rs, with the counts),
//! and WebKit's dependencies load them ~10th to ~80th. The app names them
//! before its other libraries (those it calls into, and the voice); WebKit's web and network processes load no code
//! of ours before theirs, so they start with the list (those of it this
//! machine's WebKitGTK links, handed over by build.rs) in `LD_PRELOAD`,
//! which loads them right after their program. Each is loaded by those
//! processes anyway, and where two of them define a name (JavaScriptCore's
//! copies of four of libstdc++'s string functions) the one found first is
//! the one found first without the preload: nothing binds differently,
//! only sooner.
//!
//! Only WebKit's processes get it. What the app starts for itself (MCP
//! servers, the eval worker) gets an environment of its own, and the
//! desktop's opener is started as the app was (opener.rs,
//! [`as_started`]). A person's own `LD_PRELOAD` is left as it is, without
//! the list; `PIZZA_WEBKIT_PRELOAD=off` starts WebKit's processes without
//! it.

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

/// The libraries, `:`-separated, when this build found WebKitGTK
/// (src-tauri/build.rs).
const LIBRARIES: Option<&str> = option_env!("PIZZA_WEB_PROCESS_PRELOAD");

/// The loader's variable.
const PRELOAD: &str = "LD_PRELOAD";

/// Whether [`prepare`] set [`PRELOAD`] in this process's environment.
static SET: AtomicBool = AtomicBool::new(false);

/// What WebKit's processes preload: `libraries`, unless the person set a
/// preload of their own (`theirs`) or `override_value` is `off`.
fn preload(
    override_value: Option<&str>,
    theirs: bool,
    libraries: Option<&'static str>,
) -> Option<&'static str> {
    if theirs || override_value.map(str::trim) == Some("off") {
        return None;
    }
    libraries.filter(|list| !list.is_empty())
}

/// Sets the preload for the processes WebKit starts. Called by
/// `webview::prepare_process`, before any thread exists (the environment
/// is process-wide, and WebKit's processes inherit it).
#[cfg(target_os = "linux")]
pub(crate) fn prepare() {
    let override_value = std::env::var("PIZZA_WEBKIT_PRELOAD").ok();
    let theirs = std::env::var_os(PRELOAD).is_some();
    let Some(libraries) = preload(override_value.as_deref(), theirs, LIBRARIES) else {
        return;
    };
    match webkit2gtk::glib::setenv(PRELOAD, libraries, false) {
        Ok(()) => SET.store(true, Ordering::Relaxed),
        Err(error) => eprintln!("Pizza Bot: could not set {PRELOAD}: {error}"),
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn prepare() {}

/// Makes `command` start in the environment the app was started with, as
/// far as the preload goes.
pub(crate) fn as_started(command: &mut Command) {
    leave_out(command, SET.load(Ordering::Relaxed));
}

fn leave_out(command: &mut Command, set: bool) {
    if set {
        command.env_remove(PRELOAD);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn webkit_processes_preload_the_libraries_unless_the_person_chose() {
        let libraries = Some("libvoice.so.1:libc.so.6");
        assert_eq!(preload(None, false, libraries), libraries);
        assert_eq!(preload(Some("on"), false, libraries), libraries);
        assert_eq!(preload(Some(" off"), false, libraries), None);
        assert_eq!(preload(None, true, libraries), None);
        assert_eq!(preload(None, false, None), None);
        assert_eq!(preload(None, false, Some("")), None);
    }

    /// The list this build hands WebKit's processes names libraries the
    /// loader can find, and nothing else.
    #[test]
    fn the_built_list_is_sonames() {
        let Some(list) = LIBRARIES else { return };
        for name in list.split(':') {
            assert!(
                name.starts_with("lib") && name.contains(".so."),
                "{name} in {list}"
            );
        }
    }

    #[test]
    fn what_the_app_starts_leaves_out_only_a_preload_it_set() {
        let preload_of = |command: &Command| {
            command
                .get_envs()
                .find(|(name, _)| *name == OsStr::new(PRELOAD))
                .map(|(_, value)| value.map(OsStr::to_owned))
        };
        let mut command = Command::new("true");
        leave_out(&mut command, false);
        assert_eq!(preload_of(&command), None, "inherited as it was");
        leave_out(&mut command, true);
        assert_eq!(preload_of(&command), Some(None), "removed");
    }
}
