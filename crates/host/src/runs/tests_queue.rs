//! The host's one start path and its queue: refuse or queue when busy, a
//! queued message sent after the live run ends with no window at all, the
//! queue surviving a reopen, and the live run and last outcome in lists.

use super::tests::{MODEL, activity, next, open, start, subscribe, until_finished};
use super::*;
use pizza_llm::{FakeModel, FakeTurn, StreamEvent};
use pizza_protocol::{
    AppEvent, Decision, ErrorCode, MessagePart, QueueAddParams, QueueRemoveParams, QueuedMessage,
    Role, RunEvent, RunStatus, ThreadGetParams, ThreadListParams,
};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;
use serde_json::json;
use std::time::Duration;
use tokio::sync::broadcast;

const STUCK: Duration = Duration::from_secs(10);

fn hang_after(text: &str) -> FakeTurn {
    FakeTurn::from_events([StreamEvent::TextDelta {
        text: text.to_owned(),
    }])
    .then_hang()
}

/// A run that pauses on a write of `/notes.md` (call `c1`), is answered
/// "Saved." and titled once approved, then "second answer" to the next message.
pub(super) fn note_then_answer() -> FakeModel {
    FakeModel::with_turns([
        FakeTurn::tool_call(
            "c1",
            "write_file",
            json!({"file_path": "/notes.md", "content": "pizza"}),
        ),
        FakeTurn::text("Saved."),
        FakeTurn::text("Notes Title"),
        FakeTurn::text("second answer"),
    ])
}

/// With writes asking, starts "save a note" on a new thread and waits until
/// its run has paused for the decision; returns the thread.
pub(super) async fn paused_on_a_note(
    host: &Host,
    events: &mut broadcast::Receiver<AppEvent>,
) -> String {
    super::tests::ask_before_writes(host).await;
    let paused = host.run_start(start(None, "save a note")).await.unwrap();
    activity(events, &paused.run_id).await;
    paused.thread_id
}

/// Approves call `c1` of the interrupt, as the card does.
pub(super) async fn approve_c1(
    host: &Host,
    thread_id: &str,
    interrupt_id: String,
) -> RunStartResponse {
    host.run_respond(RunRespondParams {
        thread_id: thread_id.to_owned(),
        interrupt_id,
        decisions: [("c1".to_owned(), Decision::APPROVE)].into(),
    })
    .await
    .unwrap()
}

pub(super) fn queue(thread_id: &str, text: &str) -> QueueAddParams {
    QueueAddParams {
        thread_id: thread_id.to_owned(),
        text: text.to_owned(),
        model: Some(MODEL.to_owned()),
        attachments: Vec::new(),
    }
}

/// The next `activity` notice of a run other than `not`: (run id, status).
pub(super) async fn activity_other_than(
    events: &mut broadcast::Receiver<AppEvent>,
    not: &str,
) -> (String, RunStatus) {
    loop {
        let event = tokio::time::timeout(STUCK, events.recv())
            .await
            .expect("no activity in time")
            .unwrap();
        if let AppEvent::Activity {
            run_id: Some(run_id),
            status,
            ..
        } = event
            && run_id != not
        {
            return (run_id, status);
        }
    }
}

/// The next `queue_changed` notice's queue.
async fn queue_changed(events: &mut broadcast::Receiver<AppEvent>) -> Vec<QueuedMessage> {
    loop {
        let event = tokio::time::timeout(STUCK, events.recv())
            .await
            .expect("no queue_changed in time")
            .unwrap();
        if let AppEvent::QueueChanged { queued, .. } = event {
            return queued;
        }
    }
}

async fn detail(host: &Host, thread_id: &str) -> pizza_protocol::ThreadDetail {
    host.thread_get(ThreadGetParams {
        thread_id: thread_id.to_owned(),
        ..ThreadGetParams::default()
    })
    .await
    .unwrap()
}

fn texts(detail: &pizza_protocol::ThreadDetail, role: Role) -> Vec<String> {
    detail
        .messages
        .iter()
        .filter(|m| m.role == role)
        .flat_map(|m| m.parts.iter())
        .filter_map(|p| match p {
            MessagePart::Text { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_queued_message_runs_after_the_live_run_ends_with_no_window_open() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        hang_after("working"),
        FakeTurn::text("second answer"),
        FakeTurn::text("Queued Title"),
    ]);
    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    let first = host.run_start(start(None, "first")).await.unwrap();
    let thread = first.thread_id.clone();
    let mut rx = subscribe(&host, &thread, None).await;
    while !matches!(next(&mut rx).await.event, RunEvent::TextDelta { .. }) {}
    // The window goes away: no thread subscriber, nobody looking.
    drop(rx);
    host.set_window_shown(false);

    // Refuse vs queue on the busy thread.
    let refused = host
        .run_start(start(Some(&thread), "second"))
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Conflict);
    let added = host.queue_add(queue(&thread, "  second  ")).await.unwrap();
    assert_eq!(added.run_id, None);
    let queued = added.queued.expect("queued while busy");
    assert_eq!(queued.text, "second");
    assert_eq!(queue_changed(&mut events).await, vec![queued.clone()]);
    let shown = detail(&host, &thread).await;
    assert_eq!(shown.queued, vec![queued.clone()]);
    assert_eq!(
        shown.thread.live_run_id.as_deref(),
        Some(first.run_id.as_str())
    );

    assert!(
        host.run_cancel(RunCancelParams {
            thread_id: thread.clone(),
            run_id: first.run_id.clone(),
        })
        .await
        .unwrap()
        .cancelled
    );
    let AppEvent::Activity { status, .. } = activity(&mut events, &first.run_id).await else {
        unreachable!()
    };
    assert_eq!(status, RunStatus::Cancelled);
    assert_eq!(queue_changed(&mut events).await, vec![]);
    let (second_run, status) = activity_other_than(&mut events, &first.run_id).await;
    assert_eq!(status, RunStatus::Succeeded);

    let shown = detail(&host, &thread).await;
    assert_eq!(shown.queued, vec![]);
    assert_eq!(texts(&shown, Role::User), ["first", "second"]);
    assert_eq!(
        texts(&shown, Role::Assistant).last().map(String::as_str),
        Some("second answer")
    );
    assert_eq!(shown.thread.live_run_id, None);
    let last = shown.thread.last_run.expect("an outcome");
    assert_eq!(
        (last.run_id, last.status),
        (second_run, RunStatus::Succeeded)
    );
    assert!(shown.thread.unread, "nobody was looking");
}

#[tokio::test]
async fn the_queue_waits_for_a_decision_and_survives_reopening_the_host() {
    let root = TempDataRoot::new().unwrap();
    let model = note_then_answer();
    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    let thread = paused_on_a_note(&host, &mut events).await;
    // Free of runs, but a decision is pending: the message waits.
    let queued = host
        .queue_add(queue(&thread, "and then this"))
        .await
        .unwrap()
        .queued
        .expect("queued behind the decision");
    host.close().await;
    drop(host);

    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    host.start_queued_messages().await;
    let shown = detail(&host, &thread).await;
    assert_eq!(shown.queued, vec![queued]);
    assert_eq!(host.live_run(&thread), None);
    let interrupt = shown.pending_interrupt.expect("still pending");

    let decided = approve_c1(&host, &thread, interrupt.interrupt_id).await;
    let AppEvent::Activity { status, .. } = activity(&mut events, &decided.run_id).await else {
        unreachable!()
    };
    assert_eq!(status, RunStatus::Succeeded);
    let (_, status) = activity_other_than(&mut events, &decided.run_id).await;
    assert_eq!(status, RunStatus::Succeeded);
    let shown = detail(&host, &thread).await;
    assert_eq!(shown.queued, vec![]);
    assert_eq!(texts(&shown, Role::User), ["save a note", "and then this"]);
    assert_eq!(
        texts(&shown, Role::Assistant).last().map(String::as_str),
        Some("second answer")
    );
}

#[tokio::test]
async fn at_start_a_free_thread_sends_its_oldest_queued_message_then_the_next() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::text("one done"),
        FakeTurn::text("One Title"),
        FakeTurn::text("two done"),
    ]);
    let host = open(&root, &model).await;
    let thread = host
        .thread_create(pizza_protocol::ThreadCreateParams::default())
        .await
        .unwrap();
    // As a host that quit between a run's end and sending the queue left it.
    for text in ["one", "two"] {
        host.store()
            .queue_message(&thread.id, text, Some(MODEL), &[])
            .await
            .unwrap();
    }
    host.close().await;
    drop(host);

    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    host.start_queued_messages().await;
    let first = host.live_run(&thread.id).expect("the oldest started");
    assert_eq!(
        detail(&host, &thread.id)
            .await
            .queued
            .iter()
            .map(|q| q.text.as_str())
            .collect::<Vec<_>>(),
        ["two"]
    );
    activity(&mut events, &first).await;
    activity_other_than(&mut events, &first).await;
    let shown = detail(&host, &thread.id).await;
    assert_eq!(shown.queued, vec![]);
    assert_eq!(texts(&shown, Role::User), ["one", "two"]);
}

#[tokio::test]
async fn a_free_thread_sends_at_once_and_a_removed_message_is_never_sent() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([hang_after("working")]);
    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    let thread = host
        .thread_create(pizza_protocol::ThreadCreateParams::default())
        .await
        .unwrap();
    let sent = host.queue_add(queue(&thread.id, "now")).await.unwrap();
    let run_id = sent.run_id.expect("sent at once");
    assert_eq!(sent.queued, None);

    let queued = host
        .queue_add(queue(&thread.id, "later"))
        .await
        .unwrap()
        .queued
        .unwrap();
    assert_eq!(queue_changed(&mut events).await.len(), 1);
    host.queue_remove(QueueRemoveParams {
        thread_id: thread.id.clone(),
        queued_id: queued.id.clone(),
    })
    .await
    .unwrap();
    assert_eq!(queue_changed(&mut events).await, vec![]);
    let again = host
        .queue_remove(QueueRemoveParams {
            thread_id: thread.id.clone(),
            queued_id: queued.id,
        })
        .await
        .unwrap_err();
    assert_eq!(again.code, ErrorCode::NotFound);
    let blank = host.queue_add(queue(&thread.id, " ")).await.unwrap_err();
    assert_eq!(blank.code, ErrorCode::InvalidInput);

    let mut rx = subscribe(&host, &thread.id, None).await;
    host.run_cancel(RunCancelParams {
        thread_id: thread.id.clone(),
        run_id: run_id.clone(),
    })
    .await
    .unwrap();
    until_finished(&mut rx).await;
    activity(&mut events, &run_id).await;
    assert_eq!(host.live_run(&thread.id), None);
    assert_eq!(model.remaining_turns(), 0);
}

#[tokio::test]
async fn thread_list_shows_a_run_started_elsewhere_and_the_last_outcome_with_its_code() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::error(pizza_llm::Error::AuthExpired {
            provider_message: "bad key".into(),
        }),
        hang_after("working"),
    ]);
    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    // As the trigger scheduler will: a new thread, no window involved.
    let Started::Run {
        thread_id,
        run_id: failed,
    } = host
        .start(RunStart {
            target: StartTarget::NewThread {
                source: ThreadSource::Trigger,
                folder_id: None,
                title: Some("Daily digest".into()),
            },
            begin: RunBegin::Message {
                text: "digest".into(),
                attachments: Vec::new(),
            },
            source: RunSource::Trigger,
            model: Some(MODEL.into()),
            when_busy: WhenBusy::Refuse,
            occurrence: None,
        })
        .await
        .unwrap()
    else {
        panic!("a trigger run is never queued")
    };
    activity(&mut events, &failed).await;
    assert_eq!(
        host.store().run(&failed).await.unwrap().source,
        RunSource::Trigger
    );

    let live = host
        .run_start(start(Some(&thread_id), "again"))
        .await
        .unwrap();
    let list = host.thread_list(ThreadListParams::default()).await.unwrap();
    let summary = list.threads.iter().find(|t| t.id == thread_id).unwrap();
    assert_eq!(
        (summary.title.as_str(), summary.source),
        ("Daily digest", ThreadSource::Trigger)
    );
    assert_eq!(summary.live_run_id.as_deref(), Some(live.run_id.as_str()));
    let last = summary.last_run.clone().expect("the failed run");
    assert_eq!(
        (last.run_id, last.status, last.error_code),
        (failed, RunStatus::Failed, Some(ErrorCode::AuthExpired))
    );

    let attachments = host
        .start(RunStart {
            target: StartTarget::Thread(thread_id.clone()),
            begin: RunBegin::Message {
                text: "see attached".into(),
                attachments: vec!["a1".into()],
            },
            source: RunSource::User,
            model: None,
            when_busy: WhenBusy::Queue,
            occurrence: None,
        })
        .await
        .unwrap_err();
    assert_eq!(attachments.code, ErrorCode::InvalidInput);
    host.run_cancel(RunCancelParams {
        thread_id: thread_id.clone(),
        run_id: live.run_id.clone(),
    })
    .await
    .unwrap();
    activity(&mut events, &live.run_id).await;
    let list = host.thread_list(ThreadListParams::default()).await.unwrap();
    let summary = list.threads.iter().find(|t| t.id == thread_id).unwrap();
    assert_eq!(summary.live_run_id, None);
    assert_eq!(
        summary
            .last_run
            .as_ref()
            .map(|r| (r.run_id.as_str(), r.status)),
        Some((live.run_id.as_str(), RunStatus::Cancelled))
    );
}

#[tokio::test]
async fn a_resume_offer_lives_on_the_run_row_holds_the_queue_and_a_new_run_ends_it() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::text("queued done"),
        FakeTurn::text("Queued Title"),
        FakeTurn::text("fresh done"),
        FakeTurn::text("Fresh Title"),
    ]);
    let host = open(&root, &model).await;
    let held = super::tests_hitl::crashed_thread(&host, "first question").await;
    let superseded = super::tests_hitl::crashed_thread(&host, "second question").await;
    host.close().await;
    drop(host);

    let host = open(&root, &model).await;
    let queued = host
        .queue_add(queue(&held, "after the offer"))
        .await
        .unwrap()
        .queued
        .expect("queued behind the Resume offer");
    host.close().await;
    drop(host);

    // Another restart: the offer and the queue are both still there.
    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    host.start_queued_messages().await;
    let shown = detail(&host, &held).await;
    assert!(shown.resumable);
    assert_eq!(shown.queued, vec![queued]);
    assert!(host.store().thread_resumable(&held).await.unwrap());

    host.run_discard(ThreadIdParams {
        thread_id: held.clone(),
    })
    .await
    .unwrap();
    let sent = host.live_run(&held).expect("discarding sends the queue");
    activity(&mut events, &sent).await;
    let shown = detail(&host, &held).await;
    assert!(!shown.resumable);
    assert_eq!(
        texts(&shown, Role::User),
        ["first question", "after the offer"]
    );

    // A new message instead of Resume / Discard ends the offer too.
    let fresh = host
        .run_start(start(Some(&superseded), "never mind"))
        .await
        .unwrap();
    let shown = detail(&host, &superseded).await;
    assert!(!shown.resumable);
    assert!(!shown.thread.awaiting_action, "nothing left to act on");
    activity(&mut events, &fresh.run_id).await;
}
