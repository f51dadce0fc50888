//! Approve and Deny on an "Action required" notification, against a
//! recording notification server on the test session bus and a real host
//! whose model is a mock OpenAI server: pressing Approve continues the run
//! once, and a server without action support gets only Open.
//!
//! Needs a session bus: `cargo xtask test` runs the tests under
//! `dbus-run-session` with no service directories. One test, so the bus
//! name is never wanted twice at once.

// A test binary: a panic is how its helpers report a failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pizza_bot::DesktopNotifier;
use pizza_host::{
    DataRoot, Host, HostOptions, Notification, NotificationDecision, NotificationKind, Notifier,
    PendingApproval, SecretError, SecretStore,
};
use pizza_protocol::{
    ApiError, ErrorCode, MessagePart, ModelDefaultSetParams, ProviderConfigureParams,
    RunStartParams, RunStartResponse, SettingsPatch, ThreadGetParams,
};
use pizza_test_support::data_root::TempDataRoot;
use pizza_test_support::mock_provider::{MockProvider, MockResponse, sse};
use pizza_test_support::notification_server::NotificationServer;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// A safety net so a broken test fails instead of hanging; never a wait.
const STUCK: Duration = Duration::from_secs(20);

/// Provider keys in memory: this test is about notifications, not the keychain.
#[derive(Debug, Default)]
struct MemorySecrets(Mutex<BTreeMap<String, String>>);

impl SecretStore for MemorySecrets {
    fn set(&self, key: &str, value: &str) -> Result<(), SecretError> {
        self.0.lock().unwrap().insert(key.into(), value.into());
        Ok(())
    }
    fn get(&self, key: &str) -> Result<Option<String>, SecretError> {
        Ok(self.0.lock().unwrap().get(key).cloned())
    }
    fn delete(&self, key: &str) -> Result<(), SecretError> {
        self.0.lock().unwrap().remove(key);
        Ok(())
    }
}

fn action_required(approval: Option<PendingApproval>) -> Notification {
    Notification {
        thread_id: "t1".to_owned(),
        summary: "Action required".to_owned(),
        body: "Dough\nWrite file needs your approval.".to_owned(),
        kind: NotificationKind::ActionRequired,
        approval,
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|&s| s.to_owned()).collect()
}

/// A model that asks to write one memory, then answers.
async fn mock_model() -> MockProvider {
    let mock = MockProvider::start().await.unwrap();
    mock.set_default(
        "/v1/models",
        MockResponse::json(200, &json!({"data": [{"id": "gpt-4o"}]})),
    );
    let completions = "/v1/chat/completions";
    mock.push_for(
        completions,
        sse::openai_chat_tool_call(
            "c1",
            "write_file",
            &json!({"file_path": "/memories/dough.md", "content": "rest two hours"}),
        ),
    );
    mock.push_for(completions, sse::openai_chat_text("Saved."));
    mock.set_default(completions, sse::openai_chat_text("Dough"));
    mock
}

async fn open_host(root: &TempDataRoot, notifier: &DesktopNotifier, mock: &MockProvider) -> Host {
    let host = Host::open(
        DataRoot::prepare(root.path()).unwrap(),
        HostOptions::default()
            .with_ollama_probe(None)
            .with_secrets(Arc::new(MemorySecrets::default()))
            .with_notifier(Arc::new(notifier.clone())),
    )
    .await
    .unwrap();
    host.provider_configure(ProviderConfigureParams {
        id: "openai".into(),
        fields: BTreeMap::from([
            ("base_url".into(), format!("{}/v1", mock.url())),
            ("api_key".into(), "sk-test-4242".into()),
        ]),
        enablement: None,
    })
    .await
    .unwrap();
    host.model_default_set(ModelDefaultSetParams {
        model: Some("openai:gpt-4o".into()),
    })
    .await
    .unwrap();
    host.settings_update(SettingsPatch {
        memories_enabled: Some(true),
        ..SettingsPatch::default()
    })
    .await
    .unwrap();
    host
}

async fn notices(host: &Host, thread_id: &str) -> Vec<String> {
    host.thread_get(ThreadGetParams {
        thread_id: thread_id.to_owned(),
        ..ThreadGetParams::default()
    })
    .await
    .unwrap()
    .messages
    .into_iter()
    .flat_map(|m| m.parts)
    .filter_map(|part| match part {
        MessagePart::Notice { text } => Some(text),
        _ => None,
    })
    .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn approve_on_the_notification_resumes_the_run_once() {
    // A server that shows no buttons: only Open, whatever the run waits on.
    let plain = NotificationServer::start_with_capabilities(&["body"]).unwrap();
    let notifier = DesktopNotifier::new();
    notifier.on_decision(|_| {});
    // Off the runtime, as the host calls a notifier (its D-Bus calls block).
    tokio::task::spawn_blocking(move || {
        notifier.show(action_required(Some(PendingApproval {
            interrupt_id: "i1".into(),
            call_id: "c1".into(),
        })))
    })
    .await
    .unwrap()
    .unwrap();
    let shown =
        tokio::task::block_in_place(|| plain.wait_for(STUCK, |n| n.summary == "Action required"))
            .unwrap();
    assert_eq!(shown.actions, strings(&["default", "Open"]));
    drop(plain);

    // A server with actions, and a run that waits on one write.
    let server = NotificationServer::start().unwrap();
    let mock = mock_model().await;
    let root = TempDataRoot::new().unwrap();
    let notifier = DesktopNotifier::new();
    let host = open_host(&root, &notifier, &mock).await;
    type Decided = (NotificationDecision, Result<RunStartResponse, ApiError>);
    let (decided_tx, decided) = mpsc::channel::<Decided>();
    let decided_tx = Mutex::new(decided_tx);
    let runtime = tokio::runtime::Handle::current();
    let deciding_host = host.clone();
    notifier.on_decision(move |decision: NotificationDecision| {
        let host = deciding_host.clone();
        let tx = decided_tx.lock().unwrap().clone();
        runtime.spawn(async move {
            let result = host.notification_decide(decision.clone()).await;
            let _ = tx.send((decision, result));
        });
    });
    let mut events = host.subscribe();
    let started = host
        .run_start(RunStartParams {
            text: "remember the dough".into(),
            ..RunStartParams::default()
        })
        .await
        .unwrap();
    let shown =
        tokio::task::block_in_place(|| server.wait_for(STUCK, |n| n.summary == "Action required"))
            .unwrap();
    assert_eq!(
        shown.actions,
        strings(&["default", "Open", "approve", "Approve", "deny", "Deny"])
    );
    assert!(!root.path().join("memories/dough.md").exists());

    // The client listens just after showing: press until the press lands.
    let deadline = Instant::now() + STUCK;
    let (decision, resumed) = loop {
        server.invoke(shown.id, "approve").unwrap();
        match tokio::task::block_in_place(|| decided.recv_timeout(Duration::from_millis(300))) {
            Ok((decision, result)) => break (decision, result.unwrap()),
            Err(_) if Instant::now() < deadline => {}
            Err(error) => panic!("no decision came back: {error}"),
        }
    };
    assert_eq!(resumed.thread_id, started.thread_id);
    assert_ne!(resumed.run_id, started.run_id);
    // Wait for the continued run to end.
    let end = tokio::time::timeout(STUCK, async {
        loop {
            if let Ok(pizza_protocol::AppEvent::Activity { run_id, .. }) = events.recv().await
                && run_id.as_deref() == Some(resumed.run_id.as_str())
            {
                break;
            }
        }
    });
    end.await.expect("the continued run did not end");
    assert_eq!(
        std::fs::read_to_string(root.path().join("memories/dough.md")).unwrap(),
        "rest two hours"
    );

    // Pressing again changes nothing: the notification's wait is over, and
    // the same decision through the host is a conflict.
    server.invoke(shown.id, "approve").unwrap();
    assert!(decision.approve);
    let again = host.notification_decide(decision).await.unwrap_err();
    assert_eq!(again.code, ErrorCode::Conflict);
    assert!(decided.try_recv().is_err(), "a second press was applied");
    assert_eq!(
        notices(&host, &started.thread_id).await,
        strings(&["Approved from the notification."])
    );
    // The model was asked twice (the call, then after it) plus the title.
    let chats = mock
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .count();
    assert!(chats <= 3, "{chats} model calls");
}
