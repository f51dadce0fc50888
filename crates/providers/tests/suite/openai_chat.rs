use pizza_llm::{ContentPart, StopReason, StreamEvent};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::common::{Format, replay, request, rich_request};
use super::fixtures::*;

#[tokio::test]
async fn text_stream_and_request_body() {
    let (events, error, sent) = replay(Format::Chat, CHAT_TEXT, request("gpt-4o-mini")).await;
    assert!(error.is_none(), "{error:?}");
    insta::assert_json_snapshot!("chat_text", events);
    assert_eq!(
        sent,
        json!({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hello"}],
            "stream": true, "stream_options": {"include_usage": true}})
    );
}

#[tokio::test]
async fn parallel_tool_calls_and_replayed_history() {
    let reasoning = ContentPart::Reasoning {
        text: "think".into(),
        signature: None,
        encrypted: None,
    };
    let (events, error, sent) = replay(
        Format::Chat,
        CHAT_PARALLEL_TOOLS,
        rich_request("gpt-4o", reasoning),
    )
    .await;
    assert!(error.is_none(), "{error:?}");
    insta::assert_json_snapshot!("chat_parallel_tools", events);
    insta::assert_json_snapshot!("chat_rich_request", sent);
}

#[tokio::test]
async fn server_repeating_id_and_name_without_done() {
    let (events, error, _) = replay(Format::Chat, CHAT_REPEATING_SERVER, request("local")).await;
    assert!(error.is_none(), "{error:?}");
    insta::assert_json_snapshot!("chat_repeating_server", events);
    let starts = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolCallStart { .. }))
        .count();
    assert_eq!(starts, 1);
}

#[tokio::test]
async fn length_stop_and_mid_stream_error() {
    let (events, error, _) = replay(Format::Chat, CHAT_LENGTH, request("m")).await;
    assert!(error.is_none());
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Stop {
            reason: StopReason::MaxTokens
        })
    );

    let (events, error, _) = replay(Format::Chat, CHAT_ERROR_MID_STREAM, request("m")).await;
    assert_eq!(events, vec![StreamEvent::TextDelta { text: "Par".into() }]);
    assert_eq!(error.unwrap().code(), "RATE_LIMIT");
}
