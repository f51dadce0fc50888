//! One eval call on one worker: send the program, serve its bridge calls
//! concurrently, collect its logs, and end it on the deadline or on cancel
//! by killing the worker — the host never waits on the guest.

use std::future::Future;
use std::pin::Pin;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::error::{EvalError, EvalFailure};
use crate::process::{Incoming, WorkerProcess};
use crate::request::{Bridge, EvalOutcome, EvalRequest, Limits};
use crate::wire::{FromWorker, GuestEnding, RunRequest, ToWorker, encode_reply};

const MIB: u64 = 1024 * 1024;

/// How the call left its worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WorkerAfter {
    /// The run ended inside the interpreter; the worker serves the next one.
    Reusable,
    /// Killed or dead.
    Gone,
}

type BridgeFuture<'a> =
    Pin<Box<dyn Future<Output = (u64, Result<serde_json::Value, String>)> + Send + 'a>>;

pub(crate) async fn run(
    worker: &mut WorkerProcess,
    request: EvalRequest,
    limits: &Limits,
    bridge: &dyn Bridge,
    cancel: &CancellationToken,
    deadline: Instant,
) -> (Result<EvalOutcome, EvalFailure>, WorkerAfter) {
    let timeout = request.timeout.unwrap_or(limits.timeout);
    let mut logs = Logs::default();
    let run = ToWorker::Run(RunRequest {
        code: request.code,
        bridges: request.bridges,
        task: request.task,
        max_result_chars: limits.max_result_chars,
        max_log_chars: limits.max_log_chars,
        max_bridge_calls: limits.max_bridge_calls,
    });
    let mut garbage: Option<String> = None;
    if !worker.send(&run) {
        return dead_worker(worker, logs, garbage, limits, cancel, deadline, timeout).await;
    }
    let mut calls: FuturesUnordered<BridgeFuture<'_>> = FuturesUnordered::new();
    loop {
        tokio::select! {
            biased;
            () = cancel.cancelled() => {
                worker.kill();
                return (Err(logs.fail(EvalError::Cancelled)), WorkerAfter::Gone);
            }
            () = tokio::time::sleep_until(deadline) => {
                worker.kill();
                return (Err(logs.fail(timeout_error(timeout))), WorkerAfter::Gone);
            }
            Some((id, outcome)) = calls.next(), if !calls.is_empty() => {
                // A failed send means the worker died; its stdout closing says so next.
                worker.send_bytes(encode_reply(id, outcome));
            }
            incoming = worker.incoming.recv() => match incoming {
                Some(Incoming::Message(FromWorker::Call { id, call })) => {
                    calls.push(Box::pin(async move { (id, bridge.call(call).await) }));
                }
                Some(Incoming::Message(FromWorker::Log { text })) => logs.push(&text),
                Some(Incoming::Message(FromWorker::Done {
                    result,
                    result_chars_total,
                    bridge_calls,
                    logs_left_out,
                })) => {
                    let logs = logs.finish(logs_left_out);
                    let outcome = EvalOutcome { result, result_chars_total, logs, bridge_calls };
                    return (Ok(outcome), WorkerAfter::Reusable);
                }
                Some(Incoming::Message(FromWorker::Failed { ending, message, logs_left_out, .. })) => {
                    let (error, after) = match ending {
                        GuestEnding::Thrown => (EvalError::Thrown { message }, WorkerAfter::Reusable),
                        GuestEnding::NeverSettled => (EvalError::NeverSettled, WorkerAfter::Reusable),
                        GuestEnding::BridgeLimit => (
                            EvalError::BridgeLimit { limit: limits.max_bridge_calls },
                            WorkerAfter::Reusable,
                        ),
                        GuestEnding::Panicked => {
                            worker.kill();
                            (EvalError::Crashed { detail: message }, WorkerAfter::Gone)
                        }
                    };
                    let logs = logs.finish(logs_left_out);
                    return (Err(EvalFailure { error, logs }), after);
                }
                Some(Incoming::Garbage(line)) => {
                    garbage.get_or_insert(line);
                }
                None => {
                    return dead_worker(worker, logs, garbage, limits, cancel, deadline, timeout).await;
                }
            },
        }
    }
}

fn timeout_error(timeout: std::time::Duration) -> EvalError {
    // Whole tenths: "1.5 s", "120 s".
    let secs = (timeout.as_secs_f64() * 10.0).round() / 10.0;
    EvalError::Timeout { secs }
}

/// The worker's stdout closed: it died. Out of memory when it said so.
async fn dead_worker(
    worker: &mut WorkerProcess,
    logs: Logs,
    garbage: Option<String>,
    limits: &Limits,
    cancel: &CancellationToken,
    deadline: Instant,
    timeout: std::time::Duration,
) -> (Result<EvalOutcome, EvalFailure>, WorkerAfter) {
    let report = tokio::select! {
        biased;
        () = cancel.cancelled() => None,
        () = tokio::time::sleep_until(deadline) => None,
        report = worker.exit_report() => Some(report),
    };
    let Some((status, stderr)) = report else {
        worker.kill();
        let error = if cancel.is_cancelled() {
            EvalError::Cancelled
        } else {
            timeout_error(timeout)
        };
        return (Err(logs.fail(error)), WorkerAfter::Gone);
    };
    let out_of_memory = stderr
        .iter()
        .any(|line| line.contains("memory allocation of") && line.contains("failed"));
    let error = if out_of_memory {
        EvalError::OutOfMemory {
            mib: limits.memory_bytes.div_ceil(MIB),
        }
    } else {
        let mut detail = status;
        if let Some(last) = stderr.iter().rev().find(|l| !l.trim().is_empty()) {
            detail.push_str(": ");
            detail.push_str(last.trim());
        } else if let Some(line) = garbage {
            detail.push_str(": it wrote ");
            detail.push_str(&line);
        }
        EvalError::Crashed { detail }
    };
    (Err(logs.fail(error)), WorkerAfter::Gone)
}

/// Console output as it arrived; the worker already kept it within the cap.
#[derive(Debug, Default)]
struct Logs {
    text: String,
}

impl Logs {
    fn push(&mut self, text: &str) {
        self.text.push_str(text);
    }

    fn finish(mut self, left_out: usize) -> String {
        if left_out > 0 {
            if !self.text.is_empty() && !self.text.ends_with('\n') {
                self.text.push('\n');
            }
            self.text.push_str(&format!(
                "[{left_out} more characters of console output left out]\n"
            ));
        }
        self.text
    }

    fn fail(self, error: EvalError) -> EvalFailure {
        EvalFailure {
            error,
            logs: self.text,
        }
    }
}
