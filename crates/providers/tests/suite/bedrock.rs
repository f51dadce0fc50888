//! Bedrock ConverseStream against the mock server: binary event-stream
//! bodies encoded with the same `aws-smithy-eventstream` codec the provider
//! decodes with.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use aws_smithy_types::event_stream::{Header, HeaderValue, Message};
use bytes::Bytes;
use pizza_llm::{ContentPart, DocumentSource, ReasoningEffort, StopReason, StreamEvent};
use pizza_providers::*;
use pizza_test_support::mock_provider::{MockProvider, MockResponse};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::common::{
    assert_stopped_at_max_tokens, cancel_soon, fast, reasoning, request, rich_request, run,
    run_with,
};
use super::fixtures::*;

const MODEL: &str = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const PATH: &str = "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream";

fn frame(headers: &[(&'static str, &str)], payload: &[u8]) -> Bytes {
    let mut message = Message::new(Bytes::copy_from_slice(payload));
    for (name, value) in headers {
        message = message.add_header(Header::new(
            *name,
            HeaderValue::String(value.to_string().into()),
        ));
    }
    let mut out = Vec::new();
    aws_smithy_eventstream::frame::write_message_to(&message, &mut out).unwrap();
    out.into()
}

fn event(kind: &str, payload: &str) -> Bytes {
    frame(
        &[
            (":event-type", kind),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload.as_bytes(),
    )
}

fn exception(kind: &str, message: &str) -> Bytes {
    frame(
        &[
            (":exception-type", kind),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        json!({"message": message}).to_string().as_bytes(),
    )
}

/// A fixture (`eventType {json}` per line) as binary frames.
fn frames(fixture: &str) -> Vec<Bytes> {
    fixture
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (kind, payload) = line.split_once(' ').unwrap();
            event(kind, payload)
        })
        .collect()
}

fn config(url: &str, auth: BedrockAuth) -> BedrockConfig {
    BedrockConfig {
        auth,
        region: "us-west-2".into(),
        base_url: Some(url.into()),
        control_base_url: Some(format!("{url}/control")),
        transport: fast(),
    }
}

fn provider(url: &str) -> BedrockProvider {
    BedrockProvider::new(config(url, BedrockAuth::ApiKey("bedrock-api-key".into()))).unwrap()
}

/// Serves `fixture` once and runs `request` against it.
async fn replay(
    fixture: &str,
    request: pizza_llm::ModelRequest,
) -> (Vec<StreamEvent>, Option<pizza_llm::Error>, MockProvider) {
    let server = MockProvider::start().await.unwrap();
    server.push_for(PATH, MockResponse::aws_event_stream(frames(fixture)));
    let (events, error) = run(&provider(&server.url()), request).await;
    (events, error, server)
}

#[tokio::test]
async fn text_stream_with_usage_and_bearer_key() {
    let (events, error, server) = replay(BEDROCK_TEXT, request(MODEL)).await;
    assert!(error.is_none(), "{error:?}");
    insta::assert_json_snapshot!("bedrock_text", events);
    let sent = server.last_request().unwrap();
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, PATH);
    assert_eq!(sent.header("authorization"), Some("Bearer bedrock-api-key"));
    assert_eq!(
        sent.header("accept"),
        Some("application/vnd.amazon.eventstream")
    );
    assert_eq!(
        sent.json(),
        json!({"messages": [{"role": "user", "content": [{"text": "Hello"}]}]})
    );
}

#[tokio::test]
async fn reasoning_and_parallel_tools_with_replayed_history() {
    let mut request = rich_request(
        MODEL,
        reasoning("Earlier thought", Some("sig-earlier"), None),
    );
    request.reasoning_effort = Some(ReasoningEffort::Low);
    request.messages[0].content.push(ContentPart::Document {
        source: DocumentSource::Base64 {
            media_type: "application/pdf".into(),
            data: "JVBERi0=".into(),
        },
        name: Some("report_2024.pdf".into()),
    });
    request.messages[1].content.insert(
        0,
        ContentPart::Reasoning {
            text: String::new(),
            signature: None,
            encrypted: Some("cmVkYWN0ZWQ=".into()),
        },
    );
    request.messages.push(pizza_llm::Message::tool_result(
        "call_b",
        "no such city",
        true,
    ));
    let (events, error, server) = replay(BEDROCK_THINKING_TOOLS, request).await;
    assert!(error.is_none(), "{error:?}");
    insta::assert_json_snapshot!("bedrock_thinking_tools", events);
    insta::assert_json_snapshot!(
        "bedrock_rich_request",
        server.last_request().unwrap().json()
    );

    // The folded message keeps the signature with its reasoning, for replay.
    let mut collector = pizza_llm::StreamCollector::new();
    events.into_iter().for_each(|e| collector.push(e));
    let done = collector.finish().unwrap();
    assert_eq!(
        done.message.content[0],
        ContentPart::Reasoning {
            text: "I need the weather in two cities.".into(),
            signature: Some("EqoBCkgIARABGAIiQL2Zsig".into()),
            encrypted: None,
        }
    );
    assert_eq!(done.message.tool_calls().count(), 2);
}

#[tokio::test]
async fn max_tokens_stop() {
    let (events, error, _) = replay(BEDROCK_MAX_TOKENS, request(MODEL)).await;
    assert!(error.is_none(), "{error:?}");
    assert_stopped_at_max_tokens(&events);
}

#[tokio::test]
async fn exception_events_mid_stream_are_classified() {
    let cases = [
        (
            "throttlingException",
            "Too many requests, please wait before trying again.",
            "RATE_LIMIT",
        ),
        (
            "validationException",
            "Input is too long for requested model.",
            "CONTEXT_LENGTH",
        ),
        (
            "validationException",
            "The request has too many tokens.",
            "CONTEXT_LENGTH",
        ),
        (
            "modelStreamErrorException",
            "The model failed to continue.",
            "STREAM_ERROR",
        ),
        (
            "serviceUnavailableException",
            "Bedrock is unable to process your request.",
            "STREAM_ERROR",
        ),
        (
            "accessDeniedException",
            "You don't have access to the model.",
            "AUTH_EXPIRED",
        ),
    ];
    for (kind, message, code) in cases {
        let server = MockProvider::start().await.unwrap();
        let mut body = frames(BEDROCK_TEXT);
        body.truncate(2);
        body.push(exception(kind, message));
        server.push_for(PATH, MockResponse::aws_event_stream(body));
        let (events, error) = run(&provider(&server.url()), request(MODEL)).await;
        let error = error.unwrap();
        assert_eq!(error.code(), code, "{kind}: {error:?}");
        assert!(
            error.provider_message().unwrap().contains(message),
            "{kind}"
        );
        assert_eq!(
            events,
            vec![StreamEvent::TextDelta {
                text: "Hello".into()
            }]
        );
    }
}

#[tokio::test]
async fn truncated_stream_is_a_stream_error() {
    let full = frames(BEDROCK_TEXT);
    // Closed after half the frames; cut mid-body; closed mid-frame.
    let half = MockResponse::aws_event_stream(full[..3].to_vec());
    let cut = MockResponse::aws_event_stream(full[..3].to_vec()).cut();
    let mut partial = full[..3].to_vec();
    partial.push(full[3].slice(..full[3].len() / 2));
    let mid_frame = MockResponse::aws_event_stream(partial);
    for (name, response) in [("half", half), ("cut", cut), ("mid-frame", mid_frame)] {
        let server = MockProvider::start().await.unwrap();
        server.push_for(PATH, response);
        let (events, error) = run(&provider(&server.url()), request(MODEL)).await;
        let error = error.unwrap_or_else(|| panic!("{name}: no error after {events:?}"));
        assert_eq!(error.code(), "STREAM_ERROR", "{name}: {error:?}");
        assert!(!events.iter().any(|e| matches!(e, StreamEvent::Stop { .. })));
    }
}

#[tokio::test]
async fn message_stop_without_metadata_still_completes() {
    let server = MockProvider::start().await.unwrap();
    let mut body = frames(BEDROCK_TEXT);
    body.pop();
    server.push_for(PATH, MockResponse::aws_event_stream(body));
    let (events, error) = run(&provider(&server.url()), request(MODEL)).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Stop {
            reason: StopReason::EndTurn
        })
    );
}

#[tokio::test]
async fn http_errors_are_classified() {
    let server = MockProvider::start().await.unwrap();
    let aws_error = |status, kind: &str, message: &str| {
        MockResponse::json(status, &json!({"message": message})).header(
            "x-amzn-errortype",
            &format!("{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
        )
    };
    server.push_for(
        PATH,
        aws_error(403, "AccessDeniedException", "Invalid API Key format"),
    );
    server.push_for(
        PATH,
        aws_error(
            400,
            "ValidationException",
            "Input is too long for requested model.",
        ),
    );
    server.push_for(
        PATH,
        aws_error(
            404,
            "ResourceNotFoundException",
            "The requested resource could not be found.",
        ),
    );
    server.push_for(
        PATH,
        aws_error(
            400,
            "ValidationException",
            "The provided model identifier is invalid.",
        ),
    );
    let provider = provider(&server.url());
    let mut codes = Vec::new();
    for _ in 0..4 {
        let (events, error) = run(&provider, request(MODEL)).await;
        assert!(events.is_empty());
        codes.push(error.unwrap().code());
    }
    assert_eq!(
        codes,
        [
            "AUTH_EXPIRED",
            "CONTEXT_LENGTH",
            "MODEL_UNAVAILABLE",
            "MODEL_UNAVAILABLE"
        ]
    );
    assert_eq!(server.requests().len(), 4, "none of these is retried");
}

#[tokio::test]
async fn throttled_with_retry_after_then_success() {
    let server = MockProvider::start().await.unwrap();
    server.push_for(
        PATH,
        MockResponse::json(
            429,
            &json!({"message": "Too many requests, please wait before trying again."}),
        )
        .header("x-amzn-errortype", "ThrottlingException")
        .header("retry-after", "1"),
    );
    server.push_for(PATH, MockResponse::aws_event_stream(frames(BEDROCK_TEXT)));
    let started = Instant::now();
    let (events, error) = run(&provider(&server.url()), request(MODEL)).await;
    assert!(error.is_none(), "{error:?}");
    assert!(matches!(events.last(), Some(StreamEvent::Stop { .. })));
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn two_server_errors_then_success() {
    let server = MockProvider::start().await.unwrap();
    server.push_for(
        PATH,
        MockResponse::json(500, &json!({"message": "internal"}))
            .header("x-amzn-errortype", "InternalServerException"),
    );
    server.push_for(PATH, MockResponse::text(503, "unavailable"));
    server.push_for(PATH, MockResponse::aws_event_stream(frames(BEDROCK_TEXT)));
    let (events, error) = run(&provider(&server.url()), request(MODEL)).await;
    assert!(error.is_none(), "{error:?}");
    assert!(matches!(events.last(), Some(StreamEvent::Stop { .. })));
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn hung_stream_times_out() {
    let server = MockProvider::start().await.unwrap();
    server.push_for(
        PATH,
        MockResponse::aws_event_stream(frames(BEDROCK_TEXT)[..2].to_vec()).hang(),
    );
    let (events, error) = run(&provider(&server.url()), request(MODEL)).await;
    assert_eq!(error.unwrap().code(), "TIMEOUT");
    assert_eq!(
        events,
        vec![StreamEvent::TextDelta {
            text: "Hello".into()
        }]
    );
}

#[tokio::test]
async fn cancel_mid_stream_stops_at_once() {
    let server = MockProvider::start().await.unwrap();
    server.push_for(
        PATH,
        MockResponse::aws_event_stream(frames(BEDROCK_TEXT)[..2].to_vec())
            .delay(Duration::from_secs(30)),
    );
    let started = Instant::now();
    let (_, error) = run_with(&provider(&server.url()), request(MODEL), cancel_soon()).await;
    assert_eq!(error.unwrap().code(), "CANCELLED");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn access_keys_sign_with_sigv4() {
    let server = MockProvider::start().await.unwrap();
    server.push_for(PATH, MockResponse::aws_event_stream(frames(BEDROCK_TEXT)));
    let keys = AccessKeys {
        access_key_id: "AKIDEXAMPLE".into(),
        secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
        session_token: Some("FwoGZXIvYXdzEXAMPLE".into()),
    };
    let provider =
        BedrockProvider::new(config(&server.url(), BedrockAuth::AccessKeys(keys))).unwrap();
    let (_, error) = run(&provider, request(MODEL)).await;
    assert!(error.is_none(), "{error:?}");
    let sent = server.last_request().unwrap();
    let date = sent.header("x-amz-date").unwrap();
    assert_eq!(date.len(), 16, "{date}");
    assert!(date.ends_with('Z') && date.as_bytes()[8] == b'T', "{date}");
    assert_eq!(
        sent.header("x-amz-security-token"),
        Some("FwoGZXIvYXdzEXAMPLE")
    );
    let authorization = sent.header("authorization").unwrap();
    let prefix = format!(
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/{}/us-west-2/bedrock/aws4_request, \
         SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=",
        &date[..8]
    );
    assert!(authorization.starts_with(&prefix), "{authorization}");
    let signature = &authorization[prefix.len()..];
    assert_eq!(signature.len(), 64);
    assert!(signature.chars().all(|c| c.is_ascii_hexdigit()));
}

fn foundation_models() -> serde_json::Value {
    let model =
        |id: &str, name: &str, input: &[&str], output: &[&str], streaming: bool, status: &str| {
            json!({"modelArn": format!("arn:aws:bedrock:us-west-2::foundation-model/{id}"),
            "modelId": id, "modelName": name, "providerName": "X",
            "inputModalities": input, "outputModalities": output,
            "responseStreamingSupported": streaming,
            "inferenceTypesSupported": ["ON_DEMAND"],
            "modelLifecycle": {"status": status}})
        };
    json!({"modelSummaries": [
        model("anthropic.claude-sonnet-4-5-20250929-v1:0", "Claude Sonnet 4.5", &["TEXT", "IMAGE"], &["TEXT"], true, "ACTIVE"),
        model("amazon.titan-embed-text-v2:0", "Titan Text Embeddings V2", &["TEXT"], &["EMBEDDING"], false, "ACTIVE"),
        model("amazon.nova-canvas-v1:0", "Nova Canvas", &["TEXT", "IMAGE"], &["IMAGE"], false, "ACTIVE"),
        model("meta.llama3-8b-instruct-v1:0", "Llama 3 8B Instruct", &["TEXT"], &["TEXT"], true, "ACTIVE"),
        model("cohere.command-text-v14", "Command", &["TEXT"], &["TEXT"], true, "LEGACY"),
    ]})
}

#[tokio::test]
async fn list_models_keeps_streaming_text_models_and_degrades() {
    let server = MockProvider::start().await.unwrap();
    server.push_for(
        "/control/foundation-models",
        MockResponse::json(200, &foundation_models()),
    );
    server.push_for(
        "/control/foundation-models",
        MockResponse::json(403, &json!({"message": "not authorized"}))
            .header("x-amzn-errortype", "AccessDeniedException"),
    );
    let catalog = ModelCatalog::new(Duration::ZERO);
    catalog.register(std::sync::Arc::new(provider(&server.url())));
    let listing = catalog.list("bedrock").await.unwrap();
    assert_eq!(listing.status, CatalogStatus::Ready);
    let ids: Vec<_> = listing.models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "anthropic.claude-sonnet-4-5-20250929-v1:0",
            "meta.llama3-8b-instruct-v1:0"
        ]
    );
    assert!(listing.models[0].supports_vision);
    let sent = server.last_request().unwrap();
    assert_eq!(sent.method, "GET");
    assert_eq!(sent.query.as_deref(), Some("byOutputModality=TEXT"));
    assert_eq!(sent.header("authorization"), Some("Bearer bedrock-api-key"));

    let degraded = catalog.list("bedrock").await.unwrap();
    assert_eq!(
        degraded.status,
        CatalogStatus::Degraded {
            code: "AUTH_EXPIRED",
            retryable: false
        }
    );
    assert_eq!(degraded.models.len(), 2, "the last good list is kept");
}

#[test]
fn descriptor_fields_and_validation() {
    let descriptor = provider_descriptors()
        .into_iter()
        .find(|d| d.id == "bedrock")
        .unwrap();
    let keys: Vec<_> = descriptor
        .fields
        .iter()
        .map(|f| (f.key, f.required, f.secret))
        .collect();
    assert_eq!(
        keys,
        [
            ("region", false, false),
            ("api_key", false, true),
            ("access_key_id", false, false),
            ("secret_access_key", false, true),
            ("session_token", false, true),
            ("profile", false, false),
            ("base_url", false, false),
        ]
    );
    let fields = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    };
    let invalid = [
        fields(&[]),
        fields(&[("api_key", "  ")]),
        fields(&[("access_key_id", "AKID")]),
        fields(&[("secret_access_key", "s")]),
        fields(&[
            ("api_key", "k"),
            ("access_key_id", "AKID"),
            ("secret_access_key", "s"),
        ]),
        fields(&[("api_key", "k"), ("region", "us-east-1.evil.example")]),
        fields(&[("api_key", "k"), ("base_url", "not a url")]),
        fields(&[("api_key", "k"), ("base_url", "ftp://x")]),
        fields(&[("api_key", "k"), ("profile", "default")]),
    ];
    for values in invalid {
        let error = build_provider("bedrock", &values, fast()).unwrap_err();
        assert_eq!(error.code(), "INVALID_INPUT", "{values:?}");
    }
    assert!(build_provider("bedrock", &fields(&[("api_key", "k")]), fast()).is_ok());
    assert!(
        build_provider(
            "bedrock",
            &fields(&[
                ("region", "eu-central-1"),
                ("access_key_id", "AKID"),
                ("secret_access_key", "s"),
                ("base_url", "https://vpce.example.com"),
            ]),
            fast()
        )
        .is_ok()
    );
}
