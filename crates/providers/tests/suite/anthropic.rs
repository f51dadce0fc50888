use pizza_llm::StreamEvent;
use pizza_test_support::mock_provider::{MockProvider, sse};
use pretty_assertions::assert_eq;

use super::common::{
    Format, assert_replay_stops_at_max_tokens, reasoning, replay, replay_rich, request, run,
};
use super::fixtures::*;

#[tokio::test]
async fn text_stream_with_ping() {
    let (events, error, sent) = replay(
        Format::Anthropic,
        ANTHROPIC_TEXT,
        request("claude-sonnet-4-5"),
    )
    .await;
    assert!(error.is_none(), "{error:?}");
    insta::assert_json_snapshot!("anthropic_text", events);
    assert_eq!(sent["max_tokens"], 8192);
    assert_eq!(sent["stream"], true);
}

#[tokio::test]
async fn thinking_and_parallel_tools_with_signature_replay() {
    let (events, sent) = replay_rich(
        Format::Anthropic,
        ANTHROPIC_THINKING_TOOLS,
        "claude-sonnet-4-5",
        reasoning("Earlier thought", Some("sig-earlier"), None),
        Some(pizza_llm::ReasoningEffort::Low),
    )
    .await;
    insta::assert_json_snapshot!("anthropic_thinking_tools", events);
    insta::assert_json_snapshot!("anthropic_rich_request", sent);
}

#[tokio::test]
async fn max_tokens_and_error_event() {
    assert_replay_stops_at_max_tokens(Format::Anthropic, ANTHROPIC_MAX_TOKENS, "m").await;

    let (_, error, _) = replay(Format::Anthropic, ANTHROPIC_ERROR, request("m")).await;
    assert_eq!(error.unwrap().code(), "RATE_LIMIT");
}

#[tokio::test]
async fn bearer_auth_and_custom_base_url() {
    let server = MockProvider::start().await.unwrap();
    server.push(sse::anthropic_text("hi there"));
    let provider = pizza_providers::AnthropicProvider::new(pizza_providers::AnthropicConfig {
        api_key: "gw-token".into(),
        auth: pizza_providers::AnthropicAuth::Bearer,
        base_url: format!("{}/gateway/", server.url()),
        transport: super::common::fast(),
    })
    .unwrap();
    let (events, error) = run(&provider, request("claude")).await;
    assert!(error.is_none(), "{error:?}");
    assert!(matches!(events.last(), Some(StreamEvent::Stop { .. })));
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/gateway/v1/messages");
    assert_eq!(sent.header("authorization"), Some("Bearer gw-token"));
    assert_eq!(sent.header("x-api-key"), None);
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
}
