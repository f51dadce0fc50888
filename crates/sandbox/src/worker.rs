//! The worker process: caps its own memory, then serves runs from stdin on
//! one thread with a large stack, keeping the next interpreter ready so a
//! run starts without building one.

mod guest;
mod memory;
mod render;
mod session;
mod strings;

use std::io::{BufRead, Write};
use std::process::ExitCode;

use crate::wire::{FromWorker, GuestEnding, MEMORY_ENV, ToWorker};

/// The guest thread's stack. Boa recurses natively (parser, native calls
/// such as `Array.prototype.map` calling back into JS, JSON), so the JS
/// recursion limit must be reached well before this is.
const GUEST_STACK_BYTES: usize = 64 * 1024 * 1024;

/// Runs the worker loop on stdin/stdout until stdin closes: the whole of the
/// `pizza-eval-worker` program.
pub fn worker_main() -> ExitCode {
    let memory_bytes = std::env::var(MEMORY_ENV)
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    let guest = std::thread::Builder::new()
        .name("eval-guest".to_owned())
        .stack_size(GUEST_STACK_BYTES)
        .spawn(move || serve(memory_bytes));
    match guest.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => ExitCode::from(70),
        Err(e) => {
            eprintln!("pizza eval worker: cannot start the guest thread: {e}");
            ExitCode::from(71)
        }
    }
}

fn serve(memory_bytes: Option<u64>) -> ExitCode {
    // Before any guest code: whatever the guest does later runs under the cap.
    if let Some(bytes) = memory_bytes
        && let Err(e) = memory::cap(bytes)
    {
        eprintln!("pizza eval worker: cannot cap memory: {e}");
        return ExitCode::from(72);
    }
    let mut stdin = std::io::stdin().lock();
    let mut ready = guest::Prepared::new();
    let mut line = String::new();
    loop {
        let request = match receive(&mut stdin, &mut line) {
            None => return ExitCode::SUCCESS,
            Some(ToWorker::Run(request)) => request,
            // A reply that arrived after its run ended: nothing waits for it.
            Some(ToWorker::Reply { .. }) => continue,
        };
        let prepared = match ready.take() {
            Some(prepared) => Ok(prepared),
            None => guest::Prepared::new().ok_or(()),
        };
        let Ok(prepared) = prepared else {
            eprintln!("pizza eval worker: cannot build an interpreter");
            return ExitCode::from(75);
        };
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            guest::run(prepared, &request, &mut stdin)
        }));
        let report = match ran {
            Ok(Some(report)) => report,
            // stdin closed mid-run: the host is gone.
            Ok(None) => return ExitCode::SUCCESS,
            Err(panic) => {
                let message = panic_message(panic.as_ref());
                let (bridge_calls, logs_left_out) = session::end();
                let _ = send(&FromWorker::Failed {
                    ending: GuestEnding::Panicked,
                    message,
                    bridge_calls,
                    logs_left_out,
                });
                // Boa's thread-local state may be half-updated; a new worker is cheap.
                return ExitCode::from(70);
            }
        };
        if send(&report).is_err() {
            return ExitCode::SUCCESS;
        }
        ready = guest::Prepared::new();
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    format!("the interpreter panicked: {text}")
}

/// Writes one message as a line and flushes, so the host sees it even if
/// the worker is killed right after.
pub(crate) fn send(message: &FromWorker) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// Reads the next message the host sent, with the raw text of a reply
/// that carries one; `None` once stdin is closed.
pub(crate) fn receive(stdin: &mut impl BufRead, line: &mut String) -> Option<ToWorker> {
    loop {
        line.clear();
        match stdin.read_line(line) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        match serde_json::from_str::<ToWorker>(line) {
            Ok(ToWorker::Reply {
                id,
                text_bytes: Some(len),
                ..
            }) => {
                let mut bytes = vec![0; len];
                stdin.read_exact(&mut bytes).ok()?;
                let ok = match String::from_utf8(bytes) {
                    Ok(text) => serde_json::Value::String(text),
                    Err(e) => serde_json::Value::String(
                        String::from_utf8_lossy(e.as_bytes()).into_owned(),
                    ),
                };
                return Some(ToWorker::Reply {
                    id,
                    ok: Some(ok),
                    err: None,
                    text_bytes: None,
                });
            }
            Ok(message) => return Some(message),
            Err(e) => eprintln!("pizza eval worker: unreadable message: {e}"),
        }
    }
}
