use std::sync::Arc;
use std::sync::atomic::Ordering;

use pizza_agent::{CancellationToken, ChannelSink, RunProfile};
use pizza_llm::{ContentPart, FakeTurn};
use pizza_protocol::{RunEvent, RunStatus};
use pizza_tools::ToolRegistry;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::{Broken, Counter, Hang, Harness, config, result_of, wait_for};

#[tokio::test]
async fn failing_calls_become_error_results_the_model_corrects() {
    let h = Harness::new().await;
    let mut tools = ToolRegistry::with_builtins();
    tools.register(Arc::new(Broken));
    h.model.push_turn(FakeTurn::tool_calls([
        ("a", "broken", json!({})),
        ("b", "read_file", json!({"file_path": "notes.md"})),
        ("c", "no_such_tool", json!({})),
        ("d", "read_file", json!({"path": "/x"})),
    ]));
    h.model.push_turn(FakeTurn::text("Sorry, corrected."));
    let agent = h.agent_with(config(), tools);
    let (outcome, _) = h.run(&agent, Some("go")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);

    let transcript = h.transcript().await;
    let mut results: Vec<(String, String, bool)> = transcript[2..6]
        .iter()
        .map(|(_, p)| {
            let (id, text, err) = result_of(p);
            (id.to_owned(), text.to_owned(), err)
        })
        .collect();
    results.sort();
    assert!(results.iter().all(|r| r.2), "{results:?}");
    assert_eq!(results[0].1, "Error: the disk is on fire; try /other");
    assert!(
        results[1].1.contains("must be absolute"),
        "{}",
        results[1].1
    );
    assert!(
        results[2].1.contains("unknown tool `no_such_tool`"),
        "{}",
        results[2].1
    );
    assert!(
        results[3]
            .1
            .contains("missing the required property `file_path`"),
        "{}",
        results[3].1
    );
    let second = &h.model.requests()[1];
    assert!(second.messages.iter().any(|m| {
        m.content
            .iter()
            .any(|p| matches!(p, ContentPart::ToolResult { is_error: true, .. }))
    }));
}

#[tokio::test]
async fn a_crash_after_a_committed_result_resumes_without_rerunning_it() {
    let h = Harness::new().await;
    let counter = Arc::new(Counter::default());
    let hang = Arc::new(Hang {
        hangs: 1,
        ..Hang::default()
    });
    let mut tools = ToolRegistry::with_builtins();
    tools.register(counter.clone());
    tools.register(hang.clone());
    h.model.push_turn(FakeTurn::tool_calls([
        ("a", "counter", json!({})),
        ("b", "hang", json!({})),
    ]));
    let agent = h.agent_with(config(), tools.clone());
    let (sink, mut rx) = ChannelSink::new();
    let input = h.input(Some("count and wait"));
    let task = {
        let agent = Arc::clone(&agent);
        tokio::spawn(async move {
            agent
                .run(input, Arc::new(sink), CancellationToken::new())
                .await
        })
    };
    // The result of `a` is committed (announced after its commit) while `b` hangs.
    wait_for(&mut rx, |e| {
        matches!(e, RunEvent::MessageCompleted { message } if message.parts.iter().any(|p| matches!(
            p, pizza_protocol::MessagePart::ToolResult { call_id, .. } if call_id == "a"
        )))
    })
    .await;
    // The crash: the run's future is dropped mid-step.
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    drop(agent);

    // A new agent resumes from the last checkpoint.
    h.model.push_turn(FakeTurn::text("All done."));
    let agent = h.agent_with(config(), tools);
    let (sink, rx) = ChannelSink::new();
    let outcome = agent
        .resume(h.input(None), Arc::new(sink), CancellationToken::new())
        .await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    assert_eq!(
        counter.0.load(Ordering::SeqCst),
        1,
        "a committed call never runs again"
    );
    assert_eq!(
        hang.calls.load(Ordering::SeqCst),
        2,
        "the uncommitted call runs again"
    );
    let transcript = h.transcript().await;
    assert_eq!(transcript.len(), 5);
    assert_eq!(result_of(&transcript[2].1), ("a", "counted 1", false));
    assert_eq!(result_of(&transcript[3].1), ("b", "finally", false));
    // Each call is charged once to the run's tool-call count, crash or not.
    let head = h
        .store
        .state(&h.thread_id, None)
        .await
        .unwrap()
        .checkpoint
        .unwrap();
    assert_eq!(head.metadata["tool_calls"], 2);
    let events = super::harness::drain(rx);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, RunEvent::ToolStarted { call_id, .. } if call_id == "a"))
    );
}

#[tokio::test]
async fn resume_makes_a_pending_model_call_again() {
    let h = Harness::new().await;
    // The first attempt dies on a stream error after the user's message was committed.
    h.model
        .push_turn(FakeTurn::text("partial").then_error(pizza_llm::Error::stream("reset")));
    let agent = h.agent(config());
    let (outcome, _) = h.run(&agent, Some("Hi")).await;
    assert_eq!(outcome.status, RunStatus::Failed);
    assert_eq!(outcome.error.unwrap().code.as_str(), "STREAM_ERROR");

    h.model.push_turn(FakeTurn::text("Hello again"));
    let (outcome, _) = h.run(&agent, None).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    assert_eq!(h.transcript().await.len(), 2);
    // Nothing to do once the turn is over.
    let (outcome, _) = h.run(&agent, None).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    assert_eq!(h.model.requests().len(), 2);
    let _ = RunProfile::default();
}

#[tokio::test]
async fn a_model_that_times_out_ends_the_run_timed_out_not_failed() {
    let h = Harness::new().await;
    h.model
        .push_turn(FakeTurn::text("").then_error(pizza_llm::Error::Timeout {
            message: "no answer within 120 s".into(),
        }));
    let agent = h.agent(config());
    let (outcome, events) = h.run(&agent, Some("Hi")).await;
    assert_eq!(outcome.status, RunStatus::TimedOut);
    assert_eq!(outcome.error.unwrap().code.as_str(), "TIMEOUT");
    assert!(matches!(
        events.last(),
        Some(RunEvent::RunFinished {
            status: RunStatus::TimedOut,
            ..
        })
    ));
}
