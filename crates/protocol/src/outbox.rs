//! What the host sends a page: app events, notices for its window, files
//! dragged over it and the messages of its streaming commands, queued per
//! window and fetched by the page with `outbox_take`, oldest first.
//!
//! The page asks again as soon as an answer comes, so the host always has a
//! question to answer: nothing is pushed into the page by running script in
//! it (Tauri's events and channels do that, and each such script's result
//! makes WebKit start a JavaScript engine in the app's own process).

use crate::event::{AppEvent, WindowEvent};
use serde::{Deserialize, Serialize};

/// How long `outbox_take` waits for something before it answers with
/// nothing (the page then asks again). Only a bound: a page with nothing
/// to hear then costs a question every two minutes (every 25 s, the shown
/// app's CPU over a minute was 0.02 % instead of 0.00).
pub const OUTBOX_WAIT_SECS: u64 = 120;

/// `outbox_take` has no params: the window is the caller's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutboxTakeParams {}

/// Where a drag of files from the system over a window is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DragPhase {
    /// Files came over the window.
    Enter,
    /// They moved over it (also sent for a drag that entered before the
    /// page was there to hear it).
    Over,
    /// They were dropped on it.
    Drop,
    /// They left it, or the drag was cancelled.
    Leave,
}

/// One message for a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PageMessage {
    /// An app event; every window gets each one.
    App { event: AppEvent },
    /// A notice for this window only.
    Window { event: WindowEvent },
    /// Files dragged from the system over this window: their paths on
    /// `enter` and `drop`.
    Drag {
        phase: DragPhase,
        #[serde(default)]
        paths: Vec<String>,
    },
    /// Message `index` (from 0) of the streaming command whose channel the
    /// page named `channel`.
    Stream {
        channel: u32,
        index: u64,
        message: serde_json::Value,
    },
    /// That channel ended after `index` messages.
    StreamEnd { channel: u32, index: u64 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_back_as_sent() {
        let messages = [
            PageMessage::App {
                event: AppEvent::SkillsChanged,
            },
            PageMessage::Window {
                event: WindowEvent::QuickAskShown,
            },
            PageMessage::Drag {
                phase: DragPhase::Drop,
                paths: vec!["/tmp/a.png".into()],
            },
            PageMessage::Stream {
                channel: 7,
                index: 0,
                message: serde_json::json!({"seq": 1}),
            },
            PageMessage::StreamEnd {
                channel: 7,
                index: 1,
            },
        ];
        for message in messages {
            let json = serde_json::to_value(&message).unwrap();
            assert_eq!(
                serde_json::from_value::<PageMessage>(json).unwrap(),
                message
            );
        }
        let window = serde_json::to_value(PageMessage::Window {
            event: WindowEvent::QuickAskShown,
        })
        .unwrap();
        assert_eq!(
            window,
            serde_json::json!({"kind": "window", "event": "quick_ask_shown"})
        );
        // The page reads a stream's messages by these names, without
        // decoding them as a `PageMessage` (ui/src/outbox.rs).
        let stream = serde_json::to_value(PageMessage::Stream {
            channel: 7,
            index: 2,
            message: serde_json::json!({"seq": 1}),
        })
        .unwrap();
        assert_eq!(
            stream,
            serde_json::json!({"kind": "stream", "channel": 7, "index": 2, "message": {"seq": 1}})
        );
        let end = serde_json::to_value(PageMessage::StreamEnd {
            channel: 7,
            index: 3,
        })
        .unwrap();
        assert_eq!(
            end,
            serde_json::json!({"kind": "stream_end", "channel": 7, "index": 3})
        );
    }
}
