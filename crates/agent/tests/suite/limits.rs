use pizza_agent::RunProfile;
use pizza_llm::FakeTurn;
use pizza_protocol::{MessagePart, RunStatus};
use pizza_store::Role;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::{Harness, config, result_of};

fn notice(parts: &[MessagePart]) -> &str {
    match parts {
        [MessagePart::Notice { text }] => text,
        other => panic!("not a notice: {other:?}"),
    }
}

#[tokio::test]
async fn the_model_call_ceiling_ends_the_run_with_a_notice() {
    let h = Harness::new().await;
    for i in 0..4 {
        h.model
            .push_turn(FakeTurn::tool_call(&format!("c{i}"), "ls", json!({})));
    }
    let agent = h.agent(RunProfile {
        max_model_calls: 3,
        ..config()
    });
    let (outcome, _) = h.run(&agent, Some("loop")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    assert_eq!(h.model.requests().len(), 3);
    assert_eq!(h.model.remaining_turns(), 1);
    let transcript = h.transcript().await;
    let (role, parts) = transcript.last().unwrap();
    assert_eq!(*role, Role::System);
    assert!(notice(parts).contains("limit of model calls"));
}

#[tokio::test]
async fn excess_tool_calls_are_refused_in_place_and_the_turn_ends() {
    let h = Harness::new().await;
    h.model.push_turn(FakeTurn::tool_calls([
        ("a", "ls", json!({})),
        ("b", "ls", json!({})),
        ("c", "ls", json!({})),
    ]));
    let agent = h.agent(RunProfile {
        max_tool_calls: 2,
        ..config()
    });
    let (outcome, _) = h.run(&agent, Some("list thrice")).await;
    assert_eq!(
        outcome.status,
        RunStatus::Succeeded,
        "a limit is not a failed run"
    );
    assert_eq!(
        h.model.requests().len(),
        1,
        "the turn ends instead of calling the model"
    );

    let transcript = h.transcript().await;
    let results: Vec<(&str, &str, bool)> = transcript
        .iter()
        .filter(|(role, _)| *role == Role::Tool)
        .map(|(_, parts)| result_of(parts))
        .collect();
    assert_eq!(results.len(), 3);
    let refused: Vec<_> = results.iter().filter(|r| r.2).collect();
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].0, "c");
    assert!(refused[0].1.contains("limit of 2 tool calls"));
    let (role, parts) = transcript.last().unwrap();
    assert_eq!(*role, Role::System);
    assert!(notice(parts).contains("1 call(s) were not run"));

    // A new run starts a fresh count.
    h.model.push_turn(FakeTurn::tool_call("d", "ls", json!({})));
    h.model.push_turn(FakeTurn::text("ok"));
    let mut input = h.input(Some("again"));
    input.run_id = "run-2".into();
    let outcome = agent.run_unobserved(input).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let transcript = h.transcript().await;
    assert_eq!(result_of(&transcript[transcript.len() - 2].1).2, false);
}

#[tokio::test]
async fn unlimited_tool_calls_are_still_bounded_by_the_model_call_ceiling() {
    let h = Harness::new().await;
    for i in 0..5 {
        h.model.push_turn(FakeTurn::tool_calls([
            (format!("a{i}").as_str(), "ls", json!({})),
            (format!("b{i}").as_str(), "ls", json!({})),
        ]));
    }
    let agent = h.agent(RunProfile {
        max_tool_calls: -1,
        max_model_calls: 3,
        ..config()
    });
    let (outcome, _) = h.run(&agent, Some("forever")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    assert_eq!(h.model.requests().len(), 3);
    let transcript = h.transcript().await;
    let tool_results = transcript.iter().filter(|(r, _)| *r == Role::Tool).count();
    assert_eq!(tool_results, 6);
    assert!(notice(&transcript.last().unwrap().1).contains("limit of model calls"));
}

#[tokio::test]
async fn a_profile_with_a_tool_free_last_call_ends_with_an_answer() {
    let h = Harness::new().await;
    h.model
        .push_turn(FakeTurn::tool_call("c0", "ls", json!({"path": "/"})));
    h.model.push_turn(FakeTurn::text(
        "I listed the files; nothing else was checked.",
    ));
    let agent = h.agent(RunProfile {
        max_model_calls: 2,
        last_call_tool_free: true,
        namespace: vec!["task-1".into()],
        ..config()
    });
    let (sink, mut rx) = pizza_agent::ChannelSink::new();
    let outcome = agent
        .run(
            h.input(Some("look around")),
            std::sync::Arc::new(sink),
            pizza_agent::CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let requests = h.model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].tools.len(), 6);
    assert!(
        requests[1].tools.is_empty(),
        "the last call offers no tools"
    );
    // Every event of the run is in its namespace (the host's own
    // `run_finished` stays at the root).
    while let Ok((namespace, event)) = rx.try_recv() {
        if !matches!(event, pizza_protocol::RunEvent::RunFinished { .. }) {
            assert_eq!(namespace, ["task-1"], "{event:?}");
        }
    }
}
