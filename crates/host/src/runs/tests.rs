//! Run registry and run commands, against a real temp store and a scripted
//! model registered in the host's catalog. Tests run on a current-thread
//! runtime, so a spawned run cannot start before the test yields.

use super::*;
use crate::{DataRoot, HostOptions};
use futures::FutureExt;
use futures::future::BoxFuture;
use pizza_llm::{FakeModel, FakeTurn, ModelClient, ModelDescriptor, ModelRequest, StreamEvent};
use pizza_protocol::{AppEvent, ErrorCode, RunEvent, RunStatus};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;
use std::time::Duration;
use tokio::sync::broadcast;

pub(crate) const MODEL: &str = "fake:m";
/// A safety net so a broken test fails instead of hanging; never a wait.
const STUCK: Duration = Duration::from_secs(10);

/// A [`FakeModel`] as a catalog provider named `fake`.
#[derive(Debug)]
pub(crate) struct FakeProvider(pub(crate) FakeModel);

impl ModelClient for FakeProvider {
    fn stream(
        &self,
        request: ModelRequest,
        cancel: pizza_llm::CancellationToken,
    ) -> BoxFuture<'_, pizza_llm::Result<pizza_llm::EventStream>> {
        self.0.stream(request, cancel)
    }
}

impl pizza_providers::Provider for FakeProvider {
    fn provider_id(&self) -> &str {
        "fake"
    }

    /// `m`, a model that sees images.
    fn list_models(&self) -> BoxFuture<'_, pizza_llm::Result<Vec<ModelDescriptor>>> {
        let mut model = ModelDescriptor::bare("m");
        model.supports_vision = true;
        async move { Ok(vec![model]) }.boxed()
    }
}

pub(crate) async fn open(root: &TempDataRoot, model: &FakeModel) -> Host {
    open_with(root, model, HostOptions::default()).await
}

/// [`open`] with options of the test's own (no Ollama probe either way).
pub(crate) async fn open_with(
    root: &TempDataRoot,
    model: &FakeModel,
    options: HostOptions,
) -> Host {
    let host = Host::open(
        DataRoot::prepare(root.path()).unwrap(),
        options.with_ollama_probe(None),
    )
    .await
    .unwrap();
    host.model_catalog()
        .await
        .register(Arc::new(FakeProvider(model.clone())));
    host
}

/// Writes to the thread's own files do not ask by default; tests that pause
/// on one set write_file to "ask".
pub(crate) async fn ask_before_writes(host: &Host) {
    host.approval_set(pizza_protocol::ApprovalSetParams {
        tool: "write_file".to_owned(),
        policy: Some(pizza_protocol::ApprovalPolicy::Ask),
    })
    .await
    .unwrap();
}

pub(crate) fn start(thread_id: Option<&str>, text: &str) -> RunStartParams {
    RunStartParams {
        thread_id: thread_id.map(str::to_owned),
        text: text.to_owned(),
        model: Some(MODEL.to_owned()),
        attachments: Vec::new(),
    }
}

pub(crate) async fn subscribe(
    host: &Host,
    thread_id: &str,
    since: Option<u64>,
) -> mpsc::Receiver<RunEventFrame> {
    host.thread_subscribe(ThreadSubscribeParams {
        thread_id: thread_id.to_owned(),
        since,
    })
    .await
    .unwrap()
    .1
}

pub(super) async fn next(rx: &mut mpsc::Receiver<RunEventFrame>) -> RunEventFrame {
    tokio::time::timeout(STUCK, rx.recv())
        .await
        .expect("no frame in time")
        .expect("subscription ended")
}

/// Frames up to and including the run's `run_finished`.
pub(crate) async fn until_finished(rx: &mut mpsc::Receiver<RunEventFrame>) -> Vec<RunEventFrame> {
    let mut frames = Vec::new();
    loop {
        let frame = next(rx).await;
        let done = matches!(frame.event, RunEvent::RunFinished { .. });
        frames.push(frame);
        if done {
            return frames;
        }
    }
}

/// The `activity` notice of `run_id`: run-end maintenance is done.
pub(crate) async fn activity(events: &mut broadcast::Receiver<AppEvent>, run_id: &str) -> AppEvent {
    loop {
        let event = tokio::time::timeout(STUCK, events.recv())
            .await
            .expect("no activity in time")
            .unwrap();
        if matches!(&event, AppEvent::Activity { run_id: Some(r), .. } if r == run_id) {
            return event;
        }
    }
}

fn deltas(frames: &[RunEventFrame]) -> String {
    frames
        .iter()
        .filter_map(|f| match &f.event {
            RunEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn assert_increasing(frames: &[RunEventFrame]) {
    assert!(
        frames.windows(2).all(|w| w[0].seq < w[1].seq),
        "seq not increasing: {:?}",
        frames.iter().map(|f| f.seq).collect::<Vec<_>>()
    );
}

fn finished_status(frame: &RunEventFrame) -> RunStatus {
    match &frame.event {
        RunEvent::RunFinished { status, .. } => *status,
        other => panic!("not run_finished: {other:?}"),
    }
}

/// A turn that streams `pieces` and then waits for a cancel.
fn streaming_then_hang(pieces: &[&str]) -> FakeTurn {
    FakeTurn::from_events(pieces.iter().map(|p| StreamEvent::TextDelta {
        text: (*p).to_owned(),
    }))
    .then_hang()
}

#[tokio::test]
async fn a_text_run_answers_first_then_streams_and_is_maintained() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::text("Hello there big world"),
        FakeTurn::text("\"Greeting the World.\""),
    ]);
    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    let started = host.run_start(start(None, "say hello")).await.unwrap();
    // Answered before the run's task made any model call.
    assert!(model.requests().is_empty());
    assert_eq!(
        host.live_run(&started.thread_id),
        Some(started.run_id.clone())
    );

    let mut rx = subscribe(&host, &started.thread_id, None).await;
    let frames = until_finished(&mut rx).await;
    assert!(matches!(frames[0].event, RunEvent::RunStarted { .. }));
    assert_eq!(deltas(&frames), "Hello there big world");
    assert_eq!(
        finished_status(frames.last().unwrap()),
        RunStatus::Succeeded
    );
    assert_increasing(&frames);
    assert!(frames.iter().all(|f| f.run_id == started.run_id));

    let AppEvent::Activity { status, title, .. } = activity(&mut events, &started.run_id).await
    else {
        unreachable!()
    };
    assert_eq!(
        (status, title.as_str()),
        (RunStatus::Succeeded, "Greeting the World")
    );
    let thread = host.store().thread(&started.thread_id).await.unwrap();
    assert_eq!(thread.title, "Greeting the World");
    assert!(thread.unread, "nobody was looking at the thread");
    assert!(!thread.awaiting_action);
    assert_eq!(thread.model.as_deref(), Some(MODEL));
    let run = host.store().run(&started.run_id).await.unwrap();
    assert_eq!(run.status, store::RunStatus::Succeeded);
    let log = host.store().activity_since(0, 10).await.unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].status, store::RunStatus::Succeeded);
    assert_eq!(host.live_run(&started.thread_id), None);
}

#[tokio::test]
async fn replays_after_a_dropped_subscriber_and_fans_out_to_two() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([streaming_then_hang(&["a", "b", "c"])]);
    let host = open(&root, &model).await;
    let started = host.run_start(start(None, "go")).await.unwrap();
    let thread = started.thread_id.clone();
    let mut first = subscribe(&host, &thread, None).await;
    let mut second = subscribe(&host, &thread, None).await;

    let mut seen = Vec::new();
    while deltas(&seen) != "abc" {
        seen.push(next(&mut second).await);
    }
    let early = [next(&mut first).await, next(&mut first).await];
    assert_eq!(early.as_slice(), &seen[..2]);
    drop(first);

    // A new subscriber picks up exactly after what the dropped one had.
    let mut again = subscribe(&host, &thread, Some(early[1].seq)).await;
    for expected in &seen[2..] {
        assert_eq!(&next(&mut again).await, expected);
    }

    assert!(
        host.run_cancel(RunCancelParams {
            thread_id: thread.clone(),
            run_id: started.run_id.clone(),
        })
        .await
        .unwrap()
        .cancelled
    );
    let end_a = until_finished(&mut second).await;
    let end_b = until_finished(&mut again).await;
    assert_eq!(end_a, end_b);
    assert_eq!(finished_status(end_a.last().unwrap()), RunStatus::Cancelled);
    assert_increasing(&[seen, end_a].concat());
}

#[tokio::test]
async fn a_stale_cancel_is_ignored_and_the_right_one_stops_a_hanging_model() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::text("first"),
        FakeTurn::text("Title"),
        streaming_then_hang(&["working"]),
    ]);
    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    let first = host.run_start(start(None, "one")).await.unwrap();
    let thread = first.thread_id.clone();
    activity(&mut events, &first.run_id).await;

    let second = host.run_start(start(Some(&thread), "two")).await.unwrap();
    let mut rx = subscribe(&host, &thread, None).await;
    while !matches!(next(&mut rx).await.event, RunEvent::TextDelta { .. }) {}
    let stale = host
        .run_cancel(RunCancelParams {
            thread_id: thread.clone(),
            run_id: first.run_id.clone(),
        })
        .await
        .unwrap();
    assert!(!stale.cancelled);
    assert_eq!(host.live_run(&thread), Some(second.run_id.clone()));

    let asked = std::time::Instant::now();
    let right = host
        .run_cancel(RunCancelParams {
            thread_id: thread.clone(),
            run_id: second.run_id.clone(),
        })
        .await
        .unwrap();
    assert!(right.cancelled);
    let frames = until_finished(&mut rx).await;
    assert!(asked.elapsed() < Duration::from_millis(500));
    assert_eq!(
        finished_status(frames.last().unwrap()),
        RunStatus::Cancelled
    );
    let AppEvent::Activity { status, .. } = activity(&mut events, &second.run_id).await else {
        unreachable!()
    };
    assert_eq!(status, RunStatus::Cancelled);
    assert_eq!(
        host.store().run(&second.run_id).await.unwrap().status,
        store::RunStatus::Cancelled
    );
}

#[tokio::test]
async fn a_busy_thread_refuses_a_second_run() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([streaming_then_hang(&["working"]), FakeTurn::text("ok")]);
    let host = open(&root, &model).await;
    let started = host.run_start(start(None, "one")).await.unwrap();
    let thread = started.thread_id.clone();
    let mut rx = subscribe(&host, &thread, None).await;
    // Cancel only once the hanging turn is in use, so the next run gets "ok".
    while !matches!(next(&mut rx).await.event, RunEvent::TextDelta { .. }) {}
    let busy = host
        .run_start(start(Some(&thread), "two"))
        .await
        .unwrap_err();
    assert_eq!(busy.code, ErrorCode::Conflict);

    host.run_cancel(RunCancelParams {
        thread_id: thread.clone(),
        run_id: started.run_id,
    })
    .await
    .unwrap();
    until_finished(&mut rx).await;
    // Free as soon as the end was published.
    let again = host.run_start(start(Some(&thread), "two")).await.unwrap();
    let frames = until_finished(&mut rx).await;
    assert!(frames.iter().all(|f| f.run_id == again.run_id));
    assert_eq!(
        finished_status(frames.last().unwrap()),
        RunStatus::Succeeded
    );
}

#[tokio::test]
async fn a_viewed_thread_stays_read_and_a_user_title_is_kept() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("answer"), FakeTurn::text("Other Title")]);
    let host = open(&root, &model).await;
    let mut events = host.subscribe();
    let thread = host
        .thread_create(pizza_protocol::ThreadCreateParams {
            title: Some("Mine".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    host.thread_viewing(ThreadViewingParams {
        thread_id: Some(thread.id.clone()),
    })
    .await
    .unwrap();
    let started = host.run_start(start(Some(&thread.id), "q")).await.unwrap();
    activity(&mut events, &started.run_id).await;
    let thread = host.store().thread(&thread.id).await.unwrap();
    assert_eq!(thread.title, "Mine");
    assert!(!thread.unread);
    // The title was never asked for.
    assert_eq!(model.remaining_turns(), 1);
}

#[tokio::test]
async fn bad_starts_are_refused_without_side_effects() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::new();
    let host = open(&root, &model).await;
    let empty = host.run_start(start(None, "  ")).await.unwrap_err();
    assert_eq!(empty.code, ErrorCode::InvalidInput);
    let mut unknown = start(None, "hi");
    unknown.model = Some("nowhere:x".into());
    let err = host.run_start(unknown).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::ModelUnavailable);
    let missing = host
        .run_start(start(Some("no-such-thread"), "hi"))
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
    let unknown = host
        .thread_subscribe(ThreadSubscribeParams {
            thread_id: "no-such-thread".to_owned(),
            since: None,
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
    let list = host
        .thread_list(pizza_protocol::ThreadListParams::default())
        .await
        .unwrap();
    assert!(list.threads.is_empty());
}

#[tokio::test]
async fn unsubscribing_ends_the_stream_and_forgets_the_subscriber() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([streaming_then_hang(&["a"])]);
    let host = open(&root, &model).await;
    let started = host.run_start(start(None, "go")).await.unwrap();
    let thread = started.thread_id.clone();
    let (opened, mut frames) = host
        .thread_subscribe(ThreadSubscribeParams {
            thread_id: thread.clone(),
            since: None,
        })
        .await
        .unwrap();
    host.thread_unsubscribe(pizza_protocol::ThreadUnsubscribeParams {
        thread_id: thread.clone(),
        subscription_id: opened.subscription_id.clone(),
    })
    .await
    .unwrap();
    // Whatever was already queued drains, then the stream ends though the run lives on.
    while let Some(frame) = tokio::time::timeout(STUCK, frames.recv()).await.unwrap() {
        assert!(!matches!(
            frame.event,
            pizza_protocol::RunEvent::RunFinished { .. }
        ));
    }
    assert!(host.live_run(&thread).is_some());
    // An unknown or already-ended subscription is not an error.
    host.thread_unsubscribe(pizza_protocol::ThreadUnsubscribeParams {
        thread_id: thread.clone(),
        subscription_id: opened.subscription_id,
    })
    .await
    .unwrap();
    host.run_cancel(RunCancelParams {
        thread_id: thread,
        run_id: started.run_id,
    })
    .await
    .unwrap();
}
