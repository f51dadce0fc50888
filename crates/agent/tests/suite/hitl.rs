use std::collections::BTreeMap;
use std::sync::Arc;

use pizza_agent::{CancellationToken, Error, NullSink, RunOutcome};
use pizza_llm::{ContentPart, FakeTurn};
use pizza_protocol::{Decision, DecisionKind, InterruptResponse, RunEvent, RunStatus};
use pizza_store::Role;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::{Harness, config, result_of, text};

/// Writes to the thread's own files do not ask by default; these tests
/// pause on them, so the policy says "ask".
pub(super) fn asking() -> pizza_agent::RunProfile {
    pizza_agent::RunProfile {
        approval_policies: [
            ("write_file".to_owned(), pizza_protocol::ApprovalPolicy::Ask),
            ("edit_file".to_owned(), pizza_protocol::ApprovalPolicy::Ask),
        ]
        .into(),
        ..config()
    }
}

fn write_call(id: &str, path: &str, content: &str) -> (String, Value) {
    (
        id.to_owned(),
        json!({"file_path": path, "content": content}),
    )
}

use serde_json::Value;

/// Runs until the model's write_file call pauses the run.
async fn paused(h: &Harness) -> (Arc<super::harness::TestAgent>, RunOutcome) {
    let (id, args) = write_call("w1", "/plan.md", "the plan");
    h.model
        .push_turn(FakeTurn::tool_call(&id, "write_file", args));
    let agent = h.agent(asking());
    let (outcome, events) = h.run(&agent, Some("Write a plan")).await;
    assert_eq!(outcome.status, RunStatus::Interrupted);
    let interrupt = outcome.interrupt.clone().unwrap();
    assert!(events.contains(&RunEvent::Interrupt {
        interrupt: interrupt.clone()
    }));
    assert_eq!(interrupt.requests.len(), 1);
    let request = &interrupt.requests[0];
    assert_eq!(request.call_id, "w1");
    assert_eq!(request.tool, "write_file");
    assert_eq!(request.description, "Write the file /plan.md.");
    assert_eq!(request.allowed, DecisionKind::ALL.to_vec());
    // Nothing ran; the interrupt is in the checkpoint row.
    assert_eq!(h.file("/plan.md").await, None);
    let state = h.store.state(&h.thread_id, None).await.unwrap();
    assert_eq!(
        state.interrupt,
        Some(serde_json::to_value(&interrupt).unwrap())
    );
    (agent, outcome)
}

fn decide(outcome: &RunOutcome, decisions: &[(&str, Decision)]) -> InterruptResponse {
    InterruptResponse {
        interrupt_id: outcome.interrupt.as_ref().unwrap().interrupt_id.clone(),
        decisions: decisions
            .iter()
            .map(|(id, d)| ((*id).to_owned(), d.clone()))
            .collect::<BTreeMap<_, _>>(),
        decided_from: pizza_protocol::DecidedFrom::Window,
    }
}

async fn respond(
    h: &Harness,
    agent: &super::harness::TestAgent,
    response: InterruptResponse,
) -> Result<RunOutcome, Error> {
    agent
        .respond(
            h.input(None),
            response,
            Arc::new(NullSink),
            CancellationToken::new(),
        )
        .await
}

#[tokio::test]
async fn approve_runs_the_call_once_and_a_second_decision_conflicts() {
    let h = Harness::new().await;
    let (agent, outcome) = paused(&h).await;
    h.model.push_turn(FakeTurn::text("Plan written."));
    let response = decide(&outcome, &[("w1", Decision::APPROVE)]);
    let done = respond(&h, &agent, response.clone()).await.unwrap();
    assert_eq!(done.status, RunStatus::Succeeded);
    assert_eq!(h.file("/plan.md").await.as_deref(), Some("the plan"));
    let transcript = h.transcript().await;
    assert_eq!(
        result_of(&transcript[2].1),
        ("w1", "Created /plan.md (8 characters).", false)
    );
    assert_eq!(transcript[3].1, vec![text("Plan written.")]);

    let again = respond(&h, &agent, response).await.unwrap_err();
    assert!(matches!(again, Error::Conflict(_)), "{again:?}");
    assert_eq!(again.to_api_error().code.as_str(), "CONFLICT");
}

#[tokio::test]
async fn edit_revalidates_and_runs_with_the_new_arguments() {
    let h = Harness::new().await;
    let (agent, outcome) = paused(&h).await;

    // Invalid edited arguments are refused and the interrupt stays pending.
    let bad = decide(
        &outcome,
        &[(
            "w1",
            Decision::Edit {
                arguments: json!({"file_path": "/plan.md"}),
            },
        )],
    );
    let err = respond(&h, &agent, bad).await.unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
    assert!(err.to_string().contains("content"), "{err}");
    assert!(
        h.store
            .state(&h.thread_id, None)
            .await
            .unwrap()
            .interrupt
            .is_some()
    );

    h.model.push_turn(FakeTurn::text("Saved elsewhere."));
    let (_, edited) = write_call("w1", "/better.md", "a better plan");
    let good = decide(&outcome, &[("w1", Decision::Edit { arguments: edited })]);
    let done = respond(&h, &agent, good).await.unwrap();
    assert_eq!(done.status, RunStatus::Succeeded);
    assert_eq!(h.file("/plan.md").await, None);
    assert_eq!(h.file("/better.md").await.as_deref(), Some("a better plan"));
    let transcript = h.transcript().await;
    let (_, result, is_error) = result_of(&transcript[2].1);
    assert!(!is_error);
    assert!(result.contains("edited the arguments"), "{result}");
}

#[tokio::test]
async fn reject_tells_the_model_and_runs_nothing() {
    let h = Harness::new().await;
    let (agent, outcome) = paused(&h).await;
    h.model.push_turn(FakeTurn::text("Understood, no file."));
    let response = decide(
        &outcome,
        &[(
            "w1",
            Decision::Reject {
                message: Some("not now".into()),
            },
        )],
    );
    let done = respond(&h, &agent, response).await.unwrap();
    assert_eq!(done.status, RunStatus::Succeeded);
    assert_eq!(h.file("/plan.md").await, None);
    let transcript = h.transcript().await;
    let (id, result, is_error) = result_of(&transcript[2].1);
    assert_eq!(id, "w1");
    assert!(is_error);
    assert_eq!(
        result,
        "The user rejected this write_file call; it was not run. The user said: not now"
    );
    // The model's next request carries the rejection.
    let last = h
        .model
        .requests()
        .last()
        .unwrap()
        .messages
        .last()
        .unwrap()
        .clone();
    assert!(matches!(
        &last.content[0],
        ContentPart::ToolResult { is_error: true, .. }
    ));
}

#[tokio::test]
async fn respond_gives_the_users_text_as_the_result() {
    let h = Harness::new().await;
    let (agent, outcome) = paused(&h).await;
    h.model.push_turn(FakeTurn::text("Thanks."));
    let response = decide(
        &outcome,
        &[(
            "w1",
            Decision::Respond {
                text: "The plan already exists in my head.".into(),
            },
        )],
    );
    respond(&h, &agent, response).await.unwrap();
    let transcript = h.transcript().await;
    assert_eq!(
        result_of(&transcript[2].1),
        ("w1", "The plan already exists in my head.", false)
    );
    assert_eq!(h.file("/plan.md").await, None);
}

#[tokio::test]
async fn gated_calls_of_one_step_form_one_batch() {
    let h = Harness::new().await;
    h.model.push_turn(FakeTurn::tool_calls([
        (
            "w",
            "write_file",
            json!({"file_path": "/a.md", "content": "A"}),
        ),
        ("l", "ls", json!({})),
        (
            "e",
            "edit_file",
            json!({"file_path": "/a.md", "old_string": "A", "new_string": "B"}),
        ),
    ]));
    let agent = h.agent(asking());
    let (outcome, _) = h.run(&agent, Some("do three things")).await;
    assert_eq!(outcome.status, RunStatus::Interrupted);
    let interrupt = outcome.interrupt.clone().unwrap();
    let ids: Vec<&str> = interrupt
        .requests
        .iter()
        .map(|r| r.call_id.as_str())
        .collect();
    assert_eq!(ids, ["w", "e"]);
    // The ungated call already ran.
    let transcript = h.transcript().await;
    assert_eq!(result_of(&transcript[2].1).0, "l");

    // A partial answer is refused; the batch needs every decision.
    let partial = decide(&outcome, &[("w", Decision::APPROVE)]);
    assert!(matches!(
        respond(&h, &agent, partial).await.unwrap_err(),
        Error::InvalidInput(_)
    ));

    h.model.push_turn(FakeTurn::text("Wrote A."));
    let both = decide(
        &outcome,
        &[
            ("w", Decision::APPROVE),
            ("e", Decision::Reject { message: None }),
        ],
    );
    let done = respond(&h, &agent, both).await.unwrap();
    assert_eq!(done.status, RunStatus::Succeeded);
    assert_eq!(h.file("/a.md").await.as_deref(), Some("A"));
    let results: Vec<(String, bool)> = h
        .transcript()
        .await
        .iter()
        .filter(|(r, _)| *r == Role::Tool)
        .map(|(_, p)| {
            let (id, _, err) = result_of(p);
            (id.to_owned(), err)
        })
        .collect();
    assert_eq!(
        results,
        [
            ("l".to_owned(), false),
            ("e".to_owned(), true),
            ("w".to_owned(), false)
        ]
    );
}

#[tokio::test]
async fn an_interrupt_survives_a_restart() {
    let mut h = Harness::new().await;
    let (agent, outcome) = paused(&h).await;
    drop(agent);
    h.reopen().await;

    // A new message while a decision is pending is refused, changing nothing.
    let agent = h.agent(asking());
    let (refused, _) = h.run(&agent, Some("ignore that")).await;
    assert_eq!(refused.status, RunStatus::Failed);
    assert_eq!(refused.error.unwrap().code.as_str(), "CONFLICT");

    h.model.push_turn(FakeTurn::text("Done after restart."));
    let done = respond(&h, &agent, decide(&outcome, &[("w1", Decision::APPROVE)]))
        .await
        .unwrap();
    assert_eq!(done.status, RunStatus::Succeeded);
    assert_eq!(h.file("/plan.md").await.as_deref(), Some("the plan"));
    assert_eq!(h.transcript().await.len(), 4);
}

#[tokio::test]
async fn results_committed_by_a_decision_are_announced_after_run_started() {
    let h = Harness::new().await;
    let (agent, outcome) = paused(&h).await;
    h.model.push_turn(FakeTurn::text("ok"));
    let (sink, rx) = pizza_agent::ChannelSink::new();
    agent
        .respond(
            h.input(None),
            decide(&outcome, &[("w1", Decision::Reject { message: None })]),
            Arc::new(sink),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let events = super::harness::drain(rx);
    assert!(matches!(events[0], RunEvent::RunStarted { .. }));
    assert!(matches!(
        &events[1],
        RunEvent::MessageCompleted { message } if message.role == pizza_protocol::Role::Tool
    ));
}

#[tokio::test]
async fn two_concurrent_decisions_resume_the_run_exactly_once() {
    let h = Harness::new().await;
    let (agent, outcome) = paused(&h).await;
    h.model.push_turn(FakeTurn::text("once"));
    let response = decide(&outcome, &[("w1", Decision::APPROVE)]);
    let (first, second) = tokio::join!(
        respond(&h, &agent, response.clone()),
        respond(&h, &agent, response)
    );
    let oks = [&first, &second].iter().filter(|r| r.is_ok()).count();
    assert_eq!(oks, 1, "{first:?} {second:?}");
    let conflict = first.err().or(second.err()).unwrap();
    assert!(matches!(conflict, Error::Conflict(_)), "{conflict:?}");
    assert_eq!(h.model.requests().len(), 2);
    assert_eq!(h.transcript().await.len(), 4);
}

#[tokio::test]
async fn a_run_continued_after_a_decision_keeps_its_budget() {
    let h = Harness::new().await;
    let (id, args) = write_call("w1", "/plan.md", "the plan");
    h.model
        .push_turn(FakeTurn::tool_call(&id, "write_file", args));
    h.model
        .push_turn(FakeTurn::tool_call("l1", "ls", json!({"path": "/"})));
    h.model.push_turn(FakeTurn::text("never asked for"));
    let agent = h.agent(pizza_agent::RunProfile {
        max_model_calls: 2,
        ..asking()
    });
    let (outcome, _) = h.run(&agent, Some("Write a plan")).await;
    assert_eq!(outcome.status, RunStatus::Interrupted);
    // The decision continues the work in a run of its own id.
    let mut input = h.input(None);
    input.run_id = "run-2".into();
    let done = agent
        .respond(
            input,
            decide(&outcome, &[("w1", Decision::APPROVE)]),
            Arc::new(NullSink),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(done.status, RunStatus::Succeeded);
    assert_eq!(h.model.requests().len(), 2, "one call before, one after");
    assert_eq!(h.model.remaining_turns(), 1);
    let transcript = h.transcript().await;
    assert_eq!(transcript.last().unwrap().0, Role::System);
}
