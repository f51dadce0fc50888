//! A scripted model for tests of code that calls models.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::client::{EventStream, ModelClient};
use crate::error::{Error, Result};
use crate::event::{StopReason, StreamEvent, Usage};
use crate::request::ModelRequest;

/// One scripted step of a turn.
#[derive(Debug, Clone)]
pub enum FakeStep {
    Event(StreamEvent),
    /// The stream yields this error and ends.
    Error(Error),
    Delay(Duration),
    /// Nothing more arrives until the call is cancelled.
    HangUntilCancelled,
    /// Nothing more arrives until the test opens the gate with
    /// `notify_one` (which may come first) or the call is cancelled.
    Gate(Arc<tokio::sync::Notify>),
}

/// The scripted answer to one `stream` call.
#[derive(Debug, Clone, Default)]
pub struct FakeTurn {
    /// If set, `stream` itself fails (as a provider does before the first token).
    pub fail_at_start: Option<Error>,
    pub steps: Vec<FakeStep>,
    /// Slept before every event, to make interleavings observable.
    pub delay_per_event: Option<Duration>,
}

impl FakeTurn {
    pub fn from_events(events: impl IntoIterator<Item = StreamEvent>) -> Self {
        Self {
            steps: events.into_iter().map(FakeStep::Event).collect(),
            ..Self::default()
        }
    }

    /// Streams `text` in a few deltas and stops with `end`.
    pub fn text(text: &str) -> Self {
        let mut events: Vec<StreamEvent> = chunk(text)
            .map(|piece| StreamEvent::TextDelta { text: piece })
            .collect();
        events.push(usage_event());
        events.push(StreamEvent::Stop {
            reason: StopReason::EndTurn,
        });
        Self::from_events(events)
    }

    /// Calls each `(id, name, arguments)` tool and stops with `tool_use`.
    pub fn tool_calls<'a>(calls: impl IntoIterator<Item = (&'a str, &'a str, Value)>) -> Self {
        let mut events = Vec::new();
        for (index, (id, name, arguments)) in (0u32..).zip(calls) {
            events.push(StreamEvent::ToolCallStart {
                index,
                id: id.to_owned(),
                name: name.to_owned(),
            });
            events.push(StreamEvent::ToolCallDelta {
                index,
                arguments: arguments.to_string(),
            });
            events.push(StreamEvent::ToolCallEnd { index });
        }
        events.push(usage_event());
        events.push(StreamEvent::Stop {
            reason: StopReason::ToolUse,
        });
        Self::from_events(events)
    }

    pub fn tool_call(id: &str, name: &str, arguments: Value) -> Self {
        Self::tool_calls([(id, name, arguments)])
    }

    /// `stream` returns this error instead of a stream.
    pub fn error(error: Error) -> Self {
        Self {
            fail_at_start: Some(error),
            ..Self::default()
        }
    }

    pub fn with_delay_per_event(mut self, delay: Duration) -> Self {
        self.delay_per_event = Some(delay);
        self
    }

    pub fn then_error(mut self, error: Error) -> Self {
        self.steps.push(FakeStep::Error(error));
        self
    }

    pub fn then_hang(mut self) -> Self {
        self.steps.push(FakeStep::HangUntilCancelled);
        self
    }

    /// Waits at this point of the turn until `gate` is opened.
    pub fn then_wait(mut self, gate: &Arc<tokio::sync::Notify>) -> Self {
        self.steps.push(FakeStep::Gate(Arc::clone(gate)));
        self
    }

    pub fn then(mut self, step: FakeStep) -> Self {
        self.steps.push(step);
        self
    }
}

fn chunk(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split_inclusive(' ').map(str::to_owned)
}

fn usage_event() -> StreamEvent {
    StreamEvent::Usage(Usage {
        input_tokens: 10,
        output_tokens: 5,
        ..Usage::default()
    })
}

#[derive(Debug, Default)]
struct FakeState {
    turns: VecDeque<FakeTurn>,
    requests: Vec<ModelRequest>,
}

/// Replays queued [`FakeTurn`]s in order and records every request. Clones
/// share the script.
#[derive(Debug, Clone, Default)]
pub struct FakeModel {
    state: Arc<Mutex<FakeState>>,
}

impl FakeModel {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_turns(turns: impl IntoIterator<Item = FakeTurn>) -> Self {
        let model = Self::new();
        for turn in turns {
            model.push_turn(turn);
        }
        model
    }

    pub fn push_turn(&self, turn: FakeTurn) {
        self.lock().turns.push_back(turn);
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.lock().requests.clone()
    }

    pub fn remaining_turns(&self) -> usize {
        self.lock().turns.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FakeState> {
        // A test that panicked while holding the lock already failed; keep
        // the script readable for its diagnostics.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ModelClient for FakeModel {
    fn stream(
        &self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<EventStream>> {
        let turn = {
            let mut state = self.lock();
            state.requests.push(request);
            state.turns.pop_front()
        };
        async move {
            let turn = turn.ok_or_else(|| Error::general("FakeModel has no scripted turn left"))?;
            if let Some(error) = turn.fail_at_start {
                return Err(error);
            }
            Ok(play(turn, cancel))
        }
        .boxed()
    }
}

fn play(turn: FakeTurn, cancel: CancellationToken) -> EventStream {
    let steps: VecDeque<FakeStep> = turn.steps.into();
    let delay = turn.delay_per_event;
    let state = (steps, cancel, delay, false);
    futures::stream::unfold(state, |(mut steps, cancel, delay, done)| async move {
        if done {
            return None;
        }
        loop {
            if cancel.is_cancelled() {
                return Some((Err(Error::Cancelled), (steps, cancel, delay, true)));
            }
            let step = steps.pop_front()?;
            match step {
                FakeStep::Event(event) => {
                    if let Some(pause) = delay
                        && !sleep_or_cancel(pause, &cancel).await
                    {
                        return Some((Err(Error::Cancelled), (steps, cancel, delay, true)));
                    }
                    return Some((Ok(event), (steps, cancel, delay, false)));
                }
                FakeStep::Error(error) => return Some((Err(error), (steps, cancel, delay, true))),
                FakeStep::Delay(duration) => {
                    sleep_or_cancel(duration, &cancel).await;
                }
                FakeStep::HangUntilCancelled => cancel.cancelled().await,
                FakeStep::Gate(gate) => {
                    tokio::select! {
                        () = gate.notified() => {}
                        () = cancel.cancelled() => {}
                    }
                }
            }
        }
    })
    .boxed()
}

/// False if cancelled first.
async fn sleep_or_cancel(duration: Duration, cancel: &CancellationToken) -> bool {
    tokio::select! {
        () = tokio::time::sleep(duration) => true,
        () = cancel.cancelled() => false,
    }
}
