use pizza_llm::{ContentPart, StopReason, StreamEvent};
use pretty_assertions::assert_eq;

use super::common::{Format, replay, request, rich_request};
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
    let reasoning = ContentPart::Reasoning {
        text: String::new(),
        signature: Some("sig-old".into()),
        encrypted: None,
    };
    let mut request = rich_request("test-model", reasoning);
    request.reasoning_effort = Some(pizza_llm::ReasoningEffort::High);
    let (events, error, sent) = replay(Format::Gemini, GEMINI_THINKING_TOOLS, request).await;
    assert!(error.is_none(), "{error:?}");
    insta::assert_json_snapshot!("gemini_thinking_tools", events);
    insta::assert_json_snapshot!("gemini_rich_request", sent);
}

#[tokio::test]
async fn max_tokens_and_error_chunk() {
    let (events, error, _) = replay(Format::Gemini, GEMINI_MAX_TOKENS, request("test-model")).await;
    assert!(error.is_none());
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Stop {
            reason: StopReason::MaxTokens
        })
    );
    let (_, error, _) = replay(Format::Gemini, GEMINI_ERROR, request("test-model")).await;
    assert_eq!(error.unwrap().code(), "RATE_LIMIT");
}
