use pizza_llm::ContentPart;
use pretty_assertions::assert_eq;

use super::common::{
    Format, assert_replay_stops_at_max_tokens, reasoning, replay, replay_rich, request,
};
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
    let (events, sent) = replay_rich(
        Format::Responses,
        RESPONSES_REASONING_TOOLS,
        "o4-mini",
        reasoning("Checking.", Some("rs_0"), Some("gAAAA-old")),
        Some(pizza_llm::ReasoningEffort::Medium),
    )
    .await;
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
    assert_replay_stops_at_max_tokens(Format::Responses, RESPONSES_INCOMPLETE, "m").await;

    let (events, error, _) = replay(Format::Responses, RESPONSES_ERROR, request("m")).await;
    assert_eq!(events.len(), 1);
    assert_eq!(error.unwrap().code(), "RATE_LIMIT");
}
