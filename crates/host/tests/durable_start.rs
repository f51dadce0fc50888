//! A message the window was told of is never lost: the host is killed with
//! SIGKILL at random points while it answers `run_start`, and each time the
//! store holds, for every thread, its message and its run together — and
//! every message whose `run_start` answered.
//!
//! The test runs itself as the child (`PIZZA_DURABLE_CHILD` names the data
//! root): the child opens the host, starts runs on new threads as fast as it
//! can and prints each answer; the parent kills it mid-stream.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use pizza_host::{DataRoot, Host, HostOptions};
use pizza_llm::{FakeModel, FakeTurn, ModelClient, ModelDescriptor, ModelRequest, StreamEvent};
use pizza_protocol::RunStartParams;
use pizza_store::{FolderFilter, Store, ThreadQuery};

const CHILD_ENV: &str = "PIZZA_DURABLE_CHILD";
const ROUNDS: usize = 8;

fn main() -> ExitCode {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    match std::env::var_os(CHILD_ENV) {
        Some(root) => runtime.block_on(child(Path::new(&root))),
        None => runtime.block_on(parent()),
    }
}

#[derive(Debug)]
struct FakeProvider(FakeModel);

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

    fn list_models(&self) -> BoxFuture<'_, pizza_llm::Result<Vec<ModelDescriptor>>> {
        async { Ok(vec![ModelDescriptor::bare("m")]) }.boxed()
    }
}

/// Starts runs until killed; each answer is one line: `<thread> <run> <text>`.
async fn child(root: &Path) -> ExitCode {
    let host = Host::open(
        DataRoot::prepare(root).unwrap(),
        HostOptions::default().with_ollama_probe(None),
    )
    .await
    .unwrap();
    // Every run streams a word and then waits: runs stay live, as real ones do.
    let model = FakeModel::with_turns((0..100_000).map(|_| {
        FakeTurn::from_events([StreamEvent::TextDelta {
            text: "thinking".into(),
        }])
        .then_hang()
    }));
    host.model_catalog()
        .await
        .register(Arc::new(FakeProvider(model)));
    let nonce = std::process::id();
    let mut out = std::io::stdout();
    for i in 0.. {
        let text = format!("message {nonce}-{i}");
        let started = host
            .run_start(RunStartParams {
                thread_id: None,
                text: text.clone(),
                model: Some("fake:m".into()),
                attachments: Vec::new(),
            })
            .await
            .unwrap();
        writeln!(out, "{} {} {text}", started.thread_id, started.run_id).unwrap();
    }
    ExitCode::SUCCESS
}

async fn parent() -> ExitCode {
    let root = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    // thread id → (run id, text) for every run_start that answered.
    let mut answered: BTreeMap<String, (String, String)> = BTreeMap::new();
    for round in 0..ROUNDS {
        let mut child = Command::new(&exe)
            .env(CHILD_ENV, root.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        // Killed after a random number of answers, a random moment later:
        // anywhere in the next run_start (before, inside or after its commit).
        let wait_for = fastrand::usize(1..=25);
        for _ in 0..wait_for {
            let line = lines.next().expect("the child answers").unwrap();
            record(&mut answered, &line);
        }
        std::thread::sleep(Duration::from_micros(fastrand::u64(0..3_000)));
        child.kill().unwrap();
        child.wait().unwrap();
        // What it said before dying was answered too.
        for line in lines {
            let Ok(line) = line else { break };
            record(&mut answered, &line);
        }
        check(root.path(), &answered, round).await;
    }
    println!(
        "durable start: {ROUNDS} kills, {} answered run_starts, every one on disk with its run",
        answered.len()
    );
    ExitCode::SUCCESS
}

fn record(answered: &mut BTreeMap<String, (String, String)>, line: &str) {
    let mut words = line.splitn(3, ' ');
    let (Some(thread), Some(run), Some(text)) = (words.next(), words.next(), words.next()) else {
        return; // A line cut by the kill.
    };
    answered.insert(thread.to_owned(), (run.to_owned(), text.to_owned()));
}

/// Every thread holds exactly its one message and its one run; every
/// answered start is among them.
async fn check(root: &Path, answered: &BTreeMap<String, (String, String)>, round: usize) {
    let store = Store::open(root).await.unwrap();
    let mut cursor = None;
    let mut seen = 0;
    loop {
        let page = store
            .list_threads(&ThreadQuery {
                folder: FolderFilter::Any,
                cursor,
                limit: 200,
                ..ThreadQuery::default()
            })
            .await
            .unwrap();
        for thread in &page.threads {
            let state = store.state(&thread.id, None).await.unwrap();
            let runs = store.thread_runs(&thread.id, 10).await.unwrap();
            let texts: Vec<&str> = state.messages.iter().map(|m| m.text.as_str()).collect();
            assert_eq!(
                (texts.len(), runs.len()),
                (1, 1),
                "round {round}: thread {} holds {texts:?} and {} runs",
                thread.id,
                runs.len()
            );
            if let Some((run, text)) = answered.get(&thread.id) {
                assert_eq!((&runs[0].id, texts[0]), (run, text.as_str()));
            }
        }
        seen += page.threads.len();
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    for thread in answered.keys() {
        assert!(
            store.thread(thread).await.is_ok(),
            "round {round}: answered thread {thread} is gone"
        );
    }
    assert!(seen >= answered.len());
    store.close().await;
}
