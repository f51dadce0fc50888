//! The corners of the run path a person hits without trying: a message
//! while a decision waits, a message is on disk before its run is answered,
//! the queue after a failed run, text that is too long, and deleting or
//! forking a thread while it works.

use super::tests::{activity, open, start, subscribe, until_finished};
use super::tests_queue::{
    activity_other_than, approve_c1, note_then_answer, paused_on_a_note, queue,
};
use super::*;
use pizza_llm::{FakeModel, FakeTurn, StreamEvent};
use pizza_protocol::{
    AppEvent, ErrorCode, ErrorReason, MESSAGE_TEXT_MAX_BYTES, RunEvent, RunStatus,
    ThreadForkParams, ThreadGetParams,
};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;
use tokio::sync::Notify;

fn working() -> FakeTurn {
    FakeTurn::from_events([StreamEvent::TextDelta {
        text: "working".into(),
    }])
}

/// What the store holds for the thread: its messages' texts and its runs.
async fn written(host: &Host, thread_id: &str) -> (Vec<String>, Vec<String>) {
    let state = host.store().state(thread_id, None).await.unwrap();
    let runs = host.store().thread_runs(thread_id, 50).await.unwrap();
    (
        state.messages.into_iter().map(|m| m.text).collect(),
        runs.into_iter().map(|r| r.id).collect(),
    )
}

#[tokio::test]
async fn a_message_while_a_decision_waits_is_refused_or_queued_and_never_fails_a_run() {
    let root = TempDataRoot::new().unwrap();
    let model = note_then_answer();
    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    let thread = paused_on_a_note(&host, &mut events).await;
    let before = written(&host, &thread).await;

    let refused = host
        .run_start(start(Some(&thread), "and this"))
        .await
        .unwrap_err();
    assert_eq!(
        (refused.code, refused.reason),
        (ErrorCode::Conflict, Some(ErrorReason::AwaitingDecision))
    );
    assert_eq!(written(&host, &thread).await, before, "nothing written");
    assert!(host.store().thread(&thread).await.unwrap().awaiting_action);

    let queued = host
        .queue_add(queue(&thread, "and this"))
        .await
        .unwrap()
        .queued
        .expect("queued behind the decision");
    assert_eq!(host.live_run(&thread), None);
    assert!(host.store().thread(&thread).await.unwrap().awaiting_action);
    assert_eq!(written(&host, &thread).await, before);

    let interrupt = host
        .thread_get(ThreadGetParams {
            thread_id: thread.clone(),
            ..ThreadGetParams::default()
        })
        .await
        .unwrap()
        .pending_interrupt
        .expect("still pending");
    let decided = approve_c1(&host, &thread, interrupt.interrupt_id).await;
    activity(&mut events, &decided.run_id).await;
    // The queued message runs next.
    let (_, status) = activity_other_than(&mut events, &decided.run_id).await;
    assert_eq!(status, RunStatus::Succeeded);
    let (texts, runs) = written(&host, &thread).await;
    assert!(texts.contains(&queued.text), "{texts:?}");
    assert_eq!(runs.len(), 3, "paused, decided, queued: none failed");
}

#[tokio::test]
async fn run_start_answers_after_the_message_is_committed() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("hi"), FakeTurn::text("Title")]);
    let host = open(&root, &model).await;
    // A current-thread runtime: the run's task has not run when the answer
    // comes, so only what `run_start` itself wrote is in the store.
    let started = host.run_start(start(None, "remember me")).await.unwrap();
    assert_eq!(
        written(&host, &started.thread_id).await,
        (vec!["remember me".to_owned()], vec![started.run_id.clone()])
    );
    let again = host
        .run_start(start(Some(&started.thread_id), "still here?"))
        .await;
    assert_eq!(again.unwrap_err().code, ErrorCode::Conflict, "busy");
    let mut rx = subscribe(&host, &started.thread_id, None).await;
    let frames = until_finished(&mut rx).await;
    // The window hears of the committed message once the run has started.
    assert!(matches!(frames[0].event, RunEvent::RunStarted { .. }));
    assert!(matches!(
        &frames[1].event,
        RunEvent::MessageCompleted { message } if message.role == pizza_protocol::Role::User
    ));
}

#[tokio::test]
async fn a_queued_message_sends_after_a_failed_run() {
    let root = TempDataRoot::new().unwrap();
    let gate = Arc::new(Notify::new());
    let model = FakeModel::with_turns([
        working()
            .then_wait(&gate)
            .then_error(pizza_llm::Error::general("the provider broke")),
        FakeTurn::text("second answer"),
        FakeTurn::text("Title"),
    ]);
    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    let first = host.run_start(start(None, "first")).await.unwrap();
    let thread = first.thread_id.clone();
    let queued = host.queue_add(queue(&thread, "second")).await.unwrap();
    assert!(queued.queued.is_some(), "the first run is live");
    gate.notify_one();
    let AppEvent::Activity { status, .. } = activity(&mut events, &first.run_id).await else {
        unreachable!()
    };
    assert_eq!(status, RunStatus::Failed);
    let (_, status) = activity_other_than(&mut events, &first.run_id).await;
    assert_eq!(status, RunStatus::Succeeded, "sent after the failure");
    assert_eq!(
        written(&host, &thread).await.0.first().map(String::as_str),
        Some("first")
    );
    assert!(
        host.store()
            .queued_messages(&thread)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn text_over_a_mebibyte_is_refused_and_nothing_is_written() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("ok"), FakeTurn::text("Title")]);
    let host = open(&root, &model).await;
    let long = "é".repeat(MESSAGE_TEXT_MAX_BYTES / 2 + 1);
    let refused = host.run_start(start(None, &long)).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert!(refused.message.contains("KiB"), "{}", refused.message);
    assert_eq!(
        host.store()
            .thread_counts(&store::FolderFilter::Any)
            .await
            .unwrap()
            .all,
        0
    );

    let started = host.run_start(start(None, "short")).await.unwrap();
    let thread = started.thread_id.clone();
    // Its answer lands first, so what is compared is only what the refusals touch.
    until_finished(&mut subscribe(&host, &thread, Some(0)).await).await;
    let before = written(&host, &thread).await;
    for refused in [
        host.run_start(start(Some(&thread), &long))
            .await
            .unwrap_err(),
        host.queue_add(queue(&thread, &long)).await.unwrap_err(),
    ] {
        assert_eq!(refused.code, ErrorCode::InvalidInput);
    }
    assert_eq!(written(&host, &thread).await, before);
    assert!(
        host.store()
            .queued_messages(&thread)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn deleting_a_working_thread_stops_its_run_first_and_forking_it_is_refused() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([working().then_hang(), FakeTurn::text("never asked")]);
    let host = open(&root, &model).await;
    let started = host.run_start(start(None, "work")).await.unwrap();
    let thread = started.thread_id.clone();
    let mut rx = subscribe(&host, &thread, None).await;
    while !matches!(
        super::tests::next(&mut rx).await.event,
        RunEvent::TextDelta { .. }
    ) {}

    let (messages, _) = written(&host, &thread).await;
    assert_eq!(messages.len(), 1);
    let message_id = host.store().state(&thread, None).await.unwrap().messages[0]
        .id
        .clone();
    let refused = host
        .thread_fork(ThreadForkParams {
            thread_id: thread.clone(),
            message_id,
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Conflict);
    assert!(refused.message.contains("fork"), "{}", refused.message);
    assert_eq!(
        host.store()
            .thread_counts(&store::FolderFilter::Any)
            .await
            .unwrap()
            .all,
        1
    );

    host.thread_delete(ThreadIdParams {
        thread_id: thread.clone(),
    })
    .await
    .unwrap();
    assert_eq!(host.live_run(&thread), None);
    let frames = until_finished(&mut rx).await;
    assert_eq!(
        frames.last().map(|f| &f.event),
        Some(&RunEvent::RunFinished {
            status: RunStatus::Cancelled,
            error: None
        })
    );
    assert!(matches!(
        host.store().thread(&thread).await,
        Err(store::Error::NotFound { .. })
    ));
    assert_eq!(model.requests().len(), 1, "no model call after the delete");
    assert_eq!(model.remaining_turns(), 1);
}
