//! Reasoning is stored with its signature and replayed on the next turn, as
//! Anthropic and Bedrock require for a conversation that continues after
//! their model thought (they reject a later turn whose thinking lost it).
//! The store is reopened between the turns, so what is replayed is what
//! the database kept, not what a live run remembered.

use std::path::Path;
use std::sync::Arc;

use aws_smithy_types::event_stream::{Header, HeaderValue, Message};
use bytes::Bytes;
use pizza_agent::{Agent, CancellationToken, NullSink, RunInput, RunProfile};
use pizza_llm::ModelClient;
use pizza_protocol::RunStatus;
use pizza_providers::{
    AnthropicConfig, AnthropicProvider, BedrockAuth, BedrockConfig, BedrockProvider,
    TransportConfig,
};
use pizza_store::{NewThread, Store};
use pizza_test_support::mock_provider::{MockProvider, MockResponse, sse};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const SIGNATURE: &str = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds";

/// Runs one user turn on the thread with a store opened afresh.
async fn turn(dir: &Path, thread_id: &str, client: Arc<dyn ModelClient>, model: &str, text: &str) {
    let store = Store::open(dir).await.unwrap();
    let input = RunInput {
        thread_id: thread_id.to_owned(),
        run_id: format!("run-{text}"),
        model: client,
        model_id: model.to_owned(),
        context_window: None,
        attachments: Default::default(),
        new_user_text: Some(text.to_owned()),
        profile: Arc::new(RunProfile::default()),
    };
    let outcome = Agent::new(store.clone())
        .run(input, Arc::new(NullSink), CancellationToken::new())
        .await;
    assert_eq!(outcome.status, RunStatus::Succeeded, "{:?}", outcome.error);
    store.close().await;
}

/// Two turns on a new thread, each with the store opened afresh; the
/// assistant message of the first turn as the second request sent it.
async fn replayed_turn(server: &MockProvider, client: Arc<dyn ModelClient>, model: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let thread = store.create_thread(NewThread::default()).await.unwrap().id;
    store.close().await;
    turn(dir.path(), &thread, Arc::clone(&client), model, "Hi").await;
    turn(dir.path(), &thread, client, model, "Still there?").await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    requests[1].json()["messages"][1].clone()
}

fn anthropic_thinking_then_text() -> MockResponse {
    let frames = [
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1",
            "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5",
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 20, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "thinking", "thinking": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "The user greets me."}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "signature_delta", "signature": SIGNATURE}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1,
            "delta": {"type": "text_delta", "text": "Hello!"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": null},
            "usage": {"output_tokens": 12}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    MockResponse::sse(
        frames
            .iter()
            .map(|(event, data)| sse::frame(Some(event), data)),
    )
}

fn transport() -> TransportConfig {
    TransportConfig {
        max_retries: 0,
        ..TransportConfig::default()
    }
}

#[tokio::test]
async fn anthropic_thinking_is_replayed_with_its_signature() {
    let server = MockProvider::start().await.unwrap();
    server.push(anthropic_thinking_then_text());
    server.push(sse::anthropic_text("Still here."));
    let client: Arc<dyn ModelClient> = Arc::new(
        AnthropicProvider::new(AnthropicConfig {
            api_key: "sk-ant-test".into(),
            base_url: server.url(),
            transport: transport(),
            ..AnthropicConfig::default()
        })
        .unwrap(),
    );
    assert_eq!(
        replayed_turn(&server, client, "claude-sonnet-4-5").await,
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "The user greets me.", "signature": SIGNATURE},
            {"type": "text", "text": "Hello!"}
        ]})
    );
}

fn bedrock_frame(kind: &str, payload: &Value) -> Bytes {
    let mut message = Message::new(Bytes::from(payload.to_string()));
    for (name, value) in [
        (":event-type", kind),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ] {
        message = message.add_header(Header::new(
            name,
            HeaderValue::String(value.to_owned().into()),
        ));
    }
    let mut out = Vec::new();
    aws_smithy_eventstream::frame::write_message_to(&message, &mut out).unwrap();
    out.into()
}

pub(crate) fn bedrock_turn(reasoning: Option<(&str, &str)>, text: &str) -> MockResponse {
    let mut frames = vec![bedrock_frame("messageStart", &json!({"role": "assistant"}))];
    let mut index = 0;
    if let Some((thought, signature)) = reasoning {
        frames.push(bedrock_frame(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": thought}}}),
        ));
        frames.push(bedrock_frame(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 0,
                "delta": {"reasoningContent": {"signature": signature}}}),
        ));
        frames.push(bedrock_frame(
            "contentBlockStop",
            &json!({"contentBlockIndex": 0}),
        ));
        index = 1;
    }
    frames.push(bedrock_frame(
        "contentBlockDelta",
        &json!({"contentBlockIndex": index, "delta": {"text": text}}),
    ));
    frames.push(bedrock_frame(
        "contentBlockStop",
        &json!({"contentBlockIndex": index}),
    ));
    frames.push(bedrock_frame(
        "messageStop",
        &json!({"stopReason": "end_turn"}),
    ));
    frames.push(bedrock_frame(
        "metadata",
        &json!({"usage": {"inputTokens": 20, "outputTokens": 5, "totalTokens": 25},
            "metrics": {"latencyMs": 10}}),
    ));
    MockResponse::aws_event_stream(frames)
}

#[tokio::test]
async fn bedrock_reasoning_is_replayed_with_its_signature() {
    const MODEL: &str = "anthropic.claude-sonnet-4-5-20250929-v1:0";
    const PATH: &str = "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream";
    let server = MockProvider::start().await.unwrap();
    server.push_for(
        PATH,
        bedrock_turn(Some(("Greeting back.", "sig-bedrock")), "Hello!"),
    );
    server.push_for(PATH, bedrock_turn(None, "Still here."));
    let client: Arc<dyn ModelClient> = Arc::new(
        BedrockProvider::new(BedrockConfig {
            auth: BedrockAuth::ApiKey("bedrock-api-key".into()),
            region: "us-west-2".into(),
            base_url: Some(server.url()),
            control_base_url: Some(format!("{}/control", server.url())),
            transport: transport(),
        })
        .unwrap(),
    );
    assert_eq!(
        replayed_turn(&server, client, MODEL).await,
        json!({"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText":
                {"text": "Greeting back.", "signature": "sig-bedrock"}}},
            {"text": "Hello!"}
        ]})
    );
}
