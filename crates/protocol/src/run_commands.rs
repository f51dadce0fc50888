//! Params and responses of the run commands (`run_*`, `thread_subscribe`,
//! `thread_viewing`). The events themselves are in [`crate::run`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::run::{Decision, RunId};
use crate::thread::ThreadId;

/// As much as one message may say, in bytes of UTF-8: longer text is
/// refused with `INVALID_INPUT` (whether sent or queued) and nothing is
/// written.
pub const MESSAGE_TEXT_MAX_BYTES: usize = 1 << 20;

/// Starts a run: on a thread, or on a new thread when `thread_id` is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunStartParams {
    #[serde(default)]
    pub thread_id: Option<ThreadId>,
    /// The user's message.
    pub text: String,
    /// `provider:model`; else the thread's model, else the default model.
    #[serde(default)]
    pub model: Option<String>,
    /// Ids from `attachment_add`, in the order they were attached.
    #[serde(default)]
    pub attachments: Vec<String>,
}

/// The run that was started (answered before any model work).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunStartResponse {
    pub thread_id: ThreadId,
    pub run_id: RunId,
}

/// Sends a message on a thread, or queues it in the host while the thread
/// is busy (a live run, or a decision pending); a queued message starts its
/// own run once the thread is free.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueAddParams {
    pub thread_id: ThreadId,
    pub text: String,
    #[serde(default)]
    pub model: Option<String>,
    /// Ids from `attachment_add`, in the order they were attached.
    #[serde(default)]
    pub attachments: Vec<String>,
}

/// Either the run that started at once, or the message as queued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueAddResponse {
    pub thread_id: ThreadId,
    /// Set when the thread was free and the run started at once.
    pub run_id: Option<RunId>,
    /// Set when the message waits in the host's queue.
    pub queued: Option<crate::QueuedMessage>,
}

/// Takes a message out of the thread's queue before it is sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueRemoveParams {
    pub thread_id: ThreadId,
    pub queued_id: String,
}

/// Cancels the thread's live run if it is still `run_id`, so a stale cancel
/// never stops a newer run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunCancelParams {
    pub thread_id: ThreadId,
    pub run_id: RunId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCancelResponse {
    /// False when the run had already ended or is not the live one.
    pub cancelled: bool,
}

/// Answers the thread's pending interrupt; a new run continues the work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRespondParams {
    pub thread_id: ThreadId,
    pub interrupt_id: String,
    /// Keyed by `call_id`; every request of the interrupt needs one.
    pub decisions: BTreeMap<String, Decision>,
}

/// Streams a thread's run events over the channel passed as `on_event`:
/// first the buffered frames with `seq > since`, then live ones.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadSubscribeParams {
    pub thread_id: ThreadId,
    /// The last seq the UI has; `None` replays only the live run's frames.
    #[serde(default)]
    pub since: Option<u64>,
}

/// The subscription is open; frames arrive on the channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadSubscribeResponse {
    /// Random and unguessable; only the window that opened the
    /// subscription can end it.
    pub subscription_id: String,
    /// The thread's live run when the subscription opened.
    pub live_run_id: Option<RunId>,
}

/// Ends a subscription: its frames stop and the host forgets it. A window
/// that leaves a thread calls this, so visits never pile up subscribers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadUnsubscribeParams {
    pub thread_id: ThreadId,
    pub subscription_id: String,
}

/// Which thread the user is looking at (`None`: none); a run that ends on
/// another thread marks it unread.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadViewingParams {
    #[serde(default)]
    pub thread_id: Option<ThreadId>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn optional_fields_may_be_omitted() {
        let start: RunStartParams = serde_json::from_value(json!({"text": "hi"})).unwrap();
        assert_eq!(
            start,
            RunStartParams {
                thread_id: None,
                text: "hi".into(),
                model: None,
                attachments: Vec::new(),
            }
        );
        let sub: ThreadSubscribeParams = serde_json::from_value(json!({"thread_id": "t"})).unwrap();
        assert_eq!(sub.since, None);
    }

    #[test]
    fn unknown_fields_are_refused() {
        assert!(
            serde_json::from_value::<RunCancelParams>(
                json!({"thread_id": "t", "run_id": "r", "force": true})
            )
            .is_err()
        );
    }
}
