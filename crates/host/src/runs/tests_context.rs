//! The context gauge's source: a thread opened after its run shows how full
//! the context was at its last model call, and whether that request was
//! summarized, without a new call.

use super::tests::{MODEL, activity, open, start, subscribe, until_finished};
use super::*;
use pizza_llm::{FakeModel, FakeTurn};
use pizza_protocol::{ContextUse, ModelOverrideSetParams, RunEvent, ThreadGetParams};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;

async fn context(host: &Host, thread_id: &str) -> Option<ContextUse> {
    host.thread_get(ThreadGetParams {
        thread_id: thread_id.to_owned(),
        ..ThreadGetParams::default()
    })
    .await
    .unwrap()
    .context
}

/// Runs `text` on the thread to its end, run-end maintenance included;
/// the thread and the run's events.
async fn run(host: &Host, thread_id: Option<&str>, text: &str) -> (String, Vec<RunEvent>) {
    let mut events = host.subscribe();
    let started = host.run_start(start(thread_id, text)).await.unwrap();
    let mut rx = subscribe(host, &started.thread_id, None).await;
    let frames = until_finished(&mut rx).await;
    activity(&mut events, &started.run_id).await;
    (
        started.thread_id,
        frames.into_iter().map(|f| f.event).collect(),
    )
}

#[tokio::test]
async fn thread_get_returns_the_last_calls_context_use() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::text("Hello."),
        FakeTurn::text("Greeting"),
        // A window this small has the next request summarized first.
        FakeTurn::text("The user said hi."),
        FakeTurn::text("Hello again."),
    ]);
    let host = open(&root, &model).await;

    // No window known: nothing to show, even after a call.
    let (thread_id, _) = run(&host, None, "hi").await;
    assert_eq!(context(&host, &thread_id).await, None);

    host.model_override_set(ModelOverrideSetParams {
        model: MODEL.to_owned(),
        context_window: Some(1_000),
    })
    .await
    .unwrap();
    let (_, events) = run(&host, Some(&thread_id), "and again").await;
    assert!(
        events.contains(&RunEvent::Usage {
            input_tokens: 10,
            output_tokens: 5,
            context_window: Some(1_000),
            summarized: true,
        }),
        "{events:?}"
    );
    // The fake model reports 10 input and 5 output tokens per call.
    let expected = Some(ContextUse {
        used_tokens: 15,
        context_window: 1_000,
        summarized: true,
    });
    assert_eq!(context(&host, &thread_id).await, expected);

    // And after a restart, from the store alone.
    host.close().await;
    let host = open(&root, &model).await;
    assert_eq!(context(&host, &thread_id).await, expected);
}
