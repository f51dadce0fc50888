use pretty_assertions::assert_eq;

use super::common::{
    Format, assert_replay_stops_at_max_tokens, reasoning, replay, replay_rich, request,
};
use super::fixtures::*;

#[tokio::test]
async fn text_stream() {
    let (events, error, sent) = replay(Format::Gemini, GEMINI_TEXT, request("test-model")).await;
    assert!(error.is_none(), "{error:?}");
    insta::assert_json_snapshot!("gemini_text", events);
    assert_eq!(sent["contents"][0]["role"], "user");
}

#[tokio::test]
async fn thoughts_and_parallel_function_calls() {
    let (events, sent) = replay_rich(
        Format::Gemini,
        GEMINI_THINKING_TOOLS,
        "test-model",
        reasoning("", Some("sig-old"), None),
        Some(pizza_llm::ReasoningEffort::High),
    )
    .await;
    insta::assert_json_snapshot!("gemini_thinking_tools", events);
    insta::assert_json_snapshot!("gemini_rich_request", sent);
}

#[tokio::test]
async fn max_tokens_and_error_chunk() {
    assert_replay_stops_at_max_tokens(Format::Gemini, GEMINI_MAX_TOKENS, "test-model").await;
    let (_, error, _) = replay(Format::Gemini, GEMINI_ERROR, request("test-model")).await;
    assert_eq!(error.unwrap().code(), "RATE_LIMIT");
}
