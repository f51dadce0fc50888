//! A real Secret Service for keychain tests: `gnome-keyring-daemon` on the
//! current session bus, with a throwaway password and private data dirs.
//!
//! One daemon per test process. It runs under a small `sh` that holds our
//! end of a pipe: when the test process exits (however it exits), the pipe
//! closes and the shell stops the daemon, so the next test binary on the
//! same bus starts a fresh one.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

const NAME: &str = "org.freedesktop.secrets";
const READY_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug)]
struct Daemon {
    /// `None` when a daemon left on this private bus is reused.
    _child: Option<Mutex<Child>>,
    _dir: Option<tempfile::TempDir>,
}

/// The password goes to the daemon's stdin (`--unlock` reads it until EOF);
/// the shell's own stdin is the pipe whose end-of-file means "test is over".
const WRAPPER: &str = "printf %s \"$PIZZA_KEYRING_PASSWORD\" | \
    gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 & \
    pid=$!; read -r _ignored; kill \"$pid\" 2>/dev/null; wait";

static DAEMON: OnceLock<Result<Daemon, String>> = OnceLock::new();

/// Starts the Secret Service once per process and waits until it owns its
/// bus name. Fails (never skips) without a session bus or the daemon.
pub fn ensure() -> Result<(), String> {
    DAEMON
        .get_or_init(start)
        .as_ref()
        .map(|_| ())
        .map_err(Clone::clone)
}

fn start() -> Result<Daemon, String> {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return Err(
            "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset): run the keychain tests \
             under `dbus-run-session`, as `cargo xtask test` does"
                .to_owned(),
        );
    }
    if has_owner()? {
        // The previous test binary's daemon may still be exiting; if it
        // stays, it is one of ours (the test bus starts nothing by itself).
        let deadline = Instant::now() + Duration::from_secs(3);
        while has_owner()? {
            if Instant::now() > deadline {
                return Ok(Daemon {
                    _child: None,
                    _dir: None,
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let dir = tempfile::Builder::new()
        .prefix("pizza-keyring-")
        .tempdir()
        .map_err(|e| format!("temp dir: {e}"))?;
    let runtime = dir.path().join("runtime");
    let data = dir.path().join("data");
    for path in [&runtime, &data] {
        std::fs::create_dir_all(path).map_err(|e| format!("creating {}: {e}", path.display()))?;
    }
    set_private(&runtime)?;
    which("gnome-keyring-daemon", "gnome-keyring")?;
    let mut child = Command::new("sh")
        .args(["-c", WRAPPER])
        .env("PIZZA_KEYRING_PASSWORD", "pizza-throwaway-password")
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("XDG_DATA_HOME", &data)
        .env("HOME", dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("starting gnome-keyring-daemon (package gnome-keyring): {e}"))?;
    let deadline = Instant::now() + READY_TIMEOUT;
    // Calling the service before its name is owned would make D-Bus
    // activate a second, locked keyring: only ask whether the name is owned.
    while !has_owner()? {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("gnome-keyring-daemon exited early ({status})"));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "gnome-keyring-daemon did not take {NAME} within {READY_TIMEOUT:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(Daemon {
        _child: Some(Mutex::new(child)),
        _dir: Some(dir),
    })
}

fn which(program: &str, package: &str) -> Result<(), String> {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()));
    if found {
        Ok(())
    } else {
        Err(format!("{program} is not installed (package {package})"))
    }
}

fn has_owner() -> Result<bool, String> {
    let output = Command::new("dbus-send")
        .args([
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/",
            "org.freedesktop.DBus.NameHasOwner",
            &format!("string:{NAME}"),
        ])
        .output()
        .map_err(|e| format!("running dbus-send (package dbus-bin): {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "dbus-send NameHasOwner failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).contains("boolean true"))
}

fn set_private(dir: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("chmod {}: {e}", dir.display()))?;
    }
    let _ = dir;
    Ok(())
}

/// What `secret-tool lookup` finds for a keyring-crate entry, for tests that
/// check the keychain from outside the app.
pub fn lookup(service: &str, username: &str) -> Result<Option<String>, String> {
    let output = Command::new("secret-tool")
        .args(["lookup", "service", service, "username", username])
        .output()
        .map_err(|e| format!("running secret-tool (package libsecret-tools): {e}"))?;
    if output.status.success() {
        Ok(Some(
            String::from_utf8_lossy(&output.stdout)
                .trim_end()
                .to_owned(),
        ))
    } else {
        Ok(None)
    }
}
