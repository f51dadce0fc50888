//! Automations against a real temp store, the real run path with a scripted
//! model, and the real loopback webhook listener spoken to over TCP.

use std::sync::Arc;

use pizza_llm::{FakeModel, FakeTurn};
use pizza_protocol::{
    AutomationsGetParams, AutomationsPatch, ErrorCode, OccurrenceReason, OccurrenceStatus,
    ThreadGetParams, ThreadSource, TriggerIdParams, TriggerKind, TriggerSaveParams,
    WebhookListener,
};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::Host;
use crate::runs::tests::{MODEL, open, subscribe, until_finished};

fn cron_trigger(name: &str, prompt: &str) -> TriggerSaveParams {
    TriggerSaveParams {
        id: None,
        name: name.to_owned(),
        kind: TriggerKind::Cron,
        prompt: prompt.to_owned(),
        model: Some(MODEL.to_owned()),
        enabled: true,
        cron: "0 9 * * 1-5".to_owned(),
        timezone: Some("Europe/Paris".to_owned()),
    }
}

fn webhook_trigger(name: &str) -> TriggerSaveParams {
    TriggerSaveParams {
        kind: TriggerKind::Webhook,
        cron: String::new(),
        timezone: None,
        ..cron_trigger(name, "The saved prompt")
    }
}

/// Waits for the thread's run to end.
async fn finished(host: &Host, thread_id: &str) {
    let mut frames = subscribe(host, thread_id, None).await;
    until_finished(&mut frames).await;
}

async fn first_message(host: &Host, thread_id: &str) -> String {
    let detail = host
        .thread_get(ThreadGetParams {
            thread_id: thread_id.to_owned(),
            before_seq: None,
            limit: None,
        })
        .await
        .unwrap();
    detail.messages[0]
        .parts
        .iter()
        .filter_map(|p| match p {
            pizza_protocol::MessagePart::Text { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn run_now_starts_a_trigger_thread_and_records_how_it_ended() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("Here is the summary.")]);
    let host = open(&root, &model).await;
    host.start_automations().await.unwrap();
    let trigger = host
        .trigger_save(cron_trigger("Standup notes", "Summarise yesterday."))
        .await
        .unwrap()
        .trigger;

    // Automations are off: Run now still runs.
    let fired = host
        .trigger_run_now(TriggerIdParams {
            id: trigger.id.clone(),
        })
        .await
        .unwrap();
    assert_eq!(
        (fired.occurrence.reason, fired.occurrence.status),
        (OccurrenceReason::Manual, OccurrenceStatus::Running)
    );
    let thread_id = fired.thread_id.unwrap();
    finished(&host, &thread_id).await;

    let thread = host.store().thread(&thread_id).await.unwrap();
    assert_eq!(thread.title, "Standup notes");
    assert_eq!(thread.source, ThreadSource::Trigger.into());
    assert_eq!(
        first_message(&host, &thread_id).await,
        "Summarise yesterday."
    );
    let list = host.trigger_list(Default::default()).await.unwrap();
    let last = list.triggers[0].last_outcome.clone().unwrap();
    assert_eq!(
        (last.status, last.thread_id.as_deref(), last.attempts),
        (OccurrenceStatus::Succeeded, Some(thread_id.as_str()), 1)
    );

    let unknown = host
        .trigger_run_now(TriggerIdParams {
            id: "nope".to_owned(),
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn a_trigger_without_a_prompt_runs_and_the_model_is_told_no_task_was_given() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("No task was given.")]);
    let host = open(&root, &model).await;
    let trigger = host
        .trigger_save(cron_trigger("Empty", ""))
        .await
        .unwrap()
        .trigger;
    let fired = host
        .trigger_run_now(TriggerIdParams { id: trigger.id })
        .await
        .unwrap();
    finished(&host, fired.thread_id.as_deref().unwrap()).await;
    let asked = model.requests()[0].messages[0].text();
    assert!(asked.contains("no task was given"), "{asked}");
}

#[tokio::test]
async fn a_failed_run_fails_its_occurrence_with_the_error() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::error(pizza_llm::Error::AuthExpired {
        provider_message: "bad key".to_owned(),
    })]);
    let host = open(&root, &model).await;
    let trigger = host
        .trigger_save(cron_trigger("Report", "Report."))
        .await
        .unwrap()
        .trigger;
    let fired = host
        .trigger_run_now(TriggerIdParams {
            id: trigger.id.clone(),
        })
        .await
        .unwrap();
    finished(&host, fired.thread_id.as_deref().unwrap()).await;
    let history = host
        .occurrence_list(pizza_protocol::OccurrenceListParams {
            trigger_id: trigger.id,
            cursor: None,
        })
        .await
        .unwrap();
    assert_eq!(history.occurrences[0].status, OccurrenceStatus::Failed);
    assert!(history.occurrences[0].sentence.is_some());
}

/// One HTTP/1.1 request over TCP; the status code and the body.
async fn post(port: u16, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// A port nothing listens on right now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn a_webhook_fires_with_its_secret_only_while_automations_are_on() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("Done."), FakeTurn::text("Done again.")]);
    let host = open(&root, &model).await;
    host.start_automations().await.unwrap();
    let port = free_port();
    host.automations_update(AutomationsPatch {
        webhook_port: Some(port),
        ..AutomationsPatch::default()
    })
    .await
    .unwrap();
    let saved = host.trigger_save(webhook_trigger("Deploys")).await.unwrap();
    let secret = saved.secret.clone().unwrap();
    assert!(secret.len() >= 16);
    let path = format!("/triggers/{}", saved.trigger.id);
    assert_eq!(
        saved.trigger.webhook_url,
        Some(format!("http://127.0.0.1:{port}{path}"))
    );
    // Off until automations are on.
    let state = host.automations_get(AutomationsGetParams {}).await.unwrap();
    assert_eq!(
        (state.enabled, state.webhook_listener),
        (false, WebhookListener::Off)
    );
    let on = host
        .automations_update(AutomationsPatch {
            enabled: Some(true),
            ..AutomationsPatch::default()
        })
        .await
        .unwrap();
    assert_eq!(on.webhook_listener, WebhookListener::Listening { port });

    let bearer = format!("Bearer {secret}");
    let (status, _) = post(
        port,
        &path,
        &[("Authorization", "Bearer wrong-secret-xxxxxxxx")],
        "",
    )
    .await;
    assert_eq!(status, 401);
    let (status, body) = post(
        port,
        &path,
        &[
            ("Authorization", &bearer),
            ("Content-Type", "application/json"),
        ],
        r#"{"prompt": "Deploy 42 finished; check it."}"#,
    )
    .await;
    assert_eq!(status, 202, "{body}");
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    let thread_id = answer["thread_id"].as_str().unwrap().to_owned();
    finished(&host, &thread_id).await;
    assert_eq!(
        first_message(&host, &thread_id).await,
        "Deploy 42 finished; check it."
    );

    // A rotated secret: the old one is refused, the new one works.
    let rotated = host
        .trigger_rotate_secret(TriggerIdParams {
            id: saved.trigger.id.clone(),
        })
        .await
        .unwrap();
    let (status, _) = post(port, &path, &[("X-Trigger-Secret", &secret)], "").await;
    assert_eq!(status, 401);
    let (status, body) = post(port, &path, &[("X-Trigger-Secret", &rotated.secret)], "").await;
    assert_eq!(status, 202, "{body}");
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    let second = answer["thread_id"].as_str().unwrap().to_owned();
    finished(&host, &second).await;
    assert_eq!(first_message(&host, &second).await, "The saved prompt");

    // Neither secret is anywhere in the database files.
    for entry in std::fs::read_dir(root.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            for s in [&secret, &rotated.secret] {
                assert!(
                    !bytes.windows(s.len()).any(|w| w == s.as_bytes()),
                    "a secret is in {}",
                    path.display()
                );
            }
        }
    }

    // Paused: the listener closes.
    let off = host
        .automations_update(AutomationsPatch {
            enabled: Some(false),
            ..AutomationsPatch::default()
        })
        .await
        .unwrap();
    assert_eq!(off.webhook_listener, WebhookListener::Off);
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn bad_automation_input_is_refused_naming_the_field() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::default()).await;
    let refused = host
        .automations_update(AutomationsPatch {
            webhook_port: Some(80),
            ..AutomationsPatch::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert!(
        refused.message.starts_with("webhook_port:"),
        "{}",
        refused.message
    );
    // Start at login needs the desktop shell.
    let refused = host
        .automations_update(AutomationsPatch {
            start_at_login: Some(true),
            ..AutomationsPatch::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::General);
    // A cron trigger cannot be rotated.
    let cron = host
        .trigger_save(cron_trigger("Cron", "x"))
        .await
        .unwrap()
        .trigger;
    let refused = host
        .trigger_rotate_secret(TriggerIdParams { id: cron.id })
        .await
        .unwrap_err();
    assert!(refused.message.starts_with("kind:"), "{}", refused.message);
    // Nothing was saved by the refusals.
    let state = host.automations_get(AutomationsGetParams {}).await.unwrap();
    assert_eq!(state.webhook_port, pizza_protocol::DEFAULT_WEBHOOK_PORT);
}

/// Keeps every notification it is asked to show.
#[derive(Debug, Default)]
struct Recording {
    shown: tokio::sync::watch::Sender<Vec<crate::Notification>>,
}

impl crate::Notifier for Recording {
    fn show(&self, notification: crate::Notification) -> Result<(), crate::NotifyError> {
        self.shown.send_modify(|v| v.push(notification));
        Ok(())
    }

    fn available(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn an_automation_given_up_after_three_attempts_is_announced() {
    let root = TempDataRoot::new().unwrap();
    let notifier = Arc::new(Recording::default());
    let host = Host::open(
        crate::DataRoot::prepare(root.path()).unwrap(),
        crate::HostOptions::default()
            .with_ollama_probe(None)
            .with_notifier(notifier.clone()),
    )
    .await
    .unwrap();
    let store = host.store();
    let trigger = store
        .create_trigger(pizza_store::NewTrigger {
            name: "Nightly report".to_owned(),
            kind: pizza_store::TriggerKind::Cron,
            prompt: "Report.".to_owned(),
            model: None,
            enabled: true,
            cron: Some("0 3 * * *".to_owned()),
            timezone: None,
            webhook_secret: None,
        })
        .await
        .unwrap();
    let pizza_store::Recorded::Pending(o) = store
        .record_occurrence(pizza_store::NewOccurrence {
            trigger_id: trigger.id.clone(),
            scheduled_at: 1,
            reason: pizza_store::OccurrenceReason::Cron,
            prompt: None,
            sentence: None,
        })
        .await
        .unwrap()
    else {
        panic!("expected a pending occurrence");
    };
    // Three starts that each crashed mid-run.
    store
        .claim_occurrence(&o.id, "run-1", "thread-1")
        .await
        .unwrap();
    store
        .reclaim_occurrence(&o.id, "run-2", "thread-1")
        .await
        .unwrap();
    store
        .reclaim_occurrence(&o.id, "run-3", "thread-1")
        .await
        .unwrap();

    host.start_automations().await.unwrap();
    let mut shown = notifier.shown.subscribe();
    let shown = shown.wait_for(|v| !v.is_empty()).await.unwrap().clone();
    assert_eq!(
        (
            shown[0].summary.as_str(),
            shown[0].thread_id.as_str(),
            shown[0].kind
        ),
        (
            "Automation gave up",
            "thread-1",
            crate::NotificationKind::Failed
        )
    );
    assert!(
        shown[0].body.starts_with("Nightly report\n"),
        "{}",
        shown[0].body
    );
    let dead = store.occurrence(&o.id).await.unwrap();
    assert_eq!(dead.status, pizza_store::OccurrenceStatus::Dead);
}
