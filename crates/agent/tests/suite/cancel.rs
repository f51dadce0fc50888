use std::sync::Arc;
use std::time::Duration;

use pizza_agent::{CancellationToken, ChannelSink, RunOutcome};
use pizza_llm::{FakeTurn, StreamEvent};
use pizza_protocol::{RunEvent, RunStatus};
use pizza_store::Role;
use pizza_tools::ToolRegistry;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::{Hang, Harness, config, drain, result_of, text, wait_for};

/// The bound the issue sets for a cancel to take effect.
const CANCEL_BOUND: Duration = Duration::from_millis(500);

#[tokio::test]
async fn cancel_mid_stream_stops_the_model_and_keeps_what_was_said() {
    let h = Harness::new().await;
    h.model.push_turn(
        FakeTurn::from_events([StreamEvent::TextDelta {
            text: "Once upon".into(),
        }])
        .then_hang(),
    );
    let agent = h.agent(config());
    let (sink, mut rx) = ChannelSink::new();
    let cancel = CancellationToken::new();
    let task = {
        let (agent, input, cancel) = (
            Arc::clone(&agent),
            h.input(Some("Tell a story")),
            cancel.clone(),
        );
        tokio::spawn(async move { agent.run(input, Arc::new(sink), cancel).await })
    };
    wait_for(&mut rx, |e| matches!(e, RunEvent::TextDelta { .. })).await;
    let outcome = cancel_and_wait(&cancel, task).await;
    assert_eq!(outcome.status, RunStatus::Cancelled);
    assert_eq!(outcome.error, None);
    // What streamed before the stop stays, marked stopped.
    assert_eq!(
        h.transcript().await,
        vec![
            (Role::User, vec![text("Tell a story")]),
            (Role::Assistant, vec![text("Once upon")]),
            (
                Role::System,
                vec![pizza_protocol::MessagePart::Notice {
                    text: "Stopped: the answer above is what was written before you stopped it."
                        .into()
                }]
            ),
        ]
    );
    let events = drain(rx);
    assert_eq!(
        events.last(),
        Some(&RunEvent::RunFinished {
            status: RunStatus::Cancelled,
            error: None
        })
    );
}

#[tokio::test]
async fn cancel_mid_tool_stops_the_tool_and_closes_its_call() {
    let h = Harness::new().await;
    let mut tools = ToolRegistry::with_builtins();
    tools.register(Arc::new(Hang {
        hangs: usize::MAX,
        ..Hang::default()
    }));
    h.model.push_turn(FakeTurn::tool_calls([
        ("fast", "ls", json!({})),
        ("slow", "hang", json!({})),
    ]));
    let agent = h.agent_with(config(), tools);
    let (sink, mut rx) = ChannelSink::new();
    let cancel = CancellationToken::new();
    let task = {
        let (agent, input, cancel) = (Arc::clone(&agent), h.input(Some("work")), cancel.clone());
        tokio::spawn(async move { agent.run(input, Arc::new(sink), cancel).await })
    };
    wait_for(
        &mut rx,
        |e| matches!(e, RunEvent::ToolFinished { call_id, .. } if call_id == "fast"),
    )
    .await;
    let outcome = cancel_and_wait(&cancel, task).await;
    assert_eq!(outcome.status, RunStatus::Cancelled);

    let transcript = h.transcript().await;
    assert_eq!(transcript.len(), 4);
    assert_eq!(result_of(&transcript[2].1).0, "fast");
    assert_eq!(
        result_of(&transcript[3].1),
        ("slow", "Cancelled by the user before it finished.", true)
    );

    // The thread stays usable: the next message gets a valid transcript.
    h.model.push_turn(FakeTurn::text("ok"));
    let mut input = h.input(Some("next"));
    input.run_id = "run-2".into();
    let outcome = agent.run_unobserved(input).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
}

/// Cancels the run and waits for its outcome, which must come promptly.
pub(super) async fn cancel_and_wait(
    cancel: &CancellationToken,
    task: tokio::task::JoinHandle<RunOutcome>,
) -> RunOutcome {
    cancel.cancel();
    tokio::time::timeout(CANCEL_BOUND, task)
        .await
        .expect("cancel takes effect promptly")
        .unwrap()
}
