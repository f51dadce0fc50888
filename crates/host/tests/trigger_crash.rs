//! A trigger's run is never lost and never run twice: a host whose trigger
//! run is streaming is killed with SIGKILL; the next start relaunches that
//! occurrence exactly once (the mock provider sees one more run request),
//! and a start after that relaunches nothing.
//!
//! The test runs itself as the child (`PIZZA_TRIGGER_CRASH_CHILD` names the
//! data root, its first argument the phase): `fire` opens the host, makes a
//! trigger and runs it now, and waits to be killed; `recover` starts the
//! automations and reports how the occurrence ended; `again` starts them
//! once more and reports the history.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use pizza_host::{DataRoot, Host, HostOptions};
use pizza_protocol::{
    AppEvent, OccurrenceListParams, OccurrenceStatus, ProviderConfigureParams, TriggerIdParams,
    TriggerKind, TriggerListParams, TriggerSaveParams,
};
use pizza_test_support::mock_provider::{MockProvider, MockResponse, RecordedRequest, sse};

const CHILD_ENV: &str = "PIZZA_TRIGGER_CRASH_CHILD";
const MOCK_ENV: &str = "PIZZA_TRIGGER_CRASH_MOCK";
const KEY_ENV: &str = "PIZZA_TRIGGER_CRASH_KEY";
const PROMPT: &str = "Write the nightly report.";
/// A safety net so a broken test fails instead of hanging; never a wait.
const STUCK: Duration = Duration::from_secs(60);

fn main() -> ExitCode {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    match std::env::var_os(CHILD_ENV) {
        Some(root) => {
            let phase = std::env::args().nth(1).unwrap_or_default();
            runtime.block_on(child(Path::new(&root), &phase))
        }
        None => runtime.block_on(parent()),
    }
}

async fn open(root: &Path) -> Host {
    Host::open(
        DataRoot::prepare(root).unwrap(),
        HostOptions::default().with_ollama_probe(None),
    )
    .await
    .unwrap()
}

async fn history(host: &Host, trigger_id: &str) -> Vec<(OccurrenceStatus, u32)> {
    host.occurrence_list(OccurrenceListParams {
        trigger_id: trigger_id.to_owned(),
        cursor: None,
    })
    .await
    .unwrap()
    .occurrences
    .iter()
    .map(|o| (o.status, o.attempts))
    .collect()
}

async fn child(root: &Path, phase: &str) -> ExitCode {
    let host = open(root).await;
    let mut events = host.subscribe();
    if phase == "fire" {
        host.provider_configure(ProviderConfigureParams {
            id: "openai".into(),
            fields: BTreeMap::from([
                (
                    "base_url".into(),
                    format!("{}/v1", std::env::var(MOCK_ENV).unwrap()),
                ),
                ("api_key".into(), format!("${{{KEY_ENV}}}")),
            ]),
            enablement: None,
        })
        .await
        .unwrap();
        let trigger = host
            .trigger_save(TriggerSaveParams {
                id: None,
                name: "Nightly report".into(),
                kind: TriggerKind::Cron,
                prompt: PROMPT.into(),
                model: Some("openai:gpt-4o".into()),
                enabled: true,
                cron: "0 3 * * *".into(),
                timezone: Some("UTC".into()),
            })
            .await
            .unwrap()
            .trigger;
        host.start_automations().await.unwrap();
        let fired = host
            .trigger_run_now(TriggerIdParams { id: trigger.id })
            .await
            .unwrap();
        println!("fired {}", fired.run_id.unwrap());
        // Killed while its run streams.
        std::future::pending::<()>().await;
    }
    let trigger_id = host
        .trigger_list(TriggerListParams {})
        .await
        .unwrap()
        .triggers[0]
        .id
        .clone();
    host.start_automations().await.unwrap();
    if phase == "recover" {
        // Until the relaunched run has ended.
        let ended = tokio::time::timeout(STUCK, async {
            loop {
                let now = history(&host, &trigger_id).await;
                if now.iter().all(|(s, _)| *s != OccurrenceStatus::Running) {
                    return now;
                }
                match events.recv().await {
                    Ok(AppEvent::TriggersChanged { .. }) | Err(_) => {}
                    Ok(_) => {}
                }
            }
        })
        .await
        .expect("the relaunched run did not end");
        println!("history {ended:?}");
    } else {
        println!("history {:?}", history(&host, &trigger_id).await);
    }
    host.shutdown(Duration::from_secs(5)).await;
    host.close().await;
    ExitCode::SUCCESS
}

/// The model requests of runs (the title request after a success is not one).
fn run_requests(requests: &[RecordedRequest]) -> usize {
    requests
        .iter()
        .filter(|r| r.path == "/v1/chat/completions")
        .filter(|r| !r.json().to_string().contains("Write a title"))
        .count()
}

fn spawn(root: &Path, mock: &MockProvider, phase: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .arg(phase)
        .env(CHILD_ENV, root)
        .env(MOCK_ENV, mock.url())
        .env(KEY_ENV, "sk-crash-test")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The child's first stdout line, read off the runtime.
async fn first_line(child: &mut std::process::Child) -> String {
    let stdout = child.stdout.take().unwrap();
    tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        line.trim().to_owned()
    })
    .await
    .unwrap()
}

async fn parent() -> ExitCode {
    let root = tempfile::tempdir().unwrap();
    let mock = MockProvider::start().await.unwrap();
    mock.set_default(
        "/v1/models",
        MockResponse::json(200, &serde_json::json!({"data": [{"id": "gpt-4o"}]})),
    );
    // The first run streams a word and then nothing: it is live when killed.
    mock.push_for(
        "/v1/chat/completions",
        MockResponse::sse([sse::frame(
            None,
            &serde_json::json!({"choices": [{"index": 0, "delta": {"content": "Working"}}]}),
        )])
        .hang(),
    );
    mock.set_default("/v1/chat/completions", sse::openai_chat_text("The report."));

    let mut fire = spawn(root.path(), &mock, "fire");
    let line = tokio::time::timeout(STUCK, first_line(&mut fire))
        .await
        .unwrap();
    assert!(line.starts_with("fired "), "{line}");
    tokio::time::timeout(STUCK, mock.wait_until(|r| run_requests(r) == 1))
        .await
        .expect("the trigger's run never reached the model");
    fire.kill().unwrap();
    fire.wait().unwrap();

    let mut recover = spawn(root.path(), &mock, "recover");
    let line = tokio::time::timeout(STUCK, first_line(&mut recover))
        .await
        .unwrap();
    assert!(recover.wait().unwrap().success());
    assert_eq!(
        line, "history [(Succeeded, 2)]",
        "relaunched once, and it finished"
    );
    assert_eq!(run_requests(&mock.requests()), 2, "exactly one relaunch");

    let mut again = spawn(root.path(), &mock, "again");
    let line = tokio::time::timeout(STUCK, first_line(&mut again))
        .await
        .unwrap();
    assert!(again.wait().unwrap().success());
    assert_eq!(line, "history [(Succeeded, 2)]");
    assert_eq!(
        run_requests(&mock.requests()),
        2,
        "nothing relaunched after it finished"
    );
    println!("trigger crash: killed mid-run, relaunched exactly once, 2 run requests in all");
    ExitCode::SUCCESS
}
