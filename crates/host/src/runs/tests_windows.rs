//! Subscriptions belong to the window that opened them.

use super::tests::{open, start, until_finished};
use super::*;
use pizza_llm::{FakeModel, FakeTurn, StreamEvent};
use pizza_protocol::RunEvent;
use pizza_test_support::data_root::TempDataRoot;

fn subscribe_params(thread_id: &str) -> ThreadSubscribeParams {
    ThreadSubscribeParams {
        thread_id: thread_id.to_owned(),
        since: None,
    }
}

#[tokio::test]
async fn subscription_ids_are_random_and_only_their_window_ends_them() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::from_events([StreamEvent::TextDelta {
        text: "working".to_owned(),
    }])
    .then_hang()]);
    let host = open(&root, &model).await;
    let started = host.run_start(start(None, "go")).await.unwrap();
    let thread = started.thread_id.clone();
    let (mains, mut main_frames) = host
        .thread_subscribe_from("main", subscribe_params(&thread))
        .await
        .unwrap();
    let (quick, mut quick_frames) = host
        .thread_subscribe_from("quick-ask", subscribe_params(&thread))
        .await
        .unwrap();
    for id in [&mains.subscription_id, &quick.subscription_id] {
        assert_eq!(id.len(), 32, "{id}");
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    }
    assert_ne!(mains.subscription_id, quick.subscription_id);

    // Another window naming main's id (or the host without a window) ends nothing.
    let guess = ThreadUnsubscribeParams {
        thread_id: thread.clone(),
        subscription_id: mains.subscription_id.clone(),
    };
    host.thread_unsubscribe_from("quick-ask", guess.clone())
        .await
        .unwrap();
    host.thread_unsubscribe(guess.clone()).await.unwrap();
    // Quick-ask ends its own.
    host.thread_unsubscribe_from(
        "quick-ask",
        ThreadUnsubscribeParams {
            thread_id: thread.clone(),
            subscription_id: quick.subscription_id.clone(),
        },
    )
    .await
    .unwrap();

    host.run_cancel(RunCancelParams {
        thread_id: thread.clone(),
        run_id: started.run_id.clone(),
    })
    .await
    .unwrap();
    // Main still hears the run to its end; quick-ask's stream ended before it.
    let frames = until_finished(&mut main_frames).await;
    assert!(matches!(
        frames.last().map(|f| &f.event),
        Some(RunEvent::RunFinished { .. })
    ));
    while let Some(frame) = quick_frames.recv().await {
        assert!(!matches!(frame.event, RunEvent::RunFinished { .. }));
    }

    // Main ends its own.
    host.thread_unsubscribe_from("main", guess).await.unwrap();
    assert!(main_frames.recv().await.is_none());
}
