//! Coalesces streamed text before it crosses into the webview. Every channel
//! message is one more message for the page to fetch and decode, so 200
//! tokens a second as 200 messages would eat the time the page needs to
//! draw; deltas that arrive within one frame's time travel as one.

use pizza_protocol::{RunEvent, RunEventFrame};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// About one display frame: deltas are held at most this long.
const WINDOW: Duration = Duration::from_millis(16);

fn is_delta(frame: &RunEventFrame) -> bool {
    matches!(
        frame.event,
        RunEvent::TextDelta { .. } | RunEvent::ReasoningDelta { .. }
    )
}

/// Appends `next` to `held` when both are the same kind of delta of the same
/// run and namespace; the merged frame takes `next`'s seq, so a resubscribe
/// `since` it neither repeats nor skips text.
fn merge(held: &mut RunEventFrame, next: &RunEventFrame) -> bool {
    if held.run_id != next.run_id || held.namespace != next.namespace {
        return false;
    }
    let merged = match (&mut held.event, &next.event) {
        (RunEvent::TextDelta { text }, RunEvent::TextDelta { text: more })
        | (RunEvent::ReasoningDelta { text }, RunEvent::ReasoningDelta { text: more }) => {
            text.push_str(more);
            true
        }
        _ => false,
    };
    if merged {
        held.seq = next.seq;
    }
    merged
}

/// Forwards `frames` to `send` in order, merging deltas; stops when the stream
/// ends or `send` says the window is gone.
pub(crate) async fn forward(
    mut frames: mpsc::Receiver<RunEventFrame>,
    mut send: impl FnMut(RunEventFrame) -> bool,
) {
    let mut held: Option<(RunEventFrame, Instant)> = None;
    loop {
        let next = match &held {
            Some((_, since)) => match tokio::time::timeout_at(*since + WINDOW, frames.recv()).await
            {
                Ok(next) => next,
                Err(_elapsed) => {
                    if let Some((frame, _)) = held.take()
                        && !send(frame)
                    {
                        return;
                    }
                    continue;
                }
            },
            None => frames.recv().await,
        };
        let Some(next) = next else {
            if let Some((frame, _)) = held.take() {
                send(frame);
            }
            return;
        };
        if let Some((frame, _)) = held.as_mut()
            && merge(frame, &next)
        {
            continue;
        }
        if let Some((frame, _)) = held.take()
            && !send(frame)
        {
            return;
        }
        if is_delta(&next) {
            held = Some((next, Instant::now()));
        } else if !send(next) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_protocol::RunStatus;

    fn frame(seq: u64, event: RunEvent) -> RunEventFrame {
        RunEventFrame {
            seq,
            run_id: "r1".into(),
            thread_id: "t1".into(),
            namespace: Vec::new(),
            event,
        }
    }

    fn text(seq: u64, text: &str) -> RunEventFrame {
        frame(seq, RunEvent::TextDelta { text: text.into() })
    }

    #[tokio::test]
    async fn queued_deltas_merge_and_everything_else_keeps_its_place() {
        let (tx, rx) = mpsc::channel(16);
        for f in [
            text(1, "Hel"),
            text(2, "lo"),
            frame(3, RunEvent::ReasoningDelta { text: "hm".into() }),
            text(4, " world"),
            text(5, "!"),
            frame(
                6,
                RunEvent::RunFinished {
                    status: RunStatus::Succeeded,
                    error: None,
                },
            ),
        ] {
            tx.send(f).await.unwrap();
        }
        drop(tx);
        let mut out = Vec::new();
        forward(rx, |f| {
            out.push(f);
            true
        })
        .await;
        let seqs: Vec<u64> = out.iter().map(|f| f.seq).collect();
        assert_eq!(seqs, [2, 3, 5, 6]);
        assert_eq!(
            out[0].event,
            RunEvent::TextDelta {
                text: "Hello".into()
            }
        );
        assert_eq!(
            out[2].event,
            RunEvent::TextDelta {
                text: " world!".into()
            }
        );
    }

    #[tokio::test]
    async fn a_closed_window_stops_forwarding() {
        let (tx, rx) = mpsc::channel(16);
        tx.send(frame(1, RunEvent::RunStarted { model: "m".into() }))
            .await
            .unwrap();
        tx.send(frame(2, RunEvent::RunStarted { model: "m".into() }))
            .await
            .unwrap();
        let mut sent = 0;
        forward(rx, |_| {
            sent += 1;
            false
        })
        .await;
        assert_eq!(sent, 1);
    }
}
