//! Approval policies, the change preview on the card, and the check that an
//! approved change is still a change to the file the person saw.

use std::path::Path;
use std::sync::Arc;

use pizza_agent::{CancellationToken, NullSink, RunOutcome, RunProfile, refused_by_policy};
use pizza_llm::FakeTurn;
use pizza_protocol::{
    ApprovalPolicy, ChangePreview, Decision, InterruptResponse, RememberScope, RunStatus,
};
use pizza_store::Role;
use pizza_tools::Mounts;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::{Harness, TestAgent, config, result_of};

/// A profile whose `/memories/` is `dir` (on disk, outside the thread).
fn with_memories(dir: &Path) -> RunProfile {
    RunProfile {
        mounts: Some(Arc::new(Mounts {
            grants: Vec::new(),
            memories: Some(dir.to_owned()),
        })),
        ..config()
    }
}

fn edit_facts(id: &str) -> FakeTurn {
    FakeTurn::tool_call(
        id,
        "edit_file",
        json!({"file_path": "/memories/facts.md", "old_string": "dough", "new_string": "crust"}),
    )
}

fn approve_all(outcome: &RunOutcome, decision: &Decision) -> InterruptResponse {
    let interrupt = outcome.interrupt.as_ref().unwrap();
    InterruptResponse {
        interrupt_id: interrupt.interrupt_id.clone(),
        decisions: interrupt
            .requests
            .iter()
            .map(|r| (r.call_id.clone(), decision.clone()))
            .collect(),
        decided_from: pizza_protocol::DecidedFrom::Window,
    }
}

async fn respond(h: &Harness, agent: &TestAgent, response: InterruptResponse) -> RunOutcome {
    agent
        .respond(
            h.input(None),
            response,
            Arc::new(NullSink),
            CancellationToken::new(),
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn never_refuses_the_call_with_a_sentence_the_model_sees() {
    let h = Harness::new().await;
    h.model.push_turn(FakeTurn::tool_call(
        "w1",
        "write_file",
        json!({"file_path": "/notes.md", "content": "x"}),
    ));
    h.model.push_turn(FakeTurn::text("I may not write files."));
    let agent = h.agent(RunProfile {
        approval_policies: [("write_file".to_owned(), ApprovalPolicy::Never)].into(),
        ..config()
    });
    let (outcome, _) = h.run(&agent, Some("write a note")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    assert_eq!(h.file("/notes.md").await, None);
    let sentence = refused_by_policy("write_file");
    assert!(
        sentence.contains("The person does not allow write_file in Settings › Approvals"),
        "{sentence}"
    );
    let transcript = h.transcript().await;
    assert_eq!(result_of(&transcript[2].1), ("w1", sentence.as_str(), true));
    let second = &h.model.requests()[1];
    let seen = format!("{:?}", second.messages.last().unwrap());
    assert!(seen.contains("does not allow write_file"), "{seen}");
}

#[tokio::test]
async fn writes_ask_outside_the_thread_only_and_the_card_shows_the_change() {
    let memories = tempfile::tempdir().unwrap();
    std::fs::write(memories.path().join("facts.md"), "pizza\ndough\nsauce\n").unwrap();
    let h = Harness::new().await;
    h.model.push_turn(FakeTurn::tool_calls([
        (
            "own",
            "write_file",
            json!({"file_path": "/notes.md", "content": "mine"}),
        ),
        (
            "edit",
            "edit_file",
            json!({"file_path": "/memories/facts.md", "old_string": "dough", "new_string": "crust"}),
        ),
        (
            "new",
            "write_file",
            json!({"file_path": "/memories/new.md", "content": "fresh\n"}),
        ),
    ]));
    let agent = h.agent(with_memories(memories.path()));
    let (outcome, _) = h.run(&agent, Some("remember things")).await;
    assert_eq!(outcome.status, RunStatus::Interrupted);
    // The thread's own file was written without asking.
    assert_eq!(h.file("/notes.md").await.as_deref(), Some("mine"));
    let requests = outcome.interrupt.unwrap().requests;
    let asked: Vec<(&str, Option<ChangePreview>)> = requests
        .iter()
        .map(|r| (r.call_id.as_str(), r.preview.clone()))
        .collect();
    assert_eq!(
        asked,
        [
            (
                "edit",
                Some(ChangePreview::Diff {
                    path: "/memories/facts.md".into(),
                    diff: "@@ -1,3 +1,3 @@\n pizza\n-dough\n+crust\n sauce\n".into(),
                })
            ),
            (
                "new",
                Some(ChangePreview::NewFile {
                    path: "/memories/new.md".into(),
                    content: "fresh\n".into(),
                })
            ),
        ]
    );
    assert!(requests.iter().all(|r| !r.changed_since_request));
}

#[tokio::test]
async fn an_approved_edit_of_a_file_changed_meanwhile_asks_again_and_writes_nothing() {
    let memories = tempfile::tempdir().unwrap();
    let facts = memories.path().join("facts.md");
    std::fs::write(&facts, "pizza\ndough\n").unwrap();
    let h = Harness::new().await;
    h.model.push_turn(edit_facts("e1"));
    let agent = h.agent(with_memories(memories.path()));
    let (outcome, _) = h.run(&agent, Some("fix the facts")).await;
    assert_eq!(outcome.status, RunStatus::Interrupted);

    // Someone changes the file between the request and the approval.
    std::fs::write(&facts, "pizza\ndough\nolives\n").unwrap();
    let again = respond(&h, &agent, approve_all(&outcome, &Decision::APPROVE)).await;
    assert_eq!(again.status, RunStatus::Interrupted);
    assert_eq!(
        std::fs::read_to_string(&facts).unwrap(),
        "pizza\ndough\nolives\n"
    );
    let request = &again.interrupt.as_ref().unwrap().requests[0];
    assert_eq!(request.call_id, "e1");
    assert!(request.changed_since_request);
    assert_eq!(
        request.preview,
        Some(ChangePreview::Diff {
            path: "/memories/facts.md".into(),
            diff: "@@ -1,3 +1,3 @@\n pizza\n-dough\n+crust\n olives\n".into(),
        })
    );
    // No result was committed for the call: it is still the model's call.
    let transcript = h.transcript().await;
    assert!(transcript.iter().all(|(role, _)| *role != Role::Tool));

    // Approved against the file as it is now, it runs.
    h.model.push_turn(FakeTurn::text("Fixed."));
    let done = respond(&h, &agent, approve_all(&again, &Decision::APPROVE)).await;
    assert_eq!(done.status, RunStatus::Succeeded);
    assert_eq!(
        std::fs::read_to_string(&facts).unwrap(),
        "pizza\ncrust\nolives\n"
    );
}

#[tokio::test]
async fn an_approved_write_runs_when_its_file_is_unchanged_and_not_over_a_new_one() {
    let memories = tempfile::tempdir().unwrap();
    let h = Harness::new().await;
    let write = |id: &str, path: &str| {
        FakeTurn::tool_call(
            id,
            "write_file",
            json!({"file_path": path, "content": "from the agent\n"}),
        )
    };
    h.model.push_turn(write("w1", "/memories/a.md"));
    h.model.push_turn(write("w2", "/memories/b.md"));
    h.model.push_turn(FakeTurn::text("Both asked."));
    let agent = h.agent(with_memories(memories.path()));
    let (outcome, _) = h.run(&agent, Some("write a")).await;
    assert_eq!(outcome.status, RunStatus::Interrupted);
    // Unchanged (still absent): written.
    let second = respond(&h, &agent, approve_all(&outcome, &Decision::APPROVE)).await;
    assert_eq!(
        std::fs::read_to_string(memories.path().join("a.md")).unwrap(),
        "from the agent\n"
    );
    assert_eq!(second.status, RunStatus::Interrupted);

    // A file that appeared since the request is not written over.
    std::fs::write(memories.path().join("b.md"), "the person's\n").unwrap();
    let again = respond(&h, &agent, approve_all(&second, &Decision::APPROVE)).await;
    assert_eq!(again.status, RunStatus::Interrupted);
    let request = &again.interrupt.as_ref().unwrap().requests[0];
    assert!(request.changed_since_request);
    assert!(matches!(request.preview, Some(ChangePreview::Diff { .. })));
    assert_eq!(
        std::fs::read_to_string(memories.path().join("b.md")).unwrap(),
        "the person's\n"
    );
}

#[tokio::test]
async fn a_thread_allowance_skips_the_question_and_approvals_name_what_to_remember() {
    let memories = tempfile::tempdir().unwrap();
    std::fs::write(memories.path().join("facts.md"), "dough\n").unwrap();
    let h = Harness::new().await;
    h.model.push_turn(edit_facts("e1"));
    let agent = h.agent(with_memories(memories.path()));
    let (outcome, _) = h.run(&agent, Some("fix")).await;
    let accepted = agent
        .agent
        .accept_decisions(
            &h.thread_id,
            "run-1",
            approve_all(
                &outcome,
                &Decision::Approve {
                    remember: Some(RememberScope::Thread),
                },
            ),
            &agent.profile.tools,
        )
        .await
        .unwrap();
    assert_eq!(
        accepted.remember,
        [("edit_file".to_owned(), RememberScope::Thread)]
    );

    // What the host records for "Allow for this thread": the next edit in
    // this thread runs without asking, though the policy would ask.
    h.store
        .allow_tool_in_thread(&h.thread_id, "edit_file")
        .await
        .unwrap();
    std::fs::write(memories.path().join("facts.md"), "dough\n").unwrap();
    h.model.push_turn(FakeTurn::text("ok"));
    h.model.push_turn(edit_facts("e2"));
    h.model.push_turn(FakeTurn::text("Edited without asking."));
    let agent = h.agent(RunProfile {
        approval_policies: [("edit_file".to_owned(), ApprovalPolicy::Ask)].into(),
        ..with_memories(memories.path())
    });
    let (first, _) = h.run(&agent, None).await;
    assert_eq!(first.status, RunStatus::Succeeded);
    std::fs::write(memories.path().join("facts.md"), "more dough\n").unwrap();
    let (outcome, _) = h.run(&agent, Some("again")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    assert_eq!(
        std::fs::read_to_string(memories.path().join("facts.md")).unwrap(),
        "more crust\n"
    );
}
