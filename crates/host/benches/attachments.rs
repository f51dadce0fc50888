//! Attachment figures (plain timing, prints results): `attachment_add` of a
//! 10 MiB file (what stands between a pick and its chip), and the database
//! growth per step of a 40-turn thread whose first message carries a 5 MiB
//! image, beside the same thread without it.
//!
//! `cargo bench -p pizza-host --bench attachments`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use pizza_host::{DataRoot, Host, HostOptions};
use pizza_llm::{FakeModel, FakeTurn, ModelClient, ModelDescriptor, ModelRequest};
use pizza_protocol::{
    AppEvent, AttachmentAddParams, AttachmentSource, RunStartParams, ThreadSubscribeParams,
};
use pizza_test_support::data_root::TempDataRoot;

const ADDS: usize = 20;
const TURNS: usize = 40;

/// Answers every call with the same short text.
#[derive(Debug, Default)]
struct FakeProvider {
    model: FakeModel,
}

impl ModelClient for FakeProvider {
    fn stream(
        &self,
        request: ModelRequest,
        cancel: pizza_llm::CancellationToken,
    ) -> BoxFuture<'_, pizza_llm::Result<pizza_llm::EventStream>> {
        self.model.push_turn(FakeTurn::text("Noted."));
        self.model.stream(request, cancel)
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

async fn open(root: &TempDataRoot) -> Host {
    let host = Host::open(
        DataRoot::prepare(root.path()).unwrap(),
        HostOptions::default().with_ollama_probe(None),
    )
    .await
    .unwrap();
    host.model_catalog()
        .await
        .register(Arc::new(FakeProvider::default()));
    host
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

async fn add_ten_mib() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let dir = tempfile::tempdir().unwrap();
    let mut samples = Vec::with_capacity(ADDS);
    for i in 0..ADDS {
        // Different bytes each time: no dedupe shortcut.
        let path = dir.path().join(format!("big-{i}.txt"));
        let mut bytes = vec![b'a'; 10 * 1024 * 1024];
        bytes[..8].copy_from_slice(&(i as u64).to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let began = Instant::now();
        host.attachment_add(AttachmentAddParams {
            thread_id: None,
            source: AttachmentSource::Path {
                path: path.display().to_string(),
            },
        })
        .await
        .unwrap();
        samples.push(began.elapsed());
    }
    let max = *samples.iter().max().unwrap();
    println!(
        "attachment_add 10 MiB file: median {:.1} ms, max {:.1} ms over {ADDS} (target < 100 ms)",
        median(samples).as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3
    );
}

/// The database and its WAL, in bytes, after a checkpoint-free read.
fn db_bytes(root: &TempDataRoot) -> u64 {
    ["pizza-bot.sqlite", "pizza-bot.sqlite-wal"]
        .iter()
        .map(|name| {
            std::fs::metadata(root.path().join(name))
                .map(|m| m.len())
                .unwrap_or(0)
        })
        .sum()
}

/// Runs `TURNS` turns on one thread, the first with a 5 MiB image when
/// `with_image`; answers the database growth of the first turn and the
/// mean growth per turn after it.
async fn growth(with_image: bool) -> (u64, f64) {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let mut attachments = Vec::new();
    if with_image {
        let mut image = vec![0u8; 5 * 1024 * 1024];
        image[..8].copy_from_slice(b"\x89PNG\r\n\x1a\n");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("photo.png");
        std::fs::write(&path, &image).unwrap();
        let added = host
            .attachment_add(AttachmentAddParams {
                thread_id: None,
                source: AttachmentSource::Path {
                    path: path.display().to_string(),
                },
            })
            .await
            .unwrap();
        attachments.push(added.id);
    }
    let mut thread_id = None;
    let before = db_bytes(&root);
    let mut after_first = 0;
    for turn in 0..TURNS {
        let mut notices = host.subscribe();
        let started = host
            .run_start(RunStartParams {
                thread_id: thread_id.clone(),
                text: format!("turn {turn}: keep going"),
                model: Some("fake:m".into()),
                attachments: std::mem::take(&mut attachments),
            })
            .await
            .unwrap();
        let _ = host
            .thread_subscribe(ThreadSubscribeParams {
                thread_id: started.thread_id.clone(),
                since: None,
            })
            .await
            .unwrap();
        // Run-end maintenance (title, counts) is done when its activity arrives.
        loop {
            if let AppEvent::Activity { run_id, .. } = notices.recv().await.unwrap()
                && run_id.as_deref() == Some(started.run_id.as_str())
            {
                break;
            }
        }
        thread_id = Some(started.thread_id);
        if turn == 0 {
            after_first = db_bytes(&root);
        }
    }
    let grown = db_bytes(&root).saturating_sub(after_first);
    (
        after_first.saturating_sub(before),
        grown as f64 / (TURNS - 1) as f64,
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    add_ten_mib().await;
    let (first_with, per_with) = growth(true).await;
    let (first_without, per_without) = growth(false).await;
    println!(
        "40-turn thread, database + WAL growth: first turn {first_with} B with a 5 MiB image, \
         {first_without} B without; then {per_with:.0} B per turn with it, {per_without:.0} B \
         without"
    );
}
