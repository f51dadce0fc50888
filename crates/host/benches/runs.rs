//! Run pipeline figures (plain timing, prints results):
//! events/s from a scripted model through the registry to a subscriber, and
//! `run_start` → first delta on the subscriber.
//!
//! `cargo bench -p pizza-host --bench runs`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use pizza_host::{DataRoot, Host, HostOptions};
use pizza_llm::{FakeModel, FakeTurn, ModelClient, ModelDescriptor, ModelRequest, StreamEvent};
use pizza_protocol::{RunEvent, RunEventFrame, RunStartParams, ThreadSubscribeParams};
use pizza_test_support::data_root::TempDataRoot;
use tokio::sync::mpsc;

const DELTAS: usize = 200_000;
const LATENCY_RUNS: usize = 200;

/// Answers every call (runs and their title requests alike) with the same
/// scripted turn, so concurrent calls never take each other's script.
#[derive(Debug, Default)]
struct FakeProvider {
    model: FakeModel,
    turn: Mutex<FakeTurn>,
}

impl FakeProvider {
    fn answer_with(&self, turn: FakeTurn) {
        *self.turn.lock().unwrap() = turn;
    }
}

impl ModelClient for FakeProvider {
    fn stream(
        &self,
        request: ModelRequest,
        cancel: pizza_llm::CancellationToken,
    ) -> BoxFuture<'_, pizza_llm::Result<pizza_llm::EventStream>> {
        self.model.push_turn(self.turn.lock().unwrap().clone());
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

fn start(thread_id: Option<String>) -> RunStartParams {
    RunStartParams {
        thread_id,
        text: "go".into(),
        model: Some("fake:m".into()),
        attachments: Vec::new(),
    }
}

async fn throughput(host: &Host, model: &FakeProvider) {
    let thread = host
        .thread_create(pizza_protocol::ThreadCreateParams::default())
        .await
        .unwrap();
    let mut events: Vec<StreamEvent> = (0..DELTAS)
        .map(|i| StreamEvent::TextDelta {
            text: if i % 10 == 9 { "x ".into() } else { "x".into() },
        })
        .collect();
    events.push(StreamEvent::Stop {
        reason: pizza_llm::StopReason::EndTurn,
    });
    model.answer_with(FakeTurn::from_events(events));
    let mut notices = host.subscribe();
    let mut rx = subscribe_from_start(host, &thread.id).await;
    let began = Instant::now();
    let run = host.run_start(start(Some(thread.id))).await.unwrap();
    let mut frames = 0usize;
    let mut deltas = 0usize;
    while let Some(frame) = rx.recv().await {
        frames += 1;
        match frame.event {
            RunEvent::TextDelta { .. } => deltas += 1,
            RunEvent::RunFinished { .. } | RunEvent::Lagged => break,
            _ => {}
        }
    }
    let took = began.elapsed();
    println!(
        "pipeline: {deltas} deltas ({frames} frames) in {:.1} ms = {:.0} events/s",
        took.as_secs_f64() * 1e3,
        frames as f64 / took.as_secs_f64()
    );
    assert_eq!(deltas, DELTAS, "the subscriber lagged");
    // Let run-end maintenance (its title request) finish before timing more.
    loop {
        if let pizza_protocol::AppEvent::Activity { run_id, .. } = notices.recv().await.unwrap()
            && run_id.as_deref() == Some(run.run_id.as_str())
        {
            break;
        }
    }
}

/// Subscribes to a thread's events from its first one, before a run starts.
async fn subscribe_from_start(host: &Host, thread_id: &str) -> mpsc::Receiver<RunEventFrame> {
    let (_ack, rx) = host
        .thread_subscribe(ThreadSubscribeParams {
            thread_id: thread_id.to_owned(),
            since: Some(0),
        })
        .await
        .unwrap();
    rx
}

async fn first_delta_latency(host: &Host, model: &FakeProvider) {
    model.answer_with(FakeTurn::text("hi there"));
    let mut samples = Vec::with_capacity(LATENCY_RUNS);
    for _ in 0..LATENCY_RUNS {
        let thread = host
            .thread_create(pizza_protocol::ThreadCreateParams::default())
            .await
            .unwrap();
        let mut rx = subscribe_from_start(host, &thread.id).await;
        let began = Instant::now();
        host.run_start(start(Some(thread.id))).await.unwrap();
        loop {
            let frame = rx.recv().await.unwrap();
            match frame.event {
                RunEvent::TextDelta { .. } => {
                    samples.push(began.elapsed());
                    break;
                }
                RunEvent::RunFinished { status, error } => {
                    panic!("run ended without a delta: {status:?} {error:?}")
                }
                _ => {}
            }
        }
        while let Some(frame) = rx.recv().await {
            if matches!(frame.event, RunEvent::RunFinished { .. }) {
                break;
            }
        }
    }
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "run_start -> first delta over {LATENCY_RUNS} runs: p50 {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        ms(at(0.5)),
        ms(at(0.9)),
        ms(at(1.0))
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let root = TempDataRoot::new().unwrap();
        let host = Host::open(
            DataRoot::prepare(root.path()).unwrap(),
            HostOptions::default().with_ollama_probe(None),
        )
        .await
        .unwrap();
        let model = Arc::new(FakeProvider::default());
        host.model_catalog().await.register(Arc::clone(&model) as _);
        throughput(&host, &model).await;
        first_delta_latency(&host, &model).await;
        host.close().await;
    });
}
