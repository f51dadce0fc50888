//! Delegation: the `task` tool routes to a skill's subagent, whose report
//! comes back verbatim; limits, parallel tasks, and no `task` without skills.

use std::collections::BTreeMap;
use std::sync::Arc;

use pizza_agent::{
    CancellationToken, ChannelSink, RunProfile, SUBAGENT_MAX_MODEL_CALLS, Subagent, TASK_TOOL,
    UnavailableSkill,
};
use pizza_llm::{FakeTurn, ModelRequest};
use pizza_protocol::{MessagePart, RunEvent, RunStatus};
use pizza_store::Role;
use pizza_tools::ToolRegistry;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio::sync::{Barrier, mpsc};

use super::harness::{Hang, Harness, Rendezvous, TestAgent, config, result_of, wait_for};

pub(super) const RELAY_START: &str = "Some requests are best handled by a skill";

pub(super) fn skill(name: &str, tools: ToolRegistry) -> Arc<Subagent> {
    Arc::new(Subagent {
        name: name.to_owned(),
        description: format!("Handles {name}; returns a short report."),
        system_prompt: format!("You are the {name} skill."),
        tools,
        interrupt_on: BTreeMap::new(),
        files: Vec::new(),
    })
}

pub(super) fn with_skills(skills: Vec<Arc<Subagent>>) -> RunProfile {
    RunProfile {
        subagents: skills,
        ..config()
    }
}

pub(super) fn task(id: &str, skill: &str, ask: &str) -> FakeTurn {
    FakeTurn::tool_call(id, TASK_TOOL, json!({"skill": skill, "ask": ask}))
}

fn tool_names(request: &ModelRequest) -> Vec<&str> {
    request.tools.iter().map(|t| t.name.as_str()).collect()
}

/// Runs to the end, keeping each event's namespace.
pub(super) async fn run_namespaced(
    h: &Harness,
    agent: &TestAgent,
    text: &str,
) -> (pizza_agent::RunOutcome, Vec<(Vec<String>, RunEvent)>) {
    let (sink, mut rx) = ChannelSink::new();
    let outcome = agent
        .run(
            h.input(Some(text)),
            Arc::new(sink),
            CancellationToken::new(),
        )
        .await;
    (outcome, drain_all(&mut rx))
}

pub(super) fn drain_all(
    rx: &mut mpsc::UnboundedReceiver<(Vec<String>, RunEvent)>,
) -> Vec<(Vec<String>, RunEvent)> {
    let mut events = Vec::new();
    while let Ok(event) = rx.try_recv() {
        events.push(event);
    }
    events
}

#[tokio::test]
async fn task_reaches_the_skill_with_the_ask_and_its_report_is_the_result_verbatim() {
    let h = Harness::new().await;
    let mut notes = (*skill("notes", ToolRegistry::with_builtins())).clone();
    notes.files = vec![
        (
            "references/style.md".to_owned(),
            b"Use short lines.".to_vec(),
        ),
        ("logo.png".to_owned(), vec![0x89, 0x50, 0xff, 0x00]),
    ];
    let agent = h.agent(with_skills(vec![
        Arc::new(notes),
        skill("mail", ToolRegistry::new()),
    ]));
    let report = "Tidied 3 notes: a.md, b.md, c.md.";
    h.model.push_turn(task("t1", "notes", "tidy my notes"));
    h.model.push_turn(FakeTurn::tool_call(
        "r1",
        "read_file",
        json!({"file_path": "/skills/notes/references/style.md"}),
    ));
    h.model.push_turn(FakeTurn::text(report));
    h.model.push_turn(FakeTurn::text(report));
    let (outcome, events) = run_namespaced(&h, &agent, "tidy my notes").await;
    assert_eq!(outcome.status, RunStatus::Succeeded);

    let requests = h.model.requests();
    assert_eq!(requests.len(), 4);
    // The orchestrator is offered `task` over both skills, and told to relay.
    let root = &requests[0];
    assert!(tool_names(root).contains(&TASK_TOOL));
    let spec = root.tools.iter().find(|t| t.name == TASK_TOOL).unwrap();
    assert!(
        spec.description.contains("- notes: Handles notes"),
        "{}",
        spec.description
    );
    assert!(spec.description.contains("- mail: Handles mail"));
    assert_eq!(
        spec.input_schema["properties"]["skill"]["enum"],
        json!(["notes", "mail"])
    );
    assert!(root.system.as_deref().unwrap().contains(RELAY_START));
    // The subagent: its own prompt, the ask alone, no `task` (it cannot delegate).
    let sub = &requests[1];
    let system = sub.system.as_deref().unwrap();
    assert!(system.starts_with("You are the notes skill."), "{system}");
    assert!(system.contains("Current local time:"));
    assert!(!system.contains(RELAY_START));
    assert!(!tool_names(sub).contains(&TASK_TOOL));
    assert_eq!(sub.messages.len(), 1);
    assert_eq!(sub.messages[0].text(), "tidy my notes");

    // The thread's transcript holds the delegation and the report, verbatim.
    let transcript = h.transcript().await;
    assert_eq!(transcript.len(), 4, "{transcript:?}");
    assert_eq!(result_of(&transcript[2].1), ("t1", report, false));
    assert_eq!(
        transcript[3].1,
        vec![MessagePart::Text {
            text: report.into()
        }]
    );
    // The skill's files were seeded from the bundle; the binary one as base64.
    assert_eq!(
        h.file("/skills/notes/references/style.md").await.as_deref(),
        Some("Use short lines.")
    );
    assert_eq!(
        h.file("/skills/notes/logo.png.base64").await.as_deref(),
        Some("iVD/AA==")
    );
    let task = h.store.task(&h.thread_id, "t1").await.unwrap().unwrap();
    assert_eq!(task.skill, "notes");
    let read = &task.messages[2];
    assert_eq!(read.role, Role::Tool);
    assert!(read.text.contains("Use short lines."), "{}", read.text);

    // Events: started and finished at the root; the subagent's in its namespace.
    let ns = vec!["t1".to_owned()];
    assert!(events.contains(&(
        Vec::new(),
        RunEvent::SubagentStarted {
            task_id: "t1".into(),
            skill: "notes".into(),
            ask: "tidy my notes".into()
        }
    )));
    assert!(
        events.iter().any(|(n, e)| n == &ns
            && matches!(e, RunEvent::ToolStarted { name, .. } if name == "read_file"))
    );
    assert!(events.contains(&(
        Vec::new(),
        RunEvent::SubagentFinished {
            task_id: "t1".into(),
            status: RunStatus::Succeeded
        }
    )));
    // The subagent's text is never the orchestrator's answer stream.
    let root_text: String = events
        .iter()
        .filter(|(n, _)| n.is_empty())
        .filter_map(|(_, e)| match e {
            RunEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(root_text, report);
}

#[tokio::test]
async fn no_ready_skill_means_no_task_tool_and_no_delegation_text() {
    let h = Harness::new().await;
    let agent = h.agent(RunProfile {
        unavailable_skills: vec![UnavailableSkill {
            name: "github".into(),
            reasons: vec!["MCP server github is not configured".into()],
        }],
        ..config()
    });
    h.model.push_turn(FakeTurn::text("Hello."));
    let (outcome, _) = run_namespaced(&h, &agent, "hi").await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let request = &h.model.requests()[0];
    assert!(!tool_names(request).contains(&TASK_TOOL));
    let system = request.system.as_deref().unwrap();
    assert!(!system.contains(RELAY_START));
    assert!(
        system.contains("- github: MCP server github is not configured"),
        "{system}"
    );
}

#[tokio::test]
async fn an_unknown_skill_is_the_models_error_to_correct() {
    let h = Harness::new().await;
    let agent = h.agent(with_skills(vec![skill("notes", ToolRegistry::new())]));
    h.model.push_turn(task("t1", "nope", "x"));
    h.model.push_turn(FakeTurn::text("Sorry."));
    let (outcome, _) = run_namespaced(&h, &agent, "hi").await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let transcript = h.transcript().await;
    let (_, text, is_error) = result_of(&transcript[2].1);
    assert!(is_error);
    assert!(
        text.contains("no skill named `nope`; choose one of: notes"),
        "{text}"
    );
}

#[tokio::test]
async fn the_subagent_tool_limit_ends_with_a_tool_free_call_and_counts_one_for_the_root() {
    let h = Harness::new().await;
    let agent = h.agent(RunProfile {
        max_subagent_tool_calls: 1,
        max_tool_calls: 1,
        ..with_skills(vec![skill("notes", ToolRegistry::with_builtins())])
    });
    h.model.push_turn(task("t1", "notes", "look around"));
    h.model.push_turn(FakeTurn::tool_calls([
        ("l1", "ls", json!({"path": "/"})),
        ("l2", "ls", json!({"path": "/"})),
    ]));
    h.model.push_turn(FakeTurn::text(
        "Saw one folder; the second look was not run.",
    ));
    h.model.push_turn(FakeTurn::text("Done."));
    let (outcome, _) = run_namespaced(&h, &agent, "look").await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let requests = h.model.requests();
    assert_eq!(requests.len(), 4);
    // Out of tool calls, the subagent's last call has no tools and says so.
    assert!(requests[2].tools.is_empty());
    assert!(
        requests[2]
            .system
            .as_deref()
            .unwrap()
            .contains("You have no tool calls left")
    );
    // The delegation was the root's one allowed call; the root continues.
    let transcript = h.transcript().await;
    assert_eq!(
        result_of(&transcript[2].1),
        ("t1", "Saw one folder; the second look was not run.", false)
    );
    let task = h.store.task(&h.thread_id, "t1").await.unwrap().unwrap();
    assert!(
        task.messages
            .iter()
            .any(|m| m.text.contains("limit of 1 tool calls"))
    );
}

#[tokio::test]
async fn the_subagent_makes_at_most_40_model_calls_the_last_without_tools() {
    let h = Harness::new().await;
    let agent = h.agent(RunProfile {
        max_subagent_tool_calls: -1,
        ..with_skills(vec![skill("notes", ToolRegistry::with_builtins())])
    });
    h.model.push_turn(task("t1", "notes", "look forever"));
    for i in 1..SUBAGENT_MAX_MODEL_CALLS {
        h.model.push_turn(FakeTurn::tool_call(
            &format!("l{i}"),
            "ls",
            json!({"path": "/"}),
        ));
    }
    h.model.push_turn(FakeTurn::text("Looked 39 times."));
    h.model.push_turn(FakeTurn::text("Done."));
    let (outcome, _) = run_namespaced(&h, &agent, "look").await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let requests = h.model.requests();
    let last_sub = &requests[usize::try_from(SUBAGENT_MAX_MODEL_CALLS).unwrap()];
    assert!(last_sub.tools.is_empty());
    assert!(!requests[1].tools.is_empty());
    let transcript = h.transcript().await;
    assert_eq!(
        result_of(&transcript[2].1),
        ("t1", "Looked 39 times.", false)
    );
}

#[tokio::test]
async fn two_tasks_run_concurrently() {
    let h = Harness::new().await;
    let mut tools = ToolRegistry::new();
    // Each subagent's call waits for the other's: run one after the other, they hang.
    tools.register(Arc::new(Rendezvous(Barrier::new(2))));
    let agent = h.agent(with_skills(vec![
        skill("a", tools.clone()),
        skill("b", tools),
    ]));
    h.model.push_turn(FakeTurn::tool_calls([
        ("ta", TASK_TOOL, json!({"skill": "a", "ask": "meet"})),
        ("tb", TASK_TOOL, json!({"skill": "b", "ask": "meet"})),
    ]));
    h.model
        .push_turn(FakeTurn::tool_call("m", "rendezvous", json!({})));
    h.model
        .push_turn(FakeTurn::tool_call("m", "rendezvous", json!({})));
    h.model.push_turn(FakeTurn::text("Met."));
    h.model.push_turn(FakeTurn::text("Met."));
    h.model.push_turn(FakeTurn::text("Both met."));
    let (outcome, _) = run_namespaced(&h, &agent, "meet").await;
    assert_eq!(outcome.status, RunStatus::Succeeded, "{:?}", outcome.error);
    let transcript = h.transcript().await;
    let mut results: Vec<(&str, &str, bool)> =
        transcript[2..4].iter().map(|(_, p)| result_of(p)).collect();
    results.sort_unstable();
    assert_eq!(results, [("ta", "Met.", false), ("tb", "Met.", false)]);
}

#[tokio::test]
async fn cancel_inside_a_subagent_stops_it_promptly() {
    let h = Harness::new().await;
    let mut tools = ToolRegistry::new();
    tools.register(Arc::new(Hang {
        hangs: 1,
        ..Hang::default()
    }));
    let agent = h.agent(with_skills(vec![skill("slow", tools)]));
    h.model.push_turn(task("t1", "slow", "wait"));
    h.model
        .push_turn(FakeTurn::tool_call("h1", "hang", json!({})));
    let (sink, mut rx) = ChannelSink::new();
    let cancel = CancellationToken::new();
    let run = {
        let (agent, input, cancel) = (Arc::clone(&agent), h.input(Some("wait")), cancel.clone());
        tokio::spawn(async move { agent.run(input, Arc::new(sink), cancel).await })
    };
    wait_for(
        &mut rx,
        |e| matches!(e, RunEvent::ToolStarted { name, .. } if name == "hang"),
    )
    .await;
    let outcome = super::cancel::cancel_and_wait(&cancel, run).await;
    assert_eq!(outcome.status, RunStatus::Cancelled);
    let transcript = h.transcript().await;
    let (id, text, is_error) = result_of(&transcript[2].1);
    assert_eq!((id, is_error), ("t1", true));
    assert!(text.starts_with("Cancelled by the user"), "{text}");
    let rest = drain_all(&mut rx);
    assert!(rest.iter().any(|(n, e)| n.is_empty()
        && *e
            == RunEvent::SubagentFinished {
                task_id: "t1".into(),
                status: RunStatus::Cancelled
            }));
}
