//! Where a run's events go.

use std::fmt::Debug;

use pizza_protocol::RunEvent;
use tokio::sync::mpsc;

/// Receives a run's events in order. `namespace` is empty for the
/// orchestrator and a subagent's task id path otherwise; the host wraps each
/// event in a `RunEventFrame` with its own `seq`.
///
/// `emit` is called on the run's task and must not block: buffer, or hand the
/// event to a channel.
pub trait EventSink: Send + Sync + Debug {
    fn emit(&self, namespace: &[String], event: RunEvent);
}

/// A sink that forwards into an unbounded channel; for tests and simple hosts.
/// (Unbounded because `emit` may not wait; a run emits a bounded number of
/// events per model token.)
#[derive(Debug, Clone)]
pub struct ChannelSink {
    tx: mpsc::UnboundedSender<(Vec<String>, RunEvent)>,
}

impl ChannelSink {
    pub fn new() -> (Self, mpsc::UnboundedReceiver<(Vec<String>, RunEvent)>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { tx }, rx)
    }
}

impl EventSink for ChannelSink {
    fn emit(&self, namespace: &[String], event: RunEvent) {
        // A receiver that hung up no longer wants events; the run goes on.
        let _ = self.tx.send((namespace.to_vec(), event));
    }
}

/// Drops every event.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&self, _namespace: &[String], _event: RunEvent) {}
}
