//! Decisions (`run_respond`) and crash recovery (`run_resume`, `run_discard`).

use super::tests::{MODEL, activity, ask_before_writes, open, start, subscribe, until_finished};
use super::*;
use pizza_llm::{FakeModel, FakeTurn};
use pizza_protocol::{AppEvent, Decision, ErrorCode, RunEvent, RunStatus, ThreadGetParams};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;
use serde_json::json;

#[tokio::test]
async fn an_approval_pauses_the_run_and_respond_continues_it_once() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::tool_call(
            "c1",
            "write_file",
            json!({"file_path": "/notes.md", "content": "pizza"}),
        ),
        FakeTurn::text("Saved your notes."),
    ]);
    let host = open(&root, &model).await;
    ask_before_writes(&host).await;
    let mut events = host.subscribe();
    let started = host.run_start(start(None, "save a note")).await.unwrap();
    let thread = started.thread_id.clone();
    let mut rx = subscribe(&host, &thread, None).await;
    let frames = until_finished(&mut rx).await;
    let interrupt = frames
        .iter()
        .find_map(|f| match &f.event {
            RunEvent::Interrupt { interrupt } => Some(interrupt.clone()),
            _ => None,
        })
        .expect("an interrupt");
    let AppEvent::Activity { status, .. } = activity(&mut events, &started.run_id).await else {
        unreachable!()
    };
    assert_eq!(status, RunStatus::Interrupted);
    assert!(host.store().thread(&thread).await.unwrap().awaiting_action);

    let respond = || RunRespondParams {
        thread_id: thread.clone(),
        interrupt_id: interrupt.interrupt_id.clone(),
        decisions: [("c1".to_owned(), Decision::APPROVE)].into(),
    };
    let resumed = host.run_respond(respond()).await.unwrap();
    assert_ne!(resumed.run_id, started.run_id);
    let frames = until_finished(&mut rx).await;
    assert!(frames.iter().any(|f| matches!(
        &f.event,
        RunEvent::ToolFinished { name, is_error: false, .. } if name == "write_file"
    )));
    assert_eq!(
        frames.last().map(|f| &f.event),
        Some(&RunEvent::RunFinished {
            status: RunStatus::Succeeded,
            error: None
        })
    );
    activity(&mut events, &resumed.run_id).await;
    assert!(!host.store().thread(&thread).await.unwrap().awaiting_action);

    let again = host.run_respond(respond()).await.unwrap_err();
    assert_eq!(again.code, ErrorCode::Conflict);
    assert_eq!(host.live_run(&thread), None);
}

/// A thread whose run was live when the app died: a committed user message
/// and a `running` run row, as the store holds them after a crash.
pub(super) async fn crashed_thread(host: &Host, text: &str) -> String {
    let thread = host
        .store()
        .create_thread(store::NewThread {
            model: Some(MODEL.to_owned()),
            ..store::NewThread::default()
        })
        .await
        .unwrap();
    let parts = vec![store::Part::text(text)];
    host.store()
        .commit_step(
            &thread.id,
            store::StepCommit {
                messages: vec![store::NewMessage::new(store::Role::User, parts, text)],
                files: Vec::new(),
                interrupt: None,
                metadata: json!({}),
            },
        )
        .await
        .unwrap();
    host.store()
        .create_run(&thread.id, store::RunSource::User)
        .await
        .unwrap();
    thread.id
}

async fn resumable(host: &Host, thread_id: &str) -> bool {
    host.thread_get(ThreadGetParams {
        thread_id: thread_id.to_owned(),
        ..ThreadGetParams::default()
    })
    .await
    .unwrap()
    .resumable
}

#[tokio::test]
async fn runs_live_at_a_crash_are_interrupted_and_can_be_resumed_or_discarded() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("Back at it.")]);
    let host = open(&root, &model).await;
    let to_resume = crashed_thread(&host, "first question").await;
    let to_discard = crashed_thread(&host, "second question").await;
    host.close().await;

    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    for thread in [&to_resume, &to_discard] {
        let runs = host.store().thread_runs(thread, 5).await.unwrap();
        assert_eq!(runs[0].status, store::RunStatus::Interrupted);
        assert!(host.store().thread(thread).await.unwrap().awaiting_action);
        assert!(resumable(&host, thread).await);
    }

    let resumed = host
        .run_resume(ThreadIdParams {
            thread_id: to_resume.clone(),
        })
        .await
        .unwrap();
    let mut rx = subscribe(&host, &to_resume, None).await;
    let frames = until_finished(&mut rx).await;
    assert_eq!(
        frames.last().map(|f| &f.event),
        Some(&RunEvent::RunFinished {
            status: RunStatus::Succeeded,
            error: None
        })
    );
    // The pending model call was made again, with the committed question.
    let request = &model.requests()[0];
    assert_eq!(request.messages.len(), 1);
    assert_eq!(request.messages[0].text(), "first question");
    activity(&mut events, &resumed.run_id).await;
    assert!(!resumable(&host, &to_resume).await);

    host.run_discard(ThreadIdParams {
        thread_id: to_discard.clone(),
    })
    .await
    .unwrap();
    assert!(!resumable(&host, &to_discard).await);
    assert!(
        !host
            .store()
            .thread(&to_discard)
            .await
            .unwrap()
            .awaiting_action
    );
    let refused = host
        .run_resume(ThreadIdParams {
            thread_id: to_discard,
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Conflict);
}
