//! The library WebKit's processes find first.
//!
//! WebKitGTK links flite's voices for speech synthesis, and one of them
//! (`cmu_time_awb`) exports some 31,000 symbols (`frame_0`, `frame_1`, ...)
//! that its own tables point at by name. The loader looks each name up
//! through every library loaded before the one defining it, and WebKit's
//! own dependencies load the voice about eightieth: most of the loader's
//! work, ~20 ms of CPU at the start of every process that links WebKit.
//! The app names the voice among its own libraries (src-tauri/build.rs);
//! WebKit's web and network processes load no code of ours before it, so
//! they start with it in `LD_PRELOAD`, which puts it right after their
//! program. The voice defines no name another library does, so nothing
//! binds differently; only sooner.
//!
//! Only WebKit's processes get it. What the app starts for itself (MCP
//! servers, the eval worker) gets an environment of its own, and the
//! desktop's opener is started as the app was (opener.rs,
//! [`as_started`]). A person's own `LD_PRELOAD` is left as it is, without
//! the voice; `PIZZA_WEBKIT_PRELOAD=off` starts WebKit's processes without
//! it.

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

/// The voice, when this build's WebKitGTK links it (src-tauri/build.rs).
const VOICE: Option<&str> = option_env!("PIZZA_WEB_PROCESS_PRELOAD");

/// The loader's variable.
const PRELOAD: &str = "LD_PRELOAD";

/// Whether [`prepare`] set [`PRELOAD`] in this process's environment.
static SET: AtomicBool = AtomicBool::new(false);

/// What WebKit's processes preload: `voice`, unless the person set a
/// preload of their own (`theirs`) or `override_value` is `off`.
fn preload(
    override_value: Option<&str>,
    theirs: bool,
    voice: Option<&'static str>,
) -> Option<&'static str> {
    if theirs || override_value.map(str::trim) == Some("off") {
        return None;
    }
    voice
}

/// Sets the preload for the processes WebKit starts. Called by
/// `webview::prepare_process`, before any thread exists (the environment
/// is process-wide, and WebKit's processes inherit it).
#[cfg(target_os = "linux")]
pub(crate) fn prepare() {
    let override_value = std::env::var("PIZZA_WEBKIT_PRELOAD").ok();
    let theirs = std::env::var_os(PRELOAD).is_some();
    let Some(voice) = preload(override_value.as_deref(), theirs, VOICE) else {
        return;
    };
    match webkit2gtk::glib::setenv(PRELOAD, voice, false) {
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
    fn webkit_processes_preload_the_voice_unless_the_person_chose() {
        let voice = Some("libvoice.so.1");
        assert_eq!(preload(None, false, voice), voice);
        assert_eq!(preload(Some("on"), false, voice), voice);
        assert_eq!(preload(Some(" off"), false, voice), None);
        assert_eq!(preload(None, true, voice), None);
        assert_eq!(preload(None, false, None), None);
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
