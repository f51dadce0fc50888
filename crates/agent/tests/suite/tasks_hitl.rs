//! A skill's `interruptOn` inside its subagent: the thread's interrupt,
//! across a restart, and a decision that continues the subagent where it
//! stopped without running a committed call again.

use std::collections::BTreeMap;
use std::sync::Arc;

use pizza_agent::{NullSink, Subagent};
use pizza_llm::FakeTurn;
use pizza_protocol::{Decision, DecisionKind, InterruptResponse, RunStatus};
use pizza_tools::ToolRegistry;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::{Harness, result_of};
use super::tasks::{task, with_skills};

fn gated_skill(allowed: Vec<DecisionKind>) -> Arc<Subagent> {
    Arc::new(Subagent {
        name: "writer".into(),
        description: "Writes plans.".into(),
        system_prompt: "You write plans.".into(),
        tools: ToolRegistry::with_builtins(),
        interrupt_on: [("write_file".to_owned(), allowed)].into(),
        files: Vec::new(),
    })
}

fn decide(interrupt_id: &str, call: &str, decision: Decision) -> InterruptResponse {
    InterruptResponse {
        interrupt_id: interrupt_id.to_owned(),
        decisions: BTreeMap::from([(call.to_owned(), decision)]),
        decided_from: pizza_protocol::DecidedFrom::Window,
    }
}

/// The subagent reads once (committed), then asks to write.
fn script(h: &Harness) {
    h.model.push_turn(task("t1", "writer", "write the plan"));
    h.model.push_turn(FakeTurn::tool_call(
        "g1",
        "glob",
        json!({"pattern": "**/*"}),
    ));
    h.model.push_turn(FakeTurn::tool_call(
        "w1",
        "write_file",
        json!({"file_path": "/plan.md", "content": "the plan"}),
    ));
}

#[tokio::test]
async fn a_gate_inside_a_subagent_pauses_the_thread_survives_a_restart_and_approve_resumes_it() {
    let mut h = Harness::new().await;
    script(&h);
    let agent = h.agent(with_skills(vec![gated_skill(vec![
        DecisionKind::Approve,
        DecisionKind::Reject,
    ])]));
    let (paused, _) = super::tasks::run_namespaced(&h, &agent, "write the plan").await;
    assert_eq!(paused.status, RunStatus::Interrupted);
    let interrupt = paused.interrupt.clone().unwrap();
    let request = &interrupt.requests[0];
    assert_eq!(request.call_id, "w1");
    assert_eq!(request.skill.as_deref(), Some("writer"));
    assert_eq!(
        request.allowed,
        [DecisionKind::Approve, DecisionKind::Reject]
    );
    // The pause is the thread's: stored with its checkpoint; nothing written.
    let state = h.store.state(&h.thread_id, None).await.unwrap();
    assert_eq!(
        state.interrupt,
        Some(serde_json::to_value(&interrupt).unwrap())
    );
    assert_eq!(h.file("/plan.md").await, None);
    drop(agent);
    h.reopen().await;

    let agent = h.agent(with_skills(vec![gated_skill(DecisionKind::ALL.to_vec())]));
    // A decision the skill does not allow is refused.
    let refused = agent
        .respond(
            h.input(None),
            decide(
                &interrupt.interrupt_id,
                "w1",
                Decision::Respond { text: "x".into() },
            ),
            Arc::new(NullSink),
            pizza_agent::CancellationToken::new(),
        )
        .await;
    assert!(refused.is_err());

    h.model.push_turn(FakeTurn::text("Wrote /plan.md."));
    h.model.push_turn(FakeTurn::text("Wrote /plan.md."));
    let done = agent
        .respond(
            h.input(None),
            decide(&interrupt.interrupt_id, "w1", Decision::APPROVE),
            Arc::new(NullSink),
            pizza_agent::CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(done.status, RunStatus::Succeeded, "{:?}", done.error);
    assert_eq!(h.file("/plan.md").await.as_deref(), Some("the plan"));
    let transcript = h.transcript().await;
    assert_eq!(
        result_of(&transcript[2].1),
        ("t1", "Wrote /plan.md.", false)
    );
    // The subagent continued where it stopped: the glob call ran once, the
    // write once, and its next model call saw both results.
    let task = h.store.task(&h.thread_id, "t1").await.unwrap().unwrap();
    let results: Vec<&str> = task
        .messages
        .iter()
        .filter_map(|m| m.tool_call_id.as_deref())
        .collect();
    assert_eq!(results, ["g1", "w1"]);
    let requests = h.model.requests();
    assert_eq!(requests.len(), 5);
    assert_eq!(
        requests[3].messages.len(),
        5,
        "ask, glob call+result, write call+result"
    );
}

#[tokio::test]
async fn a_rejected_subagent_call_is_told_to_the_subagent_not_the_thread() {
    let h = Harness::new().await;
    script(&h);
    let agent = h.agent(with_skills(vec![gated_skill(DecisionKind::ALL.to_vec())]));
    let (paused, _) = super::tasks::run_namespaced(&h, &agent, "write the plan").await;
    let interrupt = paused.interrupt.unwrap();
    h.model
        .push_turn(FakeTurn::text("The user declined the write."));
    h.model
        .push_turn(FakeTurn::text("The user declined the write."));
    let done = agent
        .respond(
            h.input(None),
            decide(
                &interrupt.interrupt_id,
                "w1",
                Decision::Reject {
                    message: Some("not now".into()),
                },
            ),
            Arc::new(NullSink),
            pizza_agent::CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(done.status, RunStatus::Succeeded, "{:?}", done.error);
    assert_eq!(h.file("/plan.md").await, None);
    let transcript = h.transcript().await;
    assert_eq!(
        transcript.len(),
        4,
        "the thread only has the delegation: {transcript:?}"
    );
    let task = h.store.task(&h.thread_id, "t1").await.unwrap().unwrap();
    let rejected = task
        .messages
        .iter()
        .find(|m| m.tool_call_id.as_deref() == Some("w1"))
        .unwrap();
    assert!(
        rejected.text.contains("The user said: not now"),
        "{}",
        rejected.text
    );
}
