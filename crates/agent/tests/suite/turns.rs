use std::sync::Arc;

use pizza_agent::RunProfile;
use pizza_llm::{ContentPart, FakeTurn, Role as LlmRole, StopReason, StreamEvent};
use pizza_protocol::{MessagePart, RunEvent, RunStatus};
use pizza_store::Role;
use pizza_tools::ToolRegistry;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio::sync::Barrier;

use super::harness::{Harness, Rendezvous, config, result_of, text};

#[tokio::test]
async fn a_text_turn_streams_commits_and_finishes() {
    let h = Harness::new().await;
    h.model.push_turn(FakeTurn::text("Hello there"));
    let agent = h.agent(RunProfile {
        persona: Some("Answer like a pizzaiolo.".into()),
        ..config()
    });
    let (outcome, events) = h.run(&agent, Some("Hi")).await;

    assert_eq!(outcome.status, RunStatus::Succeeded);
    assert_eq!(outcome.error, None);
    assert_eq!(outcome.usage.input_tokens, 10);
    assert_eq!(
        h.transcript().await,
        vec![
            (Role::User, vec![text("Hi")]),
            (Role::Assistant, vec![text("Hello there")]),
        ]
    );
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e {
            RunEvent::RunStarted { .. } => "run_started",
            RunEvent::TextDelta { .. } => "text_delta",
            RunEvent::MessageCompleted { .. } => "message_completed",
            RunEvent::Usage { .. } => "usage",
            RunEvent::RunFinished { .. } => "run_finished",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "run_started",
            "message_completed",
            "text_delta",
            "text_delta",
            "usage",
            "message_completed",
            "run_finished"
        ]
    );
    assert_eq!(
        events.last(),
        Some(&RunEvent::RunFinished {
            status: RunStatus::Succeeded,
            error: None
        })
    );

    // The request: base prompt + persona + clock line; the tools; the turn.
    let request = &h.model.requests()[0];
    let system = request.system.as_deref().unwrap();
    assert!(system.contains("Answer like a pizzaiolo."));
    assert!(
        system.ends_with("Current local time: Wednesday 2026-03-04 09:16 (UTC+01:00)."),
        "{system}"
    );
    assert_eq!(request.model, "fake-model");
    assert_eq!(request.tools.len(), 6);
    assert_eq!(request.messages.len(), 1);
    // The clock line is never stored.
    let stored = h.store.state(&h.thread_id, None).await.unwrap();
    assert!(
        stored
            .messages
            .iter()
            .all(|m| !m.text.contains("Current local time"))
    );
}

#[tokio::test]
async fn a_tool_call_then_an_answer() {
    let h = Harness::new().await;
    h.model.push_turn(FakeTurn::tool_call(
        "c1",
        "write_file",
        json!({"file_path": "/notes.md", "content": "dough"}),
    ));
    h.model.push_turn(FakeTurn::tool_call(
        "c2",
        "read_file",
        json!({"file_path": "/notes.md"}),
    ));
    h.model.push_turn(FakeTurn::text("Done."));
    // A write to the thread's own files does not ask by default.
    let agent = h.agent(config());
    let (outcome, events) = h.run(&agent, Some("Write notes")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);

    let transcript = h.transcript().await;
    assert_eq!(transcript.len(), 6);
    assert_eq!(
        result_of(&transcript[2].1),
        ("c1", "Created /notes.md (5 characters).", false)
    );
    assert_eq!(result_of(&transcript[4].1), ("c2", "     1\tdough", false));
    assert_eq!(h.file("/notes.md").await.as_deref(), Some("dough"));
    assert!(events.iter().any(|e| matches!(
        e,
        RunEvent::ToolStarted { call_id, name, .. } if call_id == "c1" && name == "write_file"
    )));
    // The model saw its call's result.
    let second = &h.model.requests()[1];
    assert_eq!(second.messages[2].role, LlmRole::Tool);
    assert!(matches!(
        &second.messages[2].content[0],
        ContentPart::ToolResult { call_id, is_error: false, .. } if call_id == "c1"
    ));
}

#[tokio::test]
async fn parallel_calls_run_at_the_same_time() {
    let h = Harness::new().await;
    let mut tools = ToolRegistry::with_builtins();
    // Each call waits for the other: sequential execution would hang.
    tools.register(Arc::new(Rendezvous(Barrier::new(2))));
    h.model.push_turn(FakeTurn::tool_calls([
        ("a", "rendezvous", json!({})),
        ("b", "rendezvous", json!({})),
    ]));
    h.model.push_turn(FakeTurn::text("Both met."));
    let agent = h.agent_with(config(), tools);
    let (outcome, _) = h.run(&agent, Some("Meet")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let transcript = h.transcript().await;
    let mut ids: Vec<&str> = transcript[2..4]
        .iter()
        .map(|(_, p)| result_of(p).0)
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(transcript[4].1, vec![text("Both met.")]);
}

#[tokio::test]
async fn a_truncated_turn_leaves_a_notice_not_silence() {
    let h = Harness::new().await;
    h.model.push_turn(FakeTurn::from_events([
        StreamEvent::ReasoningDelta {
            text: "Let me think at length".into(),
        },
        StreamEvent::Stop {
            reason: StopReason::MaxTokens,
        },
    ]));
    let agent = h.agent(config());
    let (outcome, events) = h.run(&agent, Some("Explain everything")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let transcript = h.transcript().await;
    assert_eq!(
        transcript[1],
        (
            Role::Assistant,
            vec![MessagePart::Reasoning {
                text: "Let me think at length".into()
            }]
        )
    );
    let (role, parts) = &transcript[2];
    assert_eq!(*role, Role::System);
    assert!(
        matches!(&parts[..], [MessagePart::Notice { text }] if text.contains("ran out of output tokens")),
        "{parts:?}"
    );
    assert!(events.iter().any(|e| matches!(
        e,
        RunEvent::MessageCompleted { message } if matches!(&message.parts[..], [MessagePart::Notice { .. }])
    )));
}

#[tokio::test]
async fn a_model_error_fails_the_run_with_its_code() {
    let h = Harness::new().await;
    h.model
        .push_turn(FakeTurn::error(pizza_llm::Error::AuthExpired {
            provider_message: "bad key".into(),
        }));
    let agent = h.agent(config());
    let (outcome, events) = h.run(&agent, Some("Hi")).await;
    assert_eq!(outcome.status, RunStatus::Failed);
    let error = outcome.error.unwrap();
    assert_eq!(error.code.as_str(), "AUTH_EXPIRED");
    assert_eq!(error.details.as_deref(), Some("bad key"));
    assert!(matches!(
        events.last(),
        Some(RunEvent::RunFinished {
            status: RunStatus::Failed,
            error: Some(_)
        })
    ));
    // The user's message is kept; a later run picks up from there.
    assert_eq!(h.transcript().await.len(), 1);
}

#[tokio::test]
async fn an_answers_sources_are_committed_after_its_text() {
    let h = Harness::new().await;
    let rome = pizza_llm::Source::web("https://a.example/rome", Some("Rome"));
    h.model.push_turn(FakeTurn::from_events([
        StreamEvent::TextDelta {
            text: "753 BC.".into(),
        },
        StreamEvent::Source(rome.clone()),
        StreamEvent::Source(pizza_llm::Source::web("https://b.example/", None)),
        StreamEvent::Source(rome),
        StreamEvent::Stop {
            reason: StopReason::EndTurn,
        },
    ]));
    h.model.push_turn(FakeTurn::text("Yes."));
    let agent = h.agent(config());
    let (outcome, _) = h.run(&agent, Some("When was Rome founded?")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let source = |url: &str, title: Option<&str>| pizza_protocol::Source {
        url: Some(url.into()),
        title: title.map(str::to_owned),
        cited_text: None,
    };
    assert_eq!(
        h.transcript().await[1],
        (
            Role::Assistant,
            vec![
                text("753 BC."),
                MessagePart::Sources {
                    sources: vec![
                        source("https://a.example/rome", Some("Rome")),
                        source("https://b.example/", None),
                    ]
                },
            ]
        )
    );

    // The next turn sends the answer back as its text only.
    let (outcome, _) = h.run(&agent, Some("Sure?")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded);
    let replayed = &h.model.requests()[1].messages[1];
    assert_eq!(replayed.content, vec![ContentPart::text("753 BC.")]);
}
