//! `eval` in a run: a program pages a large file and only its count enters
//! the transcript; `task()` fans out to two skills at once; the bridges
//! obey the run's approval policy.

use std::sync::Arc;

use pizza_agent::RunProfile;
use pizza_llm::FakeTurn;
use pizza_protocol::{ApprovalPolicy, RunEvent, RunStatus};
use pizza_store::{FileChange, StepCommit};
use pizza_tools::{EVAL_TOOL, EvalLimits, EvalTool, Sandbox, ToolRegistry, WorkerCommand};
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio::sync::Barrier;

use super::harness::{Harness, Rendezvous, config, result_of};
use super::tasks::{run_namespaced, skill, with_skills};

fn with_eval(mut tools: ToolRegistry) -> ToolRegistry {
    let worker = WorkerCommand::test_worker()
        .expect("the pizza-eval-worker binary is built (cargo test --workspace builds it)");
    tools.register(Arc::new(EvalTool::new(Sandbox::new(
        worker,
        EvalLimits::default(),
    ))));
    tools
}

fn eval(id: &str, code: &str) -> FakeTurn {
    FakeTurn::tool_call(id, EVAL_TOOL, json!({ "code": code }))
}

#[tokio::test]
async fn a_program_pages_a_5_mb_file_and_only_its_count_is_kept() {
    let h = Harness::new().await;
    let line = "order 42 shipped to Lyon\n";
    let log = line.repeat(5 * 1024 * 1024 / line.len());
    let lines = log.lines().count();
    h.store
        .commit_step(
            &h.thread_id,
            StepCommit {
                files: vec![FileChange::write("/orders.log", log)],
                ..StepCommit::default()
            },
        )
        .await
        .unwrap();
    let agent = h.agent_with(config(), with_eval(ToolRegistry::with_builtins()));
    h.model.push_turn(eval(
        "e1",
        r#"let offset = 0, count = 0;
           for (;;) {
             const page = await tools.readFile({ file_path: "/orders.log", offset, limit: 10000 });
             if (!page) break;
             count += page.split("\n").filter(l => l.includes("Lyon")).length;
             offset += 10000;
           }
           return count;"#,
    ));
    h.model
        .push_turn(FakeTurn::text("There are many orders to Lyon."));
    let (outcome, events) = h.run(&agent, Some("How many orders went to Lyon?")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded, "{:?}", outcome.error);
    let transcript = h.transcript().await;
    assert_eq!(
        result_of(&transcript[2].1),
        ("e1", lines.to_string().as_str(), false)
    );
    // The model's second request carries the count, not the file.
    let second = &h.model.requests()[1];
    let sent: usize = second.messages.iter().map(|m| m.text().len()).sum();
    assert!(sent < 10_000, "{sent} characters sent");
    assert!(events.iter().any(|e| matches!(e,
        RunEvent::ToolFinished { name, result, .. } if name == EVAL_TOOL && *result == lines.to_string())));
}

#[tokio::test]
async fn task_fans_out_to_two_skills_at_once() {
    let h = Harness::new().await;
    let mut meet = ToolRegistry::new();
    // Each subagent's call waits for the other's: one after the other, they would hang.
    meet.register(Arc::new(Rendezvous(Barrier::new(2))));
    let agent = h.agent_with(
        with_skills(vec![skill("a", meet.clone()), skill("b", meet)]),
        with_eval(ToolRegistry::with_builtins()),
    );
    h.model.push_turn(eval(
        "e1",
        r#"const [x, y] = await Promise.all([task("a", "meet b"), task("b", "meet a")]);
           return x + " | " + y;"#,
    ));
    h.model
        .push_turn(FakeTurn::tool_call("m", "rendezvous", json!({})));
    h.model
        .push_turn(FakeTurn::tool_call("m", "rendezvous", json!({})));
    h.model.push_turn(FakeTurn::text("Met."));
    h.model.push_turn(FakeTurn::text("Met."));
    h.model.push_turn(FakeTurn::text("Both met."));
    let (outcome, events) = run_namespaced(&h, &agent, "meet").await;
    assert_eq!(outcome.status, RunStatus::Succeeded, "{:?}", outcome.error);
    let transcript = h.transcript().await;
    assert_eq!(result_of(&transcript[2].1), ("e1", "Met. | Met.", false));
    let mut started: Vec<(String, String)> = events
        .iter()
        .filter_map(|(namespace, event)| match event {
            RunEvent::SubagentStarted { task_id, skill, .. } => {
                assert!(namespace.is_empty());
                Some((task_id.clone(), skill.clone()))
            }
            _ => None,
        })
        .collect();
    started.sort();
    assert_eq!(
        started,
        [
            ("e1.task1".to_owned(), "a".to_owned()),
            ("e1.task2".to_owned(), "b".to_owned())
        ]
    );
    // Each subagent's events are in its own namespace.
    assert!(
        events
            .iter()
            .any(|(namespace, event)| namespace == &["e1.task1".to_owned()]
                && matches!(event, RunEvent::ToolFinished { name, .. } if name == "rendezvous"))
    );
    // The subagents' model calls count in the run's usage.
    let requests = h.model.requests();
    assert_eq!(requests.len(), 6);
    assert!(
        requests[1]
            .system
            .as_deref()
            .unwrap_or("")
            .starts_with("You are the")
    );
}

#[tokio::test]
async fn a_bridged_write_follows_the_runs_policy() {
    let h = Harness::new().await;
    let profile = RunProfile {
        approval_policies: [("write_file".to_owned(), ApprovalPolicy::Never)].into(),
        ..config()
    };
    let agent = h.agent_with(profile, with_eval(ToolRegistry::with_builtins()));
    h.model.push_turn(eval(
        "e1",
        r#"await tools.editFile; await tools.writeFile({ file_path: "/a.md", content: "x" })"#,
    ));
    h.model.push_turn(FakeTurn::text("I may not write."));
    let (outcome, _) = h.run(&agent, Some("write a")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let transcript = h.transcript().await;
    let (_, text, is_error) = result_of(&transcript[2].1);
    assert!(is_error, "{text}");
    assert!(text.contains("does not allow write_file"), "{text}");
    assert_eq!(h.file("/a.md").await, None);
}
