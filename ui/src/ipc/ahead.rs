//! A call sent before its caller exists: the page asks for what it will
//! show first while its code is still mounting, and the first [`invoke`]
//! of the same command with the same arguments takes that answer instead
//! of asking again. The host answers in its own process meanwhile, so the
//! round trip no longer follows the mount.
//!
//! [`invoke`]: super::invoke

use std::cell::RefCell;
use wasm_bindgen::JsValue;

/// A call on its way: its command, its arguments as JSON, the host's
/// answer to come.
struct Ahead {
    command: &'static str,
    args: String,
    answer: js_sys::Promise,
}

thread_local! {
    static AHEAD: RefCell<Option<Ahead>> = const { RefCell::new(None) };
}

/// Keeps `answer`, the call of `command` with `args`, for [`take`]. A
/// call already kept and not taken is dropped (its answer goes unread).
pub(super) fn keep(command: &'static str, args: &JsValue, answer: js_sys::Promise) {
    let Some(args) = json(args) else { return };
    AHEAD.set(Some(Ahead {
        command,
        args,
        answer,
    }));
}

/// The kept answer, if it was asked for `command` with these `args`. The
/// first call of `command` ends the wait either way: a later one (the
/// list read again after a change) must not get an older answer.
pub(super) fn take(command: &'static str, args: &JsValue) -> Option<js_sys::Promise> {
    let ahead = AHEAD.with_borrow_mut(|kept| {
        if kept.as_ref().is_some_and(|ahead| ahead.command == command) {
            kept.take()
        } else {
            None
        }
    })?;
    (json(args).as_ref() == Some(&ahead.args)).then_some(ahead.answer)
}

fn json(args: &JsValue) -> Option<String> {
    js_sys::JSON::stringify(args).ok()?.as_string()
}
