//! The state of the run in progress: pending bridge promises, the call
//! budget and the log budget. Thread-local because boa's native functions
//! can only capture `Copy` or traced data, and the guest runs on one thread.

use std::cell::RefCell;
use std::collections::HashMap;

use boa_engine::object::builtins::JsPromise;
use boa_engine::{Context, JsNativeError, JsValue};

use crate::error::bridge_limit_message;
use crate::request::BridgeCall;
use crate::wire::FromWorker;

/// What a finished run leaves to report.
#[derive(Default)]
struct Session {
    /// Ids keep counting across runs, so a late reply for an earlier run
    /// finds nothing here.
    next_id: u64,
    pending: HashMap<u64, boa_engine::builtins::promise::ResolvingFunctions>,
    calls: u32,
    max_calls: u32,
    limit_hit: bool,
    log_room: usize,
    logs_left_out: usize,
}

thread_local! {
    static SESSION: RefCell<Session> = RefCell::new(Session::default());
}

/// Starts a run's budgets.
pub(super) fn begin(max_calls: u32, max_log_chars: usize) {
    SESSION.with_borrow_mut(|s| {
        s.pending.clear();
        s.calls = 0;
        s.max_calls = max_calls;
        s.limit_hit = false;
        s.log_room = max_log_chars;
        s.logs_left_out = 0;
    });
}

/// Ends a run: drops the promises nobody will answer (they hold objects of
/// the context about to be dropped) and returns (bridge calls, log chars
/// left out).
pub(super) fn end() -> (u32, usize) {
    SESSION.with_borrow_mut(|s| {
        s.pending.clear();
        (s.calls, s.logs_left_out)
    })
}

pub(super) fn limit_hit() -> bool {
    SESSION.with_borrow(|s| s.limit_hit)
}

pub(super) fn has_pending() -> bool {
    SESSION.with_borrow(|s| !s.pending.is_empty())
}

/// Sends a bridge call and returns its promise; past the call budget the
/// promise rejects instead, naming the limit.
pub(super) fn start_call(call: BridgeCall, context: &mut Context) -> JsValue {
    let over = SESSION.with_borrow_mut(|s| {
        if s.calls >= s.max_calls {
            s.limit_hit = true;
            Some(s.max_calls)
        } else {
            s.calls += 1;
            None
        }
    });
    if let Some(limit) = over {
        let error = JsNativeError::error().with_message(bridge_limit_message(limit));
        return JsPromise::reject(error, context).into();
    }
    let (promise, resolvers) = JsPromise::new_pending(context);
    let id = SESSION.with_borrow_mut(|s| {
        let id = s.next_id;
        s.next_id += 1;
        s.pending.insert(id, resolvers);
        id
    });
    if let Err(e) = super::send(&FromWorker::Call { id, call }) {
        eprintln!("pizza eval worker: cannot send a bridge call: {e}");
    }
    promise.into()
}

/// Settles the promise of call `id` with the host's reply. A reply for a
/// call of an earlier run is ignored.
pub(super) fn settle(
    id: u64,
    outcome: Result<serde_json::Value, String>,
    context: &mut Context,
) -> boa_engine::JsResult<()> {
    // Taken out before calling into JS: resolving runs guest code when the
    // guest made `then` a getter, and that code may start new calls.
    let Some(resolvers) = SESSION.with_borrow_mut(|s| s.pending.remove(&id)) else {
        return Ok(());
    };
    match outcome {
        Ok(value) => {
            let value = super::render::json_to_js(&value, context)?;
            resolvers
                .resolve
                .call(&JsValue::undefined(), &[value], context)?;
        }
        Err(message) => {
            let error = JsNativeError::error()
                .with_message(message)
                .to_opaque(context);
            resolvers
                .reject
                .call(&JsValue::undefined(), &[error.into()], context)?;
        }
    }
    Ok(())
}

/// Sends one console line within the log budget; the rest is counted.
pub(super) fn log(line: &str) {
    let chars = line.chars().count() + 1;
    let sent = SESSION.with_borrow_mut(|s| {
        if chars <= s.log_room {
            s.log_room -= chars;
            Some(format!("{line}\n"))
        } else if s.log_room > 0 {
            let kept: String = line.chars().take(s.log_room).collect();
            s.logs_left_out += chars - s.log_room;
            s.log_room = 0;
            Some(kept)
        } else {
            s.logs_left_out += chars;
            None
        }
    });
    if let Some(text) = sent
        && let Err(e) = super::send(&FromWorker::Log { text })
    {
        eprintln!("pizza eval worker: cannot send a log line: {e}");
    }
}
