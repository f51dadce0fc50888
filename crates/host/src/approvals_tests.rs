//! Approval policies through the host: set from the card and in Settings ›
//! Approvals, read at each run's start, kept across a restart; and the
//! compare-and-swap of an approved change to a memory file.

use super::*;
use crate::runs::tests::{MODEL, activity, open, subscribe, until_finished};
use pizza_llm::{FakeModel, FakeTurn};
use pizza_protocol::{
    AppEvent, ChangePreview, Decision, ErrorCode, Interrupt, RunEvent, RunEventFrame,
    RunRespondParams, RunStartParams, RunStatus, SettingsPatch, ThreadCreateParams,
};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

/// A titled thread (no title request after its first run) and its frames.
struct Thread {
    id: String,
    frames: mpsc::Receiver<RunEventFrame>,
}

async fn thread(host: &Host) -> Thread {
    let id = host
        .thread_create(ThreadCreateParams {
            title: Some("Approvals".into()),
            folder_id: None,
        })
        .await
        .unwrap()
        .id;
    let frames = subscribe(host, &id, None).await;
    Thread { id, frames }
}

async fn memory_on(host: &Host) {
    host.settings_update(SettingsPatch {
        memories_enabled: Some(true),
        ..SettingsPatch::default()
    })
    .await
    .unwrap();
}

fn write(id: &str, path: &str) -> FakeTurn {
    FakeTurn::tool_call(
        id,
        "write_file",
        json!({"file_path": path, "content": "pizza\n"}),
    )
}

/// How a run ended: its interrupt if it paused, and its tool results.
struct Ended {
    status: RunStatus,
    interrupt: Option<Interrupt>,
    results: Vec<(String, bool)>,
}

async fn ended(
    host_events: &mut broadcast::Receiver<AppEvent>,
    thread: &mut Thread,
    run_id: &str,
) -> Ended {
    let frames = until_finished(&mut thread.frames).await;
    activity(host_events, run_id).await;
    let mut ended = Ended {
        status: RunStatus::Running,
        interrupt: None,
        results: Vec::new(),
    };
    for frame in frames {
        match frame.event {
            RunEvent::Interrupt { interrupt } => ended.interrupt = Some(interrupt),
            RunEvent::ToolFinished {
                result, is_error, ..
            } => ended.results.push((result, is_error)),
            RunEvent::RunFinished { status, .. } => ended.status = status,
            _ => {}
        }
    }
    ended
}

async fn send(
    host: &Host,
    events: &mut broadcast::Receiver<AppEvent>,
    thread: &mut Thread,
    text: &str,
) -> Ended {
    let run = host
        .run_start(RunStartParams {
            thread_id: Some(thread.id.clone()),
            text: text.to_owned(),
            model: Some(MODEL.to_owned()),
            attachments: Vec::new(),
        })
        .await
        .unwrap();
    ended(events, thread, &run.run_id).await
}

async fn decide(
    host: &Host,
    events: &mut broadcast::Receiver<AppEvent>,
    thread: &mut Thread,
    interrupt: &Interrupt,
    decision: Decision,
) -> Ended {
    let run = host
        .run_respond(RunRespondParams {
            thread_id: thread.id.clone(),
            interrupt_id: interrupt.interrupt_id.clone(),
            decisions: interrupt
                .requests
                .iter()
                .map(|r| (r.call_id.clone(), decision.clone()))
                .collect(),
        })
        .await
        .unwrap();
    ended(events, thread, &run.run_id).await
}

async fn policy_of(host: &Host, tool: &str) -> Option<ApprovalPolicy> {
    let list = host.approval_list(ApprovalListParams {}).await.unwrap();
    list.tools
        .into_iter()
        .find(|t| t.tool == tool)
        .expect("a listed tool")
        .policy
}

#[tokio::test]
async fn always_allow_on_the_card_lets_the_next_runs_write_without_asking() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        write("w1", "/memories/a.md"),
        FakeTurn::text("Saved a."),
        write("w2", "/memories/b.md"),
        FakeTurn::text("Saved b."),
    ]);
    let host = open(&root, &model).await;
    memory_on(&host).await;
    let mut events = host.subscribe();
    let mut first = thread(&host).await;
    let paused = send(&host, &mut events, &mut first, "save a").await;
    let interrupt = paused.interrupt.expect("a write to /memories/ asks");
    assert_eq!(policy_of(&host, "write_file").await, None);

    let always = Decision::Approve {
        remember: Some(RememberScope::Always),
    };
    let done = decide(&host, &mut events, &mut first, &interrupt, always).await;
    assert_eq!(done.status, RunStatus::Succeeded);
    assert_eq!(
        policy_of(&host, "write_file").await,
        Some(ApprovalPolicy::Allow)
    );

    // Another thread, the next run: written without asking.
    let mut second = thread(&host).await;
    let done = send(&host, &mut events, &mut second, "save b").await;
    assert_eq!(done.status, RunStatus::Succeeded);
    assert_eq!(done.interrupt, None);
    let memories = root.path().join(crate::memory::MEMORIES_DIR);
    assert_eq!(
        std::fs::read_to_string(memories.join("b.md")).unwrap(),
        "pizza\n"
    );
}

#[tokio::test]
async fn allow_for_this_thread_survives_a_reopen_and_stays_in_its_thread() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([write("w1", "/memories/a.md"), FakeTurn::text("Saved a.")]);
    let host = open(&root, &model).await;
    memory_on(&host).await;
    let mut events = host.subscribe();
    let mut allowed = thread(&host).await;
    let paused = send(&host, &mut events, &mut allowed, "save a").await;
    let this_thread = Decision::Approve {
        remember: Some(RememberScope::Thread),
    };
    let interrupt = paused.interrupt.unwrap();
    let done = decide(&host, &mut events, &mut allowed, &interrupt, this_thread).await;
    assert_eq!(done.status, RunStatus::Succeeded);
    // The tool's policy is unchanged: only this thread allows it.
    assert_eq!(policy_of(&host, "write_file").await, None);
    host.close().await;
    drop(host);

    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    model.push_turn(write("w2", "/memories/b.md"));
    model.push_turn(FakeTurn::text("Saved b."));
    allowed.frames = subscribe(&host, &allowed.id, None).await;
    let done = send(&host, &mut events, &mut allowed, "save b").await;
    assert_eq!((done.status, done.interrupt), (RunStatus::Succeeded, None));

    model.push_turn(write("w3", "/memories/c.md"));
    let mut other = thread(&host).await;
    let paused = send(&host, &mut events, &mut other, "save c").await;
    assert_eq!(paused.status, RunStatus::Interrupted);
}

#[tokio::test]
async fn never_refuses_with_a_sentence_and_each_change_applies_to_the_next_run() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        write("w1", "/notes.md"),
        FakeTurn::text("Not allowed."),
        write("w2", "/notes.md"),
    ]);
    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    let mut t = thread(&host).await;
    host.approval_set(ApprovalSetParams {
        tool: "write_file".into(),
        policy: Some(ApprovalPolicy::Never),
    })
    .await
    .unwrap();
    let refused = send(&host, &mut events, &mut t, "write").await;
    assert_eq!(refused.status, RunStatus::Succeeded);
    let sentence = pizza_agent::refused_by_policy("write_file");
    assert_eq!(refused.results, [(sentence.clone(), true)]);
    assert!(sentence.contains("does not allow write_file in Settings › Approvals"));
    let seen = format!("{:?}", model.requests()[1].messages.last().unwrap());
    assert!(seen.contains("does not allow write_file"), "{seen}");

    // "Ask" now: the next run's write to the thread's own files asks.
    host.approval_set(ApprovalSetParams {
        tool: "write_file".into(),
        policy: Some(ApprovalPolicy::Ask),
    })
    .await
    .unwrap();
    let paused = send(&host, &mut events, &mut t, "write again").await;
    assert_eq!(paused.status, RunStatus::Interrupted);
    let preview = paused.interrupt.unwrap().requests[0].preview.clone();
    assert_eq!(
        preview,
        Some(ChangePreview::NewFile {
            path: "/notes.md".into(),
            content: "pizza\n".into()
        })
    );

    let unknown = host
        .approval_set(ApprovalSetParams {
            tool: "format_disk".into(),
            policy: Some(ApprovalPolicy::Allow),
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::InvalidInput);
}

#[tokio::test]
async fn the_older_list_reads_as_ask_until_a_change_or_a_reset() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::new()).await;
    host.store()
        .set_setting("agent.require_approval", &["write_file", "ls"])
        .await
        .unwrap();
    let listed = host.approval_list(ApprovalListParams {}).await.unwrap();
    let policies: Vec<(&str, Option<ApprovalPolicy>)> = listed
        .tools
        .iter()
        .map(|t| (t.tool.as_str(), t.policy))
        .collect();
    let ask = Some(ApprovalPolicy::Ask);
    assert_eq!(
        policies,
        [
            ("edit_file", None),
            ("glob", None),
            ("grep", None),
            ("ls", ask),
            ("read_file", None),
            ("write_file", ask),
        ]
    );
    let write = listed
        .tools
        .iter()
        .find(|t| t.tool == "write_file")
        .unwrap();
    assert!(write.default.contains("/local/"), "{}", write.default);
    let read = listed.tools.iter().find(|t| t.tool == "read_file").unwrap();
    assert_eq!(read.default, "Runs without asking.");

    // Clearing one folds the rest of the older list into the policies.
    host.approval_set(ApprovalSetParams {
        tool: "write_file".into(),
        policy: None,
    })
    .await
    .unwrap();
    assert_eq!(policy_of(&host, "write_file").await, None);
    assert_eq!(policy_of(&host, "ls").await, ask);
    assert_eq!(
        host.store()
            .setting_opt::<Value>("agent.require_approval")
            .await
            .unwrap(),
        None
    );

    let thread = host
        .thread_create(ThreadCreateParams::default())
        .await
        .unwrap();
    host.store()
        .allow_tool_in_thread(&thread.id, "edit_file")
        .await
        .unwrap();
    let reset = host.approval_reset(ApprovalResetParams {}).await.unwrap();
    assert!(reset.tools.iter().all(|t| t.policy.is_none()));
    assert!(
        host.store()
            .thread_tool_allowances(&thread.id)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn an_approved_write_over_a_memory_changed_meanwhile_asks_again() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::tool_call(
            "e1",
            "edit_file",
            json!({"file_path": "/memories/facts.md", "old_string": "dough", "new_string": "crust"}),
        ),
        FakeTurn::text("Edited."),
    ]);
    let host = open(&root, &model).await;
    memory_on(&host).await;
    let facts = root
        .path()
        .join(crate::memory::MEMORIES_DIR)
        .join("facts.md");
    std::fs::write(&facts, "dough\n").unwrap();
    let mut events = host.subscribe();
    let mut t = thread(&host).await;
    let paused = send(&host, &mut events, &mut t, "fix the facts").await;
    let interrupt = paused.interrupt.unwrap();
    assert_eq!(
        interrupt.requests[0].preview,
        Some(ChangePreview::Diff {
            path: "/memories/facts.md".into(),
            diff: "@@ -1 +1 @@\n-dough\n+crust\n".into()
        })
    );

    std::fs::write(&facts, "dough, thin\n").unwrap();
    let again = decide(&host, &mut events, &mut t, &interrupt, Decision::APPROVE).await;
    assert_eq!(again.status, RunStatus::Interrupted);
    assert!(again.results.is_empty(), "{:?}", again.results);
    assert_eq!(std::fs::read_to_string(&facts).unwrap(), "dough, thin\n");
    let interrupt = again.interrupt.unwrap();
    assert!(interrupt.requests[0].changed_since_request);
    assert!(host.store().thread(&t.id).await.unwrap().awaiting_action);

    let done = decide(&host, &mut events, &mut t, &interrupt, Decision::APPROVE).await;
    assert_eq!(done.status, RunStatus::Succeeded);
    assert_eq!(std::fs::read_to_string(&facts).unwrap(), "crust, thin\n");
}
