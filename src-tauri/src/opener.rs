//! Hands a link or a file to the desktop's opener: the `open` crate's
//! launchers in its order (xdg-open first, then gio, ...), each started
//! detached and in the environment the app was started with, so a browser
//! or a document's app started from here does not carry what the app set
//! for WebKit's processes (web_preload.rs).
//!
//! As `open::that_detached`: a launcher that is missing, or that fails
//! within [`FAILURE_WINDOW`], hands over to the next; one that exits
//! cleanly, or is still running then, has taken the target (xdg-open may
//! wait for the app it started).

use std::ffi::OsStr;
use std::io;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long a launcher is watched for a failure before it is taken to
/// have handed the target on (the `open` crate's own window).
const FAILURE_WINDOW: Duration = Duration::from_millis(250);

/// Opens `target` (a web or mail link, or a file) with the desktop's
/// choice of app. The error is a sentence for the person.
pub(crate) fn open_detached(target: impl AsRef<OsStr>) -> io::Result<()> {
    let launchers = open::commands(target).into_iter().map(|mut command| {
        crate::web_preload::as_started(&mut command);
        command
    });
    hand_off(launchers, FAILURE_WINDOW)
}

/// Starts each of `launchers` in turn until one takes the target.
fn hand_off(launchers: impl IntoIterator<Item = Command>, window: Duration) -> io::Result<()> {
    let mut failed: Option<io::Error> = None;
    let mut missing: Option<io::Error> = None;
    for mut launcher in launchers {
        let program = launcher.get_program().to_string_lossy().into_owned();
        launcher
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // Out of the app's process group: a signal to the app (Ctrl+C in
        // its terminal) does not reach what it opened.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut launcher, 0);
        // The launcher's watcher is made first: without it no launcher is
        // started (one started could not be reaped, nor told from a failure).
        let (hand_over, to_watch) = mpsc::sync_channel::<Child>(1);
        let (sender, exited) = mpsc::channel();
        std::thread::Builder::new()
            .name("opener-wait".to_owned())
            .stack_size(64 * 1024)
            .spawn(move || {
                // Reaps the launcher whenever it exits; its answer counts
                // only within the window.
                if let Ok(mut child) = to_watch.recv() {
                    let _receiver_gone = sender.send(child.wait());
                }
            })?;
        match launcher.spawn() {
            Ok(child) => {
                let _watcher_gone = hand_over.send(child);
            }
            Err(error) => {
                missing = Some(error);
                continue;
            }
        }
        match exited.recv_timeout(window) {
            Ok(Ok(status)) if !status.success() => {
                failed.get_or_insert_with(|| {
                    io::Error::other(format!("{program} failed ({status})"))
                });
            }
            Ok(Err(error)) => return Err(error),
            Ok(Ok(_)) | Err(_) => return Ok(()),
        }
    }
    Err(failed
        .or(missing)
        .unwrap_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no app to open it with")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: Duration = Duration::from_secs(30);

    fn shell(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn a_missing_or_failing_launcher_hands_over_to_the_next() {
        let folder = tempfile::tempdir().unwrap();
        let opened = folder.path().join("opened");
        let missing = Command::new(folder.path().join("no-such-opener"));
        let failing = shell("exit 3");
        let taking = shell(&format!("touch '{}'", opened.display()));
        hand_off([missing, failing, taking], WINDOW).unwrap();
        assert!(opened.exists());
    }

    #[test]
    fn when_none_takes_it_the_first_failure_is_said() {
        let folder = tempfile::tempdir().unwrap();
        let missing = Command::new(folder.path().join("no-such-opener"));
        let error = hand_off([shell("exit 4"), missing], WINDOW).unwrap_err();
        assert!(error.to_string().starts_with("sh failed"), "{error}");
        let error = hand_off([], WINDOW).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn a_launcher_still_running_after_the_window_has_taken_it() {
        // Fails, but only long after the window: it is not given up on.
        let slow = shell("sleep 2; exit 1");
        hand_off([slow, shell("exit 1")], Duration::from_millis(50)).unwrap();
    }
}
