//! The worker protocol: one JSON object per line on the worker's stdin and
//! stdout (stderr stays free for diagnostics). Both sides are in this crate,
//! so the types are shared rather than described twice.

use serde::{Deserialize, Serialize};

use crate::request::BridgeCall;

/// Host → worker.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ToWorker {
    Run(RunRequest),
    /// The answer to a bridge call: `ok` resolves the guest's promise,
    /// `err` rejects it. With `text_bytes` the value is a string whose
    /// UTF-8 bytes follow the line raw: a MB-sized page then skips JSON
    /// escaping on the host and unescaping in the worker.
    Reply {
        id: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ok: Option<serde_json::Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        err: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text_bytes: Option<usize>,
    },
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct RunRequest {
    pub(crate) code: String,
    pub(crate) bridges: Vec<String>,
    pub(crate) task: bool,
    pub(crate) max_result_chars: usize,
    pub(crate) max_log_chars: usize,
    pub(crate) max_bridge_calls: u32,
}

/// Worker → host.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum FromWorker {
    /// A guest called a bridge; `id` is unique for the worker's lifetime,
    /// so a late reply to an earlier run can never resolve a newer promise.
    Call { id: u64, call: BridgeCall },
    /// Console output, sent as it happens so it survives a kill. The worker
    /// stops sending once `max_log_chars` went out.
    Log { text: String },
    Done {
        result: String,
        result_chars_total: Option<usize>,
        bridge_calls: u32,
        logs_left_out: usize,
    },
    Failed {
        ending: GuestEnding,
        message: String,
        bridge_calls: u32,
        logs_left_out: usize,
    },
}

/// How a run the worker survived went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum GuestEnding {
    Thrown,
    NeverSettled,
    BridgeLimit,
    /// The interpreter panicked; the worker caught it and exits after
    /// reporting, since boa's state may be inconsistent.
    Panicked,
}

/// Strings at least this long go raw after their reply line.
pub(crate) const RAW_TEXT_MIN_BYTES: usize = 4 * 1024;

/// A reply as bytes for the worker's stdin.
pub(crate) fn encode_reply(id: u64, outcome: Result<serde_json::Value, String>) -> Vec<u8> {
    let (message, raw) = match outcome {
        Ok(serde_json::Value::String(text)) if text.len() >= RAW_TEXT_MIN_BYTES => {
            let header = ToWorker::Reply {
                id,
                ok: None,
                err: None,
                text_bytes: Some(text.len()),
            };
            (header, Some(text))
        }
        Ok(value) => (
            ToWorker::Reply {
                id,
                ok: Some(value),
                err: None,
                text_bytes: None,
            },
            None,
        ),
        Err(message) => (
            ToWorker::Reply {
                id,
                ok: None,
                err: Some(message),
                text_bytes: None,
            },
            None,
        ),
    };
    // A Value serializes infallibly (its map keys are strings).
    let mut bytes = serde_json::to_vec(&message).unwrap_or_default();
    bytes.push(b'\n');
    if let Some(text) = raw {
        bytes.extend_from_slice(text.as_bytes());
    }
    bytes
}

/// The environment variable that carries `Limits::memory_bytes`, read
/// before any guest runs.
pub(crate) const MEMORY_ENV: &str = "PIZZA_EVAL_MEMORY_BYTES";
