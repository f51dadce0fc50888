use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use pizza_llm::{
    CancellationToken, ContentPart, Error, ModelClient, ModelRequest, ReasoningEffort, StopReason,
    StreamEvent,
};
use pizza_providers::*;

pub(crate) fn fast() -> TransportConfig {
    TransportConfig {
        connect_timeout: Duration::from_secs(2),
        response_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_millis(300),
        max_retries: 3,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
        max_retry_after: Duration::from_secs(5),
    }
}

/// Every wire format, built against the mock server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Chat,
    Responses,
    Anthropic,
    Gemini,
    Ollama,
}

pub(crate) const ALL: [Format; 5] = [
    Format::Chat,
    Format::Responses,
    Format::Anthropic,
    Format::Gemini,
    Format::Ollama,
];

impl Format {
    pub(crate) fn provider(self, url: &str) -> Arc<dyn Provider> {
        match self {
            Format::Chat | Format::Responses => Arc::new(
                OpenAiProvider::new(OpenAiConfig {
                    api_key: Some("sk-test".into()),
                    base_url: format!("{url}/v1"),
                    api: if self == Format::Chat {
                        OpenAiApi::Chat
                    } else {
                        OpenAiApi::Responses
                    },
                    transport: fast(),
                    ..OpenAiConfig::default()
                })
                .unwrap(),
            ),
            Format::Anthropic => Arc::new(
                AnthropicProvider::new(AnthropicConfig {
                    api_key: "sk-ant-test".into(),
                    base_url: url.into(),
                    transport: fast(),
                    ..AnthropicConfig::default()
                })
                .unwrap(),
            ),
            Format::Gemini => Arc::new(
                GeminiProvider::new(GeminiConfig {
                    api_key: "g-test".into(),
                    base_url: format!("{url}/v1beta"),
                    transport: fast(),
                })
                .unwrap(),
            ),
            Format::Ollama => Arc::new(
                OllamaProvider::new(OllamaConfig {
                    base_url: url.into(),
                    transport: fast(),
                })
                .unwrap(),
            ),
        }
    }

    pub(crate) fn path(self) -> &'static str {
        match self {
            Format::Chat => "/v1/chat/completions",
            Format::Responses => "/v1/responses",
            Format::Anthropic => "/v1/messages",
            Format::Gemini => "/v1beta/models/test-model:streamGenerateContent",
            Format::Ollama => "/api/chat",
        }
    }

    /// A complete text answer in this format, one chunk per frame.
    pub(crate) fn text_fixture(self) -> Vec<String> {
        use super::fixtures::*;
        let raw = match self {
            Format::Chat => CHAT_TEXT,
            Format::Responses => RESPONSES_TEXT,
            Format::Anthropic => ANTHROPIC_TEXT,
            Format::Gemini => GEMINI_TEXT,
            Format::Ollama => OLLAMA_TEXT,
        };
        split_frames(raw, self == Format::Ollama)
    }

    pub(crate) fn content_type(self) -> &'static str {
        if self == Format::Ollama {
            "application/x-ndjson"
        } else {
            "text/event-stream"
        }
    }
}

/// Splits a recorded body into frames (SSE: blank-line separated; NDJSON: lines).
pub(crate) fn split_frames(raw: &str, ndjson: bool) -> Vec<String> {
    if ndjson {
        raw.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| format!("{l}\n"))
            .collect()
    } else {
        raw.split("\n\n")
            .filter(|f| !f.trim().is_empty())
            .map(|f| format!("{}\n\n", f.trim_matches('\n')))
            .collect()
    }
}

pub(crate) fn streamed(
    format: Format,
    frames: &[String],
) -> pizza_test_support::mock_provider::MockResponse {
    let mut response = pizza_test_support::mock_provider::MockResponse::new(200)
        .header("content-type", format.content_type());
    for frame in frames {
        response = response.chunk(frame.clone());
    }
    response
}

pub(crate) fn request(model: &str) -> ModelRequest {
    ModelRequest::new(model, vec![pizza_llm::Message::user("Hello")])
}

/// Runs one call to the end: the events, then the error that ended it (if any).
pub(crate) async fn run(
    client: &dyn ModelClient,
    request: ModelRequest,
) -> (Vec<StreamEvent>, Option<Error>) {
    run_with(client, request, CancellationToken::new()).await
}

pub(crate) async fn run_with(
    client: &dyn ModelClient,
    request: ModelRequest,
    cancel: CancellationToken,
) -> (Vec<StreamEvent>, Option<Error>) {
    let mut stream = match client.stream(request, cancel).await {
        Ok(stream) => stream,
        Err(error) => return (Vec::new(), Some(error)),
    };
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => events.push(event),
            Err(error) => return (events, Some(error)),
        }
    }
    (events, None)
}

/// Serves `raw` (a recorded body) once and runs `request` against it.
pub(crate) async fn replay(
    format: Format,
    raw: &str,
    request: ModelRequest,
) -> (Vec<StreamEvent>, Option<Error>, serde_json::Value) {
    let server = pizza_test_support::mock_provider::MockProvider::start()
        .await
        .unwrap();
    server.set_default(
        "/api/show",
        pizza_test_support::mock_provider::MockResponse::json(
            200,
            &serde_json::json!({"capabilities": ["completion", "tools", "vision"],
                "model_info": {"llama.context_length": 131072}}),
        ),
    );
    server.push_for(
        format.path(),
        streamed(format, &split_frames(raw, format == Format::Ollama)),
    );
    let provider = format.provider(&server.url());
    let (events, error) = run(provider.as_ref(), request).await;
    let sent = server
        .requests()
        .into_iter()
        .find(|r| r.path == format.path())
        .map(|r| r.json())
        .unwrap_or_default();
    (events, error, sent)
}

/// A second turn with everything a replay must carry: tools, an image, tool
/// calls with reasoning before them, and tool results (one an error).
pub(crate) fn rich_request(model: &str, reasoning: pizza_llm::ContentPart) -> ModelRequest {
    use pizza_llm::{ContentPart, Message, Role, ToolCall, ToolSpec};
    use serde_json::json;
    ModelRequest {
        model: model.into(),
        system: Some("You are terse.".into()),
        messages: vec![
            Message::new(
                Role::User,
                vec![
                    ContentPart::text("Weather in Paris? See photo."),
                    ContentPart::image_base64("image/png", "iVBORw0KGgo="),
                ],
            ),
            Message::new(
                Role::Assistant,
                vec![
                    reasoning,
                    ContentPart::ToolCall(ToolCall {
                        id: "call_a".into(),
                        name: "get_weather".into(),
                        arguments: json!({"location": "Paris"}),
                    }),
                ],
            ),
            Message::new(
                Role::Tool,
                vec![ContentPart::ToolResult {
                    call_id: "call_a".into(),
                    content: vec![ContentPart::text("18°C, sunny")],
                    is_error: false,
                }],
            ),
        ],
        tools: vec![ToolSpec {
            name: "get_weather".into(),
            description: "Current weather".into(),
            input_schema: json!({"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}),
        }],
        tool_choice: Some(pizza_llm::ToolChoice::Auto),
        max_output_tokens: Some(1024),
        reasoning_effort: None,
    }
}

/// A reasoning part as an earlier turn handed it back, for replay.
pub(crate) fn reasoning(
    text: &str,
    signature: Option<&str>,
    encrypted: Option<&str>,
) -> ContentPart {
    ContentPart::Reasoning {
        text: text.into(),
        signature: signature.map(Into::into),
        encrypted: encrypted.map(Into::into),
    }
}

/// Replays `raw` as the answer to the rich second turn and checks that it
/// ended cleanly: the events, then the body that was sent.
pub(crate) async fn replay_rich(
    format: Format,
    raw: &str,
    model: &str,
    reasoning: ContentPart,
    effort: Option<ReasoningEffort>,
) -> (Vec<StreamEvent>, serde_json::Value) {
    let mut request = rich_request(model, reasoning);
    request.reasoning_effort = effort;
    let (events, error, sent) = replay(format, raw, request).await;
    assert!(error.is_none(), "{error:?}");
    (events, sent)
}

/// Checks that a stream ended because the output budget ran out.
pub(crate) fn assert_stopped_at_max_tokens(events: &[StreamEvent]) {
    pretty_assertions::assert_eq!(
        events.last(),
        Some(&StreamEvent::Stop {
            reason: StopReason::MaxTokens
        })
    );
}

/// Replays `raw` and checks that it ended, without an error, at the output budget.
pub(crate) async fn assert_replay_stops_at_max_tokens(format: Format, raw: &str, model: &str) {
    let (events, error, _) = replay(format, raw, request(model)).await;
    assert!(error.is_none());
    assert_stopped_at_max_tokens(&events);
}

/// A token that cancels itself shortly after the stream has begun, so a test
/// can check that a hung stream stops at once.
pub(crate) fn cancel_soon() -> CancellationToken {
    let cancel = CancellationToken::new();
    let canceller = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        canceller.cancel();
    });
    cancel
}
