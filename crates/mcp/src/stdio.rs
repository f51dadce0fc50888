//! A stdio server's child process: its own process group, an explicit
//! environment (the allowlist plus the entry's `env`), stderr into the tail,
//! and stdout filtered so only JSON-RPC lines reach the client — the first
//! other line is reported, so garbage on stdout is a clear error rather than
//! a silent hang.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::Path;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::watch;

use crate::tail::Tail;

/// Variables of the app's environment a server sees; `LC_*` and `XDG_*`
/// are matched by prefix.
const ENV_ALLOWLIST: &[&str] = &["PATH", "HOME", "USER", "LANG", "TMPDIR"];
const ENV_ALLOWED_PREFIXES: &[&str] = &["LC_", "XDG_"];
#[cfg(windows)]
const ENV_ALLOWLIST_WINDOWS: &[&str] = &[
    "SYSTEMROOT",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
    "PATHEXT",
    "TEMP",
    "TMP",
];

/// Bytes buffered between the stdout filter and the client.
const PIPE_BYTES: usize = 256 * 1024;

/// What the client needs of a started process.
pub(crate) struct StdioProcess {
    pub(crate) child: Child,
    /// The process group to signal on stop (the child's pid).
    pub(crate) group: Option<u32>,
    /// Filtered stdout.
    pub(crate) reader: DuplexStream,
    pub(crate) writer: ChildStdin,
    /// The first line on stdout that was not JSON, once there is one.
    pub(crate) garbage: watch::Receiver<Option<String>>,
}

/// The environment a server starts with.
pub(crate) fn child_env(
    host: impl Iterator<Item = (String, String)>,
    entry: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = host.filter(|(key, _)| allowed(key)).collect();
    env.extend(entry.iter().map(|(k, v)| (k.clone(), v.clone())));
    env
}

fn allowed(key: &str) -> bool {
    #[cfg(windows)]
    if ENV_ALLOWLIST_WINDOWS
        .iter()
        .any(|k| k.eq_ignore_ascii_case(key))
    {
        return true;
    }
    ENV_ALLOWLIST.contains(&key) || ENV_ALLOWED_PREFIXES.iter().any(|p| key.starts_with(p))
}

/// Starts `command`. The error is a sentence for the server's card.
pub(crate) fn spawn(
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: Option<&str>,
    tail: &Tail,
) -> Result<StdioProcess, String> {
    if command.trim().is_empty() {
        return Err("no command is set".to_owned());
    }
    let mut cmd = Command::new(command);
    cmd.args(args)
        .env_clear()
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = cwd.filter(|c| !c.trim().is_empty()) {
        if !Path::new(cwd).is_dir() {
            return Err(format!("the working folder {cwd} does not exist"));
        }
        cmd.current_dir(cwd);
    }
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        ErrorKind::NotFound => format!("command not found: {command}"),
        ErrorKind::PermissionDenied => format!("permission denied: {command}"),
        _ => format!("cannot start {command}: {e}"),
    })?;
    let group = child.id();
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(format!("cannot open the pipes of {command}"));
    };
    let stderr_tail = tail.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            stderr_tail.push(&line);
        }
    });
    let (client_side, mut filter_side) = tokio::io::duplex(PIPE_BYTES);
    let (garbage_tx, garbage) = watch::channel(None);
    let stdout_tail = tail.clone();
    tokio::spawn(async move {
        let mut stdout = BufReader::new(stdout);
        let mut line = Vec::new();
        loop {
            line.clear();
            match stdout.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let text = line.trim_ascii();
            if text.is_empty() {
                continue;
            }
            if serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok() {
                if filter_side.write_all(text).await.is_err()
                    || filter_side.write_all(b"\n").await.is_err()
                {
                    break;
                }
            } else {
                let shown: String = String::from_utf8_lossy(text).chars().take(200).collect();
                stdout_tail.push(&format!("(stdout, not JSON-RPC) {shown}"));
                garbage_tx.send_if_modified(|first| {
                    if first.is_none() {
                        *first = Some(shown);
                        true
                    } else {
                        false
                    }
                });
            }
        }
        let _ = filter_side.shutdown().await;
    });
    Ok(StdioProcess {
        child,
        group,
        reader: client_side,
        writer: stdin,
        garbage,
    })
}

/// Signals the whole process group (the server and whatever it started).
pub(crate) fn signal_group(group: u32, kill: bool) {
    #[cfg(unix)]
    {
        use rustix::process::{Pid, Signal, kill_process_group};
        let Some(pid) = i32::try_from(group).ok().and_then(Pid::from_raw) else {
            return;
        };
        let signal = if kill { Signal::KILL } else { Signal::TERM };
        if let Err(e) = kill_process_group(pid, signal)
            && e != rustix::io::Errno::SRCH
        {
            tracing::debug!(group, error = %e, "cannot signal an MCP server's process group");
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (group, kill);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowlisted_variables_pass_and_the_entry_wins() {
        let host = [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/a"),
            ("LC_ALL", "C"),
            ("XDG_RUNTIME_DIR", "/run/user/1"),
            ("AWS_SECRET_ACCESS_KEY", "nope"),
            ("OPENAI_API_KEY", "nope"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
        let entry = BTreeMap::from([("PATH".to_owned(), "/opt/bin".to_owned())]);
        let env = child_env(host, &entry);
        let keys: Vec<&str> = env.keys().map(String::as_str).collect();
        assert_eq!(keys, ["HOME", "LC_ALL", "PATH", "XDG_RUNTIME_DIR"]);
        assert_eq!(env["PATH"], "/opt/bin");
    }
}
