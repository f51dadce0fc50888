//! A worker process on the host side: spawned with an explicit environment
//! in its own process group, its stdin fed by a writer task (so the call
//! loop never waits on a full pipe), its stdout parsed by a reader task, and
//! the last lines of its stderr kept for the crash sentence.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::command::WorkerCommand;
use crate::wire::{FromWorker, MEMORY_ENV, ToWorker};

/// Variables of the app's environment the worker sees; nothing secret.
const ENV_ALLOWLIST: &[&str] = &["PATH", "HOME", "LANG"];
/// Messages parsed ahead of the call loop.
const FROM_WORKER_QUEUE: usize = 256;
const STDERR_TAIL_LINES: usize = 20;
const STDERR_LINE_MAX_CHARS: usize = 500;

/// What came out of the worker's stdout.
#[derive(Debug)]
pub(crate) enum Incoming {
    Message(FromWorker),
    /// A line that is not a protocol message (a bug, or a library writing
    /// to stdout); kept for the crash sentence.
    Garbage(String),
}

#[derive(Debug)]
pub(crate) struct WorkerProcess {
    child: Child,
    pid: Option<u32>,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    pub(crate) incoming: mpsc::Receiver<Incoming>,
    stderr: StderrTail,
    stderr_task: Option<JoinHandle<()>>,
    live: Arc<AtomicUsize>,
    pub(crate) last_used: tokio::time::Instant,
}

impl WorkerProcess {
    /// Starts a worker. Must run inside a tokio runtime.
    pub(crate) fn spawn(
        command: &WorkerCommand,
        memory_bytes: u64,
        live: &Arc<AtomicUsize>,
    ) -> std::io::Result<Self> {
        let mut cmd = Command::new(&command.program);
        cmd.args(&command.args)
            .env_clear()
            .envs(std::env::vars().filter(|(key, _)| ENV_ALLOWLIST.contains(&key.as_str())))
            .env(MEMORY_ENV, memory_bytes.to_string())
            // One malloc arena: the address-space cap then measures the
            // guest's heap, not per-thread 64 MiB arena reservations.
            .env("MALLOC_ARENA_MAX", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = cmd.spawn()?;
        let pid = child.id();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(std::io::Error::other("the worker's pipes are missing"));
        };
        live.fetch_add(1, Ordering::SeqCst);

        let (outgoing, mut to_write) = mpsc::unbounded_channel::<Vec<u8>>();
        tokio::spawn(async move {
            let mut stdin = stdin;
            while let Some(line) = to_write.recv().await {
                if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
            // Dropping stdin closes it: the worker sees EOF and exits.
        });

        let (incoming_tx, incoming) = mpsc::channel(FROM_WORKER_QUEUE);
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
                let item = match serde_json::from_slice::<FromWorker>(text) {
                    Ok(message) => Incoming::Message(message),
                    Err(_) => {
                        Incoming::Garbage(String::from_utf8_lossy(text).chars().take(200).collect())
                    }
                };
                if incoming_tx.send(item).await.is_err() {
                    break;
                }
            }
        });

        let tail = StderrTail::default();
        let stderr_tail = tail.clone();
        let stderr_task = tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                stderr_tail.push(&line);
            }
        });

        Ok(Self {
            child,
            pid,
            outgoing,
            incoming,
            stderr: tail,
            stderr_task: Some(stderr_task),
            live: Arc::clone(live),
            last_used: tokio::time::Instant::now(),
        })
    }

    /// Queues a message for the worker; never waits.
    pub(crate) fn send(&self, message: &ToWorker) -> bool {
        match serde_json::to_vec(message) {
            Ok(mut line) => {
                line.push(b'\n');
                self.outgoing.send(line).is_ok()
            }
            Err(_) => false,
        }
    }

    /// Queues bytes already framed for the worker; never waits.
    pub(crate) fn send_bytes(&self, bytes: Vec<u8>) -> bool {
        self.outgoing.send(bytes).is_ok()
    }

    /// Whether the process already exited (a spare that died while waiting).
    pub(crate) fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for the exit of a worker whose stdout closed and describes it:
    /// (exit status, stderr tail).
    pub(crate) async fn exit_report(&mut self) -> (String, Vec<String>) {
        let status = match self.child.wait().await {
            Ok(status) => describe_status(status),
            Err(e) => format!("unknown exit ({e})"),
        };
        // The process is gone, so its stderr is at EOF; the task ends now.
        if let Some(task) = self.stderr_task.take() {
            let _ = task.await;
        }
        (status, self.stderr.lines())
    }

    /// SIGKILL to the worker's process group (and the worker itself, should
    /// the group be gone). Returns at once; tokio reaps the process.
    pub(crate) fn kill(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self.pid.and_then(|pid| i32::try_from(pid).ok()) {
            use rustix::process::{Pid, Signal, kill_process_group};
            if let Some(pid) = Pid::from_raw(pid)
                && let Err(e) = kill_process_group(pid, Signal::KILL)
                && e != rustix::io::Errno::SRCH
            {
                tracing::debug!(error = %e, "cannot signal an eval worker's process group");
            }
        }
        let _ = self.child.start_kill();
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill();
        }
        self.live.fetch_sub(1, Ordering::SeqCst);
    }
}

fn describe_status(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                6 => "SIGABRT",
                9 => "SIGKILL",
                11 => "SIGSEGV",
                7 => "SIGBUS",
                _ => "",
            };
            return if name.is_empty() {
                format!("killed by signal {signal}")
            } else {
                format!("killed by signal {signal} ({name})")
            };
        }
    }
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => status.to_string(),
    }
}

/// The last lines the worker wrote to stderr.
#[derive(Debug, Clone, Default)]
struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
}

impl StderrTail {
    fn push(&self, line: &str) {
        let line: String = line
            .trim_end()
            .chars()
            .take(STDERR_LINE_MAX_CHARS)
            .collect();
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == STDERR_TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    fn lines(&self) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        lines.iter().cloned().collect()
    }
}
