use pizza_llm::{ContentPart, Message, ModelRequest, Role, StreamEvent};
use pizza_test_support::mock_provider::{MockProvider, MockResponse};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::common::{
    Format, assert_replay_stops_at_max_tokens, fast, reasoning, replay, replay_rich, request, run,
};
use super::fixtures::*;

#[tokio::test]
async fn text_stream() {
    let (events, error, sent) = replay(Format::Ollama, OLLAMA_TEXT, request("llama3.2")).await;
    assert!(error.is_none(), "{error:?}");
    insta::assert_json_snapshot!("ollama_text", events);
    assert_eq!(sent["stream"], true);
}

#[tokio::test]
async fn thinking_and_stringified_tool_arguments() {
    let (events, sent) = replay_rich(
        Format::Ollama,
        OLLAMA_THINKING_TOOLS,
        "qwen3",
        reasoning("x", None, None),
        None,
    )
    .await;
    insta::assert_json_snapshot!("ollama_thinking_tools", events);
    insta::assert_json_snapshot!("ollama_rich_request", sent);
    let deltas: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallDelta { arguments, .. } => {
                Some(serde_json::from_str::<serde_json::Value>(arguments).unwrap())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        deltas,
        vec![json!({"location": "Paris"}), json!({"location": "Rome"})]
    );
}

#[tokio::test]
async fn length_and_error_line() {
    assert_replay_stops_at_max_tokens(Format::Ollama, OLLAMA_LENGTH, "m").await;
    let (_, error, _) = replay(Format::Ollama, OLLAMA_ERROR, request("m")).await;
    assert_eq!(error.unwrap().code(), "STREAM_ERROR");
}

#[tokio::test]
async fn images_become_a_notice_for_non_vision_models() {
    let server = MockProvider::start().await.unwrap();
    server.set_default(
        "/api/show",
        MockResponse::json(200, &json!({"capabilities": ["completion"]})),
    );
    server.push_for(
        "/api/chat",
        MockResponse::ndjson(
            OLLAMA_TEXT
                .lines()
                .map(|l| serde_json::from_str(l).unwrap()),
        ),
    );
    let provider = pizza_providers::OllamaProvider::new(pizza_providers::OllamaConfig {
        base_url: server.url(),
        transport: fast(),
    })
    .unwrap();
    let request = ModelRequest::new(
        "llama3.2",
        vec![Message::new(
            Role::User,
            vec![
                ContentPart::text("What is this?"),
                ContentPart::image_base64("image/png", "AAAA"),
            ],
        )],
    );
    let (_, error) = run(&provider, request).await;
    assert!(error.is_none(), "{error:?}");
    let sent = server
        .requests()
        .into_iter()
        .find(|r| r.path == "/api/chat")
        .unwrap()
        .json();
    let message = &sent["messages"][0];
    assert!(message.get("images").is_none());
    assert!(
        message["content"]
            .as_str()
            .unwrap()
            .contains("cannot view images")
    );
}
