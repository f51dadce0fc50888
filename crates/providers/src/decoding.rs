//! What the per-format decoders share: reading the JSON they are sent, the
//! pieces of a tool call's arguments, and how a stream must end.

use std::collections::HashMap;

use pizza_llm::{Error, Result, StreamEvent};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::transport::classify_message;

/// One frame's JSON; `what` names it in the error ("event", "chunk", "line").
pub(crate) fn parse_json<T: DeserializeOwned>(data: &[u8], what: &str) -> Result<T> {
    serde_json::from_slice(data)
        .map_err(|error| Error::stream(format!("malformed {what}: {error}")))
}

/// A string field, empty when it is missing or not a string: the formats
/// leave out what is empty.
pub(crate) fn string(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The error an error object sent inside the stream stands for: its
/// `message`, classified by `kind` (its code or type, as the format names it).
pub(crate) fn error_object(error: &Value, kind: Option<&str>, model: &str) -> Error {
    classify_message(kind, &string(error, "message"), model)
}

/// A piece of the arguments of the tool call opened by content block
/// `index`. A piece for a block that opened no call means the stream is
/// broken; an empty piece says nothing and is dropped.
pub(crate) fn tool_input_delta(
    tool_blocks: &HashMap<u64, u32>,
    index: u64,
    arguments: String,
    out: &mut Vec<StreamEvent>,
) -> Result<()> {
    let Some(call) = tool_blocks.get(&index) else {
        return Err(Error::stream("tool input for an unknown content block"));
    };
    if !arguments.is_empty() {
        out.push(StreamEvent::ToolCallDelta {
            index: *call,
            arguments,
        });
    }
    Ok(())
}

/// What `finish` answers once a format's last word is known to be in or
/// not: nothing when `done`, else the error of a stream cut before
/// `terminal` (its name as the format spells it).
pub(crate) fn require_terminal(done: bool, terminal: &str) -> Result<()> {
    if done {
        Ok(())
    } else {
        Err(Error::stream(format!("the stream ended before {terminal}")))
    }
}
