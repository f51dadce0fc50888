//! The announcement policy against a real temp store, a scripted model and a
//! recording [`Notifier`].

use super::*;
use crate::runs::tests::{FakeProvider, activity, start};
use crate::{DataRoot, HostOptions};
use pizza_llm::{FakeModel, FakeTurn, StreamEvent};
use pizza_protocol::{RunCancelParams, SettingsPatch, ThreadSubscribeParams, ThreadViewingParams};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;
use serde_json::json;
use std::time::Duration;
use tokio::sync::watch;

/// A safety net so a broken test fails instead of hanging; never a wait.
const STUCK: Duration = Duration::from_secs(10);

/// Keeps every notification it is asked to show.
#[derive(Debug)]
struct Recording {
    shown: watch::Sender<Vec<Notification>>,
    available: bool,
}

impl Recording {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            shown: watch::channel(Vec::new()).0,
            available: true,
        })
    }

    fn shown(&self) -> Vec<Notification> {
        self.shown.borrow().clone()
    }

    /// Waits until `count` notifications were shown.
    async fn until(&self, count: usize) -> Vec<Notification> {
        let mut rx = self.shown.subscribe();
        tokio::time::timeout(STUCK, rx.wait_for(|v| v.len() >= count))
            .await
            .expect("no notification in time")
            .unwrap()
            .clone()
    }
}

impl Notifier for Recording {
    fn show(&self, notification: Notification) -> Result<(), NotifyError> {
        self.shown.send_modify(|v| v.push(notification));
        Ok(())
    }

    fn available(&self) -> bool {
        self.available
    }
}

async fn open(root: &TempDataRoot, model: &FakeModel, notifier: Arc<Recording>) -> Host {
    let host = Host::open(
        DataRoot::prepare(root.path()).unwrap(),
        HostOptions::default()
            .with_ollama_probe(None)
            .with_notifier(notifier),
    )
    .await
    .unwrap();
    host.model_catalog()
        .await
        .register(Arc::new(FakeProvider(model.clone())));
    host
}

/// Runs `text` on a new thread (or `thread`) until its maintenance is done,
/// announcing included.
async fn run(host: &Host, thread: Option<&str>, text: &str) -> String {
    let mut events = host.subscribe();
    let started = host.run_start(start(thread, text)).await.unwrap();
    activity(&mut events, &started.run_id).await;
    // The announcer is serialized: this returns once the run's turn is over.
    host.announce_outcomes().await;
    started.thread_id
}

fn note(thread_id: &str, summary: &str, body: &str, kind: NotificationKind) -> Notification {
    Notification {
        thread_id: thread_id.to_owned(),
        summary: summary.to_owned(),
        body: body.to_owned(),
        kind,
        approval: None,
    }
}

#[tokio::test]
async fn a_finished_run_names_the_thread_and_quotes_the_answer() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::text("Here is the plan:\n\n1. Dough at noon, then bake for twenty minutes."),
        FakeTurn::text(
            "Internationalization considerations for multilingual documentation pipelines",
        ),
    ]);
    let recording = Recording::new();
    let host = open(&root, &model, recording.clone()).await;
    let thread = run(&host, None, "plan the bake").await;
    assert_eq!(
        recording.until(1).await,
        vec![note(
            &thread,
            "Run finished",
            "Internationalization considerations for…\n\
             Here is the plan: 1. Dough at noon, then bake for twenty minutes.",
            NotificationKind::Finished,
        )]
    );
}

#[tokio::test]
async fn a_failed_run_gives_the_errors_hint_and_a_cancel_is_silent() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::error(pizza_llm::Error::AuthExpired {
            provider_message: "bad key".to_owned(),
        }),
        FakeTurn::from_events([StreamEvent::TextDelta {
            text: "working".to_owned(),
        }])
        .then_hang(),
    ]);
    let recording = Recording::new();
    let host = open(&root, &model, recording.clone()).await;
    let thread = run(&host, None, "hello").await;
    let shown = recording.until(1).await;
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].summary, "Run failed");
    assert_eq!(shown[0].kind, NotificationKind::Failed);
    let (title, hint) = shown[0].body.split_once('\n').unwrap();
    // Untitled, the thread is named by the start of its first message.
    assert_eq!(title, "hello");
    let status = host.store().thread_runs(&thread, 1).await.unwrap();
    let error = status[0].error.clone().unwrap();
    assert_eq!(hint, error.message);

    // A run the user stops says nothing.
    let mut events = host.subscribe();
    let started = host.run_start(start(Some(&thread), "again")).await.unwrap();
    let (_, mut frames) = host
        .thread_subscribe(ThreadSubscribeParams {
            thread_id: thread.clone(),
            since: None,
        })
        .await
        .unwrap();
    // Cancel once the model is streaming.
    while let Some(frame) = tokio::time::timeout(STUCK, frames.recv()).await.unwrap() {
        if matches!(frame.event, pizza_protocol::RunEvent::TextDelta { .. }) {
            break;
        }
    }
    host.run_cancel(RunCancelParams {
        thread_id: thread.clone(),
        run_id: started.run_id.clone(),
    })
    .await
    .unwrap();
    activity(&mut events, &started.run_id).await;
    host.announce_outcomes().await;
    assert_eq!(recording.shown().len(), 1);
}

#[tokio::test]
async fn a_run_that_timed_out_is_recorded_and_announced_as_timed_out() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::error(pizza_llm::Error::Timeout {
        message: "no first byte within 120 s".to_owned(),
    })]);
    let recording = Recording::new();
    let host = open(&root, &model, recording.clone()).await;
    let thread = run(&host, None, "slow one").await;
    let runs = host.store().thread_runs(&thread, 1).await.unwrap();
    assert_eq!(runs[0].status, store::RunStatus::TimedOut);
    let shown = recording.until(1).await;
    assert_eq!(shown[0].summary, "Run timed out");
    assert_eq!(shown[0].kind, NotificationKind::Failed);
}

#[tokio::test]
async fn a_paused_run_asks_for_action_naming_the_tool() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::tool_call(
        "c1",
        "write_file",
        json!({"file_path": "/notes.md", "content": "pizza"}),
    )]);
    let recording = Recording::new();
    let host = open(&root, &model, recording.clone()).await;
    crate::runs::tests::ask_before_writes(&host).await;
    let thread = run(&host, None, "save a note").await;
    let mut shown = recording.until(1).await;
    // The one gated call can be decided from the notification.
    assert!(shown[0].approval.take().is_some());
    assert_eq!(
        shown,
        vec![note(
            &thread,
            "Action required",
            "save a note\nWrite file needs your approval.",
            NotificationKind::ActionRequired,
        )]
    );
}

#[tokio::test]
async fn nothing_while_focused_on_the_thread_or_when_turned_off() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::text("first"),
        FakeTurn::text("Title"),
        FakeTurn::text("second"),
        FakeTurn::text("third"),
        FakeTurn::tool_call(
            "c1",
            "write_file",
            json!({"file_path": "/a", "content": "b"}),
        ),
    ]);
    let recording = Recording::new();
    let host = open(&root, &model, recording.clone()).await;
    // The last run's write asks while both kinds are off.
    crate::runs::tests::ask_before_writes(&host).await;
    let thread = run(&host, None, "one").await;
    assert_eq!(recording.until(1).await.len(), 1);

    // Focused on that thread: silent.
    host.thread_viewing(ThreadViewingParams {
        thread_id: Some(thread.clone()),
    })
    .await
    .unwrap();
    host.set_window_focused(true);
    run(&host, Some(&thread), "two").await;
    assert_eq!(recording.shown().len(), 1);

    // Viewing it but focused elsewhere: announced.
    host.set_window_focused(false);
    run(&host, Some(&thread), "three").await;
    assert_eq!(recording.until(2).await[1].summary, "Run finished");

    // Both kinds off: silent, and the toggles read back.
    let settings = host
        .settings_update(SettingsPatch {
            notify_run_finished: Some(false),
            notify_action_required: Some(false),
            ..SettingsPatch::default()
        })
        .await
        .unwrap();
    assert_eq!(
        settings.notifications,
        NotificationPrefs {
            run_finished: false,
            action_required: false
        }
    );
    run(&host, Some(&thread), "four").await;
    assert_eq!(recording.shown().len(), 2);
}

#[tokio::test]
async fn a_restart_never_repeats_and_never_loses_an_outcome() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("done"), FakeTurn::text("Title")]);
    let recording = Recording::new();
    let host = open(&root, &model, recording.clone()).await;
    let thread = run(&host, None, "go").await;
    assert_eq!(recording.until(1).await.len(), 1);
    // The app dies after recording an outcome, before announcing it.
    host.store()
        .append_activity(store::NewActivity {
            thread_id: thread.clone(),
            run_id: None,
            status: store::RunStatus::Failed,
            detail: json!({"title": "Title", "error": "The provider is rate limiting requests. Try again in a minute."}),
        })
        .await
        .unwrap();
    host.close().await;

    let after_crash = Recording::new();
    let host = open(&root, &model, after_crash.clone()).await;
    host.announce_missed().await;
    assert_eq!(
        after_crash.shown(),
        vec![note(
            &thread,
            "Run failed",
            "Title\nThe provider is rate limiting requests. Try again in a minute.",
            NotificationKind::Failed,
        )]
    );
    host.close().await;

    let again = Recording::new();
    let host = open(&root, &model, again.clone()).await;
    host.announce_missed().await;
    assert_eq!(again.shown(), vec![]);
}

#[tokio::test]
async fn history_from_before_the_first_start_and_restart_interrupts_stay_silent() {
    let root = TempDataRoot::new().unwrap();
    {
        let store = store::Store::open(root.path()).await.unwrap();
        let thread = store
            .create_thread(store::NewThread::default())
            .await
            .unwrap();
        store
            .append_activity(store::NewActivity {
                thread_id: thread.id,
                run_id: None,
                status: store::RunStatus::Succeeded,
                detail: json!({"title": "Old"}),
            })
            .await
            .unwrap();
        store.close().await;
    }
    let recording = Recording::new();
    let host = open(&root, &FakeModel::new(), recording.clone()).await;
    let thread = host
        .store()
        .create_thread(store::NewThread::default())
        .await
        .unwrap();
    host.store()
        .append_activity(store::NewActivity {
            thread_id: thread.id,
            run_id: None,
            status: store::RunStatus::Interrupted,
            detail: json!({"title": "Crashed", "error_code": store::INTERRUPTED_BY_RESTART}),
        })
        .await
        .unwrap();
    host.announce_missed().await;
    assert_eq!(recording.shown(), vec![]);
}

#[tokio::test]
async fn a_click_is_kept_until_the_window_takes_it() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::new(), Recording::new()).await;
    let mut events = host.subscribe();
    host.notification_clicked("t1".to_owned());
    assert_eq!(
        events.recv().await.unwrap(),
        AppEvent::Navigate {
            thread_id: "t1".to_owned()
        }
    );
    let take = || host.notification_take_pending(NotificationTakePendingParams {});
    assert_eq!(take().await.unwrap(), Some("t1".to_owned()));
    assert_eq!(take().await.unwrap(), None);
    let status = host
        .notification_status(NotificationStatusParams {})
        .await
        .unwrap();
    assert!(status.available);
}

/// Lets the agent write `/memories/`, where writes ask first.
async fn remember(host: &Host) {
    host.settings_update(SettingsPatch {
        memories_enabled: Some(true),
        ..SettingsPatch::default()
    })
    .await
    .unwrap();
}

/// The thread's notices, oldest first.
async fn notices(host: &Host, thread_id: &str) -> Vec<String> {
    host.thread_get(pizza_protocol::ThreadGetParams {
        thread_id: thread_id.to_owned(),
        ..pizza_protocol::ThreadGetParams::default()
    })
    .await
    .unwrap()
    .messages
    .into_iter()
    .flat_map(|m| m.parts)
    .filter_map(|part| match part {
        pizza_protocol::MessagePart::Notice { text } => Some(text),
        _ => None,
    })
    .collect()
}

#[tokio::test]
async fn approve_from_the_notification_continues_the_run_once_and_says_so() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::tool_call(
            "c1",
            "write_file",
            json!({"file_path": "/memories/dough.md", "content": "rest two hours"}),
        ),
        FakeTurn::text("Saved."),
    ]);
    let recording = Recording::new();
    let host = open(&root, &model, recording.clone()).await;
    remember(&host).await;
    let thread = run(&host, None, "remember the dough").await;
    let shown = recording.until(1).await;
    let approval = shown[0]
        .approval
        .clone()
        .expect("Approve and Deny on the notification");
    assert_eq!(approval.call_id, "c1");
    let decision = NotificationDecision {
        thread_id: thread.clone(),
        approval,
        approve: true,
    };

    let mut events = host.subscribe();
    let resumed = host.notification_decide(decision.clone()).await.unwrap();
    assert_eq!(resumed.thread_id, thread);
    // Pressed again while the run goes on, and after it ended: nothing happens.
    let again = host
        .notification_decide(decision.clone())
        .await
        .unwrap_err();
    assert_eq!(again.code, pizza_protocol::ErrorCode::Conflict);
    activity(&mut events, &resumed.run_id).await;
    let late = host.notification_decide(decision).await.unwrap_err();
    assert_eq!(late.code, pizza_protocol::ErrorCode::Conflict);

    let written = std::fs::read_to_string(root.path().join("memories/dough.md")).unwrap();
    assert_eq!(written, "rest two hours");
    assert_eq!(
        notices(&host, &thread).await,
        vec!["Approved from the notification.".to_owned()]
    );
    let runs = host.store().thread_runs(&thread, 5).await.unwrap();
    assert_eq!(runs.len(), 2, "one paused run and one that continued it");
}

#[tokio::test]
async fn deny_from_the_notification_tells_the_model_and_writes_nothing() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::tool_call(
            "c1",
            "write_file",
            json!({"file_path": "/memories/dough.md", "content": "rest two hours"}),
        ),
        FakeTurn::text("Understood, not saved."),
    ]);
    let recording = Recording::new();
    let host = open(&root, &model, recording.clone()).await;
    remember(&host).await;
    let thread = run(&host, None, "remember the dough").await;
    let approval = recording.until(1).await[0].approval.clone().unwrap();
    let mut events = host.subscribe();
    let resumed = host
        .notification_decide(NotificationDecision {
            thread_id: thread.clone(),
            approval,
            approve: false,
        })
        .await
        .unwrap();
    activity(&mut events, &resumed.run_id).await;
    assert!(!root.path().join("memories/dough.md").exists());
    assert_eq!(
        notices(&host, &thread).await,
        vec!["Denied from the notification.".to_owned()]
    );
    let told = format!("{:?}", model.requests()[1].messages).contains("rejected");
    assert!(told, "the model hears the call was denied");
}

#[tokio::test]
async fn several_gated_calls_are_decided_on_the_card_only() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::tool_calls([
        (
            "c1",
            "write_file",
            json!({"file_path": "/memories/a.md", "content": "a"}),
        ),
        (
            "c2",
            "write_file",
            json!({"file_path": "/memories/b.md", "content": "b"}),
        ),
    ])]);
    let recording = Recording::new();
    let host = open(&root, &model, recording.clone()).await;
    remember(&host).await;
    run(&host, None, "save two notes").await;
    let shown = recording.until(1).await;
    assert_eq!(shown[0].kind, NotificationKind::ActionRequired);
    assert_eq!(shown[0].approval, None);
}
