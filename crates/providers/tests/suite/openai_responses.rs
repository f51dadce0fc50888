use pizza_llm::{ContentPart, StopReason, StreamEvent};
use pretty_assertions::assert_eq;

use super::common::{Format, replay, request, rich_request};
use super::fixtures::*;

#[tokio::test]
async fn text_stream() {
    let (events, error, sent) = replay(Format::Responses, RESPONSES_TEXT, request("gpt-4.1")).await;
    assert!(error.is_none(), "{error:?}");
    insta::assert_json_snapshot!("responses_text", events);
    assert_eq!(sent["input"][0]["content"][0]["type"], "input_text");
    assert_eq!(sent["store"], false);
}

#[tokio::test]
async fn reasoning_and_parallel_tools_with_replay() {
    let reasoning = ContentPart::Reasoning {
        text: "Checking.".into(),
        signature: Some("rs_0".into()),
        encrypted: Some("gAAAA-old".into()),
    };
    let mut request = rich_request("o4-mini", reasoning);
    request.reasoning_effort = Some(pizza_llm::ReasoningEffort::Medium);
    let (events, error, sent) = replay(Format::Responses, RESPONSES_REASONING_TOOLS, request).await;
    assert!(error.is_none(), "{error:?}");
    insta::assert_json_snapshot!("responses_reasoning_tools", events);
    insta::assert_json_snapshot!("responses_rich_request", sent);
    let folded = {
        let mut c = pizza_llm::StreamCollector::new();
        events.into_iter().for_each(|e| c.push(e));
        c.finish().unwrap()
    };
    assert_eq!(
        folded.message.content[0],
        ContentPart::Reasoning {
            text: "Checking both cities.".into(),
            signature: Some("rs_1".into()),
            encrypted: Some("gAAAAB-enc".into())
        }
    );
}

#[tokio::test]
async fn incomplete_and_error_events() {
    let (events, error, _) = replay(Format::Responses, RESPONSES_INCOMPLETE, request("m")).await;
    assert!(error.is_none());
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Stop {
            reason: StopReason::MaxTokens
        })
    );

    let (events, error, _) = replay(Format::Responses, RESPONSES_ERROR, request("m")).await;
    assert_eq!(events.len(), 1);
    assert_eq!(error.unwrap().code(), "RATE_LIMIT");
}
