use pizza_llm::{ContentPart, Message as LlmMessage, Role as LlmRole, ToolCall};
use pizza_store::{Message as StoredMessage, NewMessage, Part, ResultPart, Role};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn stored(seq: i64, new: NewMessage) -> StoredMessage {
    StoredMessage {
        id: format!("m{seq}"),
        thread_id: "t".into(),
        seq,
        role: new.role,
        content: new.content,
        text: new.text,
        tool_call_ids: new.tool_call_ids,
        tool_call_id: new.tool_call_id,
        created_at: 0,
    }
}

fn calls(ids: &[&str]) -> LlmMessage {
    LlmMessage::new(
        LlmRole::Assistant,
        ids.iter()
            .map(|id| {
                ContentPart::ToolCall(ToolCall {
                    id: (*id).to_owned(),
                    name: "ls".into(),
                    arguments: json!({}),
                })
            })
            .collect(),
    )
}

#[test]
fn pending_calls_are_the_unanswered_calls_of_the_last_assistant_turn() {
    let mut messages = vec![
        stored(1, user_message("hi", &[])),
        stored(2, assistant_message(&calls(&["a", "b", "c"]), &[]).unwrap()),
        stored(3, tool_result_message("b", "ok", false)),
    ];
    let ids: Vec<String> = pending_calls(&messages)
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids, ["a", "c"]);
    assert!(!turn_is_over(&messages));

    messages.push(stored(4, user_message("stop", &[])));
    assert!(pending_calls(&messages).unwrap().is_empty());
}

#[test]
fn reasoning_is_replayed_with_its_signature_and_notices_never_sent() {
    let answer = LlmMessage::new(
        LlmRole::Assistant,
        vec![
            ContentPart::Reasoning {
                text: "hmm".into(),
                signature: Some("sig".into()),
                encrypted: None,
            },
            ContentPart::text("Hello"),
        ],
    );
    let message = stored(1, assistant_message(&answer, &[]).unwrap());
    assert_eq!(
        message.content,
        vec![
            Part::Reasoning {
                text: "hmm".into(),
                signature: Some("sig".into()),
                encrypted: None
            },
            Part::text("Hello")
        ]
    );
    assert_eq!(to_model_message(&message).unwrap(), Some(answer));
    // Reasoning kept before signatures were stored cannot be replayed.
    let unsigned = stored(
        3,
        NewMessage::new(
            Role::Assistant,
            vec![
                Part::Reasoning {
                    text: "old".into(),
                    signature: None,
                    encrypted: None,
                },
                Part::text("Hello"),
            ],
            "Hello",
        ),
    );
    assert_eq!(
        to_model_message(&unsigned).unwrap(),
        Some(LlmMessage::assistant("Hello"))
    );
    let notice = stored(2, notice_message("limit"));
    assert_eq!(notice.role, Role::System);
    assert_eq!(to_model_message(&notice).unwrap(), None);
    assert!(turn_is_over(&[message, notice]));
}

#[test]
fn tool_results_round_trip_to_the_model() {
    let message = stored(1, tool_result_message("c1", "boom", true));
    assert_eq!(message.tool_call_id.as_deref(), Some("c1"));
    assert_eq!(
        to_model_message(&message).unwrap(),
        Some(LlmMessage::tool_result("c1", "boom", true))
    );
    assert_eq!(
        message.content,
        vec![Part::ToolResult {
            call_id: "c1".into(),
            content: vec![ResultPart::text("boom")],
            is_error: true
        }]
    );
}

#[test]
fn sources_are_stored_after_the_answer_and_never_sent_back() {
    let answer = LlmMessage::assistant("Rome was founded in 753 BC.");
    let sources = [
        pizza_llm::Source::web("https://a.example/rome", Some("Rome"))
            .with_cited_text(Some("753 BC")),
        pizza_llm::Source::web("", Some("notes.pdf")),
    ];
    let message = stored(1, assistant_message(&answer, &sources).unwrap());
    assert_eq!(
        message.content[1],
        Part::Sources {
            sources: vec![
                pizza_store::CitedSource {
                    url: Some("https://a.example/rome".into()),
                    title: Some("Rome".into()),
                    cited_text: Some("753 BC".into()),
                },
                pizza_store::CitedSource {
                    url: None,
                    title: Some("notes.pdf".into()),
                    cited_text: None,
                },
            ]
        }
    );
    assert_eq!(message.text, "Rome was founded in 753 BC.");
    let sent = to_model_message(&message).unwrap().unwrap();
    assert_eq!(
        sent.content,
        vec![ContentPart::text("Rome was founded in 753 BC.")]
    );
    // Sources alone are no answer.
    let empty = LlmMessage::new(LlmRole::Assistant, Vec::new());
    assert!(assistant_message(&empty, &sources).is_none());
}
