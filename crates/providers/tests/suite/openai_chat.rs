use pizza_llm::StreamEvent;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::common::{
    Format, assert_replay_stops_at_max_tokens, reasoning, replay, replay_rich, request,
};
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
    let (events, sent) = replay_rich(
        Format::Chat,
        CHAT_PARALLEL_TOOLS,
        "gpt-4o",
        reasoning("think", None, None),
        None,
    )
    .await;
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
    assert_replay_stops_at_max_tokens(Format::Chat, CHAT_LENGTH, "m").await;

    let (events, error, _) = replay(Format::Chat, CHAT_ERROR_MID_STREAM, request("m")).await;
    assert_eq!(events, vec![StreamEvent::TextDelta { text: "Par".into() }]);
    assert_eq!(error.unwrap().code(), "RATE_LIMIT");
}
