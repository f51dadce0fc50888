use pizza_llm::{FakeTurn, Role as LlmRole};
use pizza_protocol::RunStatus;
use pizza_store::{NewMessage, Role, StepCommit};
use pretty_assertions::assert_eq;

use super::harness::{Harness, config};

/// A thread whose history is long next to a 4,000-token window.
async fn long_thread(h: &Harness) {
    let mut messages = Vec::new();
    for i in 0..6 {
        let role = if i % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        let body = format!("turn {i}: {}", "pizza ".repeat(330));
        let parts = vec![pizza_store::Part::text(body.clone())];
        messages.push(NewMessage::new(role, parts, body));
    }
    h.store
        .commit_step(
            &h.thread_id,
            StepCommit {
                messages,
                ..StepCommit::default()
            },
        )
        .await
        .unwrap();
}

fn first_text(message: &pizza_llm::Message) -> String {
    message.text()
}

#[tokio::test]
async fn older_turns_are_summarized_in_the_request_only_and_once() {
    let h = Harness::new().await;
    long_thread(&h).await;
    let before = h.store.state(&h.thread_id, None).await.unwrap().messages;

    h.model.push_turn(FakeTurn::text(
        "The user and assistant discussed pizza at length.",
    ));
    h.model.push_turn(FakeTurn::text("Here is more."));
    let agent = h.agent(config());
    let mut input = h.input(Some("Continue"));
    input.context_window = Some(4_000);
    let outcome = agent.run_unobserved(input).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);

    let requests = h.model.requests();
    assert_eq!(requests.len(), 2);
    // The summary call: no tools, the old turns rendered as text.
    assert!(requests[0].tools.is_empty());
    assert!(requests[0].system.as_deref().unwrap().contains("summarize"));
    assert!(first_text(&requests[0].messages[0]).contains("turn 0"));
    // The answer call: the summary replaces the old turns; recent ones stay.
    let sent = &requests[1].messages;
    assert_eq!(sent[0].role, LlmRole::User);
    assert_eq!(
        first_text(&sent[0]),
        "[Summary of the earlier conversation]\nThe user and assistant discussed pizza at length."
    );
    assert!(sent.iter().all(|m| !m.text().starts_with("turn 0")));
    assert_eq!(sent.last().unwrap().text(), "Continue");
    assert!(sent.len() < 8, "{}", sent.len());

    // The stored transcript stays whole: the seeded turns, the question, the answer.
    let after = h.store.state(&h.thread_id, None).await.unwrap().messages;
    assert_eq!(after.len(), before.len() + 2);
    assert_eq!(&after[..before.len()], &before[..]);
    assert!(after.iter().all(|m| !m.text.contains("discussed pizza")));

    // The next call reuses the stored summary instead of recomputing it.
    h.model.push_turn(FakeTurn::text("Short answer."));
    let mut input = h.input(Some("And?"));
    input.run_id = "run-2".into();
    input.context_window = Some(4_000);
    let outcome = agent.run_unobserved(input).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let requests = h.model.requests();
    assert_eq!(requests.len(), 3, "no second summary call");
    assert!(
        first_text(&requests[2].messages[0]).starts_with("[Summary of the earlier conversation]")
    );
}

#[tokio::test]
async fn below_the_threshold_nothing_is_summarized() {
    let h = Harness::new().await;
    long_thread(&h).await;
    h.model.push_turn(FakeTurn::text("Fine."));
    let agent = h.agent(config());
    let outcome = agent.run_unobserved(h.input(Some("Continue"))).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let requests = h.model.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].messages.len(), 7);
}
