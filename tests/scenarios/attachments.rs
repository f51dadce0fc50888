//! Attachments at the model call, in each provider's real wire format: the
//! transcript keeps `attachment://<id>` references, and what each mock
//! server receives is the provider's own shape — base64 image parts,
//! document parts where the provider takes documents (a notice where it
//! does not), text files as text, a notice for a model without vision and
//! for a file that is gone.

use std::sync::Arc;

use pizza_agent::{Agent, CancellationToken, NullSink, OpenedTurn, RunInput, RunProfile};
use pizza_llm::{AttachmentSupport, ModelClient};
use pizza_protocol::RunStatus;
use pizza_providers::{
    AnthropicConfig, AnthropicProvider, BedrockAuth, BedrockConfig, BedrockProvider, GeminiConfig,
    GeminiProvider, OllamaConfig, OllamaProvider, OpenAiApi, OpenAiConfig, OpenAiProvider,
    Provider, TransportConfig,
};
use pizza_store::{
    AttachmentRef, NewAttachment, NewThread, RunSource, Store, TurnStart, TurnThread,
};
use pizza_test_support::mock_provider::{MockProvider, MockResponse, sse};
use serde_json::{Value, json};

use crate::reasoning_replay::bedrock_turn;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\nnot-really-an-image";
const PDF: &[u8] = b"%PDF-1.4 tiny";
const NOTES: &str = "# Plan\nship it";

fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Chat,
    Responses,
    Anthropic,
    Gemini,
    Ollama,
    Bedrock,
}

fn transport() -> TransportConfig {
    TransportConfig {
        max_retries: 0,
        ..TransportConfig::default()
    }
}

impl Format {
    fn provider(self, url: &str) -> Arc<dyn Provider> {
        match self {
            Self::Chat | Self::Responses => Arc::new(
                OpenAiProvider::new(OpenAiConfig {
                    api_key: Some("sk-test".into()),
                    base_url: format!("{url}/v1"),
                    api: if self == Self::Chat {
                        OpenAiApi::Chat
                    } else {
                        OpenAiApi::Responses
                    },
                    transport: transport(),
                    ..OpenAiConfig::default()
                })
                .unwrap(),
            ),
            Self::Anthropic => Arc::new(
                AnthropicProvider::new(AnthropicConfig {
                    api_key: "sk-ant-test".into(),
                    base_url: url.into(),
                    transport: transport(),
                    ..AnthropicConfig::default()
                })
                .unwrap(),
            ),
            Self::Gemini => Arc::new(
                GeminiProvider::new(GeminiConfig {
                    api_key: "g-test".into(),
                    base_url: format!("{url}/v1beta"),
                    transport: transport(),
                })
                .unwrap(),
            ),
            Self::Ollama => Arc::new(
                OllamaProvider::new(OllamaConfig {
                    base_url: url.into(),
                    transport: transport(),
                })
                .unwrap(),
            ),
            Self::Bedrock => Arc::new(
                BedrockProvider::new(BedrockConfig {
                    auth: BedrockAuth::ApiKey("br-test".into()),
                    region: "us-east-1".into(),
                    base_url: Some(url.into()),
                    control_base_url: Some(format!("{url}/control")),
                    transport: transport(),
                })
                .unwrap(),
            ),
        }
    }

    fn answer(self) -> MockResponse {
        match self {
            Self::Chat => sse::openai_chat_text("Seen."),
            Self::Anthropic => sse::anthropic_text("Seen."),
            Self::Responses => MockResponse::sse([
                sse::frame(
                    Some("response.output_text.delta"),
                    &json!({"type": "response.output_text.delta", "sequence_number": 1,
                        "item_id": "msg_1", "output_index": 0, "content_index": 0,
                        "delta": "Seen."}),
                ),
                sse::frame(
                    Some("response.completed"),
                    &json!({"type": "response.completed", "sequence_number": 2,
                        "response": {"id": "resp_1", "status": "completed", "output": [],
                        "usage": {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6}}}),
                ),
            ]),
            Self::Gemini => MockResponse::sse([sse::frame(
                None,
                &json!({"candidates": [{"content": {"parts": [{"text": "Seen."}],
                    "role": "model"}, "finishReason": "STOP", "index": 0}],
                    "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1,
                    "totalTokenCount": 6}}),
            )]),
            Self::Ollama => MockResponse::ndjson([
                json!({"model": "llava", "message": {"role": "assistant", "content": "Seen."},
                    "done": false}),
                json!({"model": "llava", "message": {"role": "assistant", "content": ""},
                    "done": true, "done_reason": "stop", "prompt_eval_count": 5,
                    "eval_count": 1}),
            ]),
            Self::Bedrock => bedrock_turn(None, "Seen."),
        }
    }

    /// The user message of the recorded request body.
    fn user_turn(self, body: &Value) -> Value {
        match self {
            Self::Chat | Self::Anthropic | Self::Bedrock | Self::Ollama => {
                last_of(&body["messages"])
            }
            Self::Responses => last_of(&body["input"]),
            Self::Gemini => last_of(&body["contents"]),
        }
    }
}

fn last_of(list: &Value) -> Value {
    list.as_array()
        .and_then(|l| l.last())
        .cloned()
        .unwrap_or(Value::Null)
}

/// One turn with a PNG, a PDF and a Markdown file on a fresh thread, sent
/// to `format`'s mock with `support`; answers the user turn as sent. With
/// `lose_image`, the image's file is deleted before the call.
async fn sent(format: Format, vision: bool, lose_image: bool) -> Value {
    let server = MockProvider::start().await.unwrap();
    if format == Format::Ollama {
        // Ollama is asked for the model's capabilities first.
        server.set_default(
            "/api/show",
            MockResponse::json(200, &json!({"capabilities": ["completion", "vision"]})),
        );
        server.push_for("/api/chat", format.answer());
    } else {
        server.push(format.answer());
    }
    let provider = format.provider(&server.url());
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let mut refs: Vec<AttachmentRef> = Vec::new();
    for (name, mime, bytes) in [
        ("dot.png", "image/png", PNG),
        ("spec.pdf", "application/pdf", PDF),
        ("notes.md", "text/markdown", NOTES.as_bytes()),
    ] {
        let stored = store
            .add_attachment(NewAttachment {
                thread_id: None,
                name,
                mime,
                bytes,
            })
            .await
            .unwrap();
        refs.push(stored.reference());
    }
    if lose_image {
        std::fs::remove_file(store.attachment_path(&refs[0].id).unwrap()).unwrap();
    }
    let opened = OpenedTurn::first("What is in these?", &refs).unwrap();
    let started = store
        .start_turn(TurnStart {
            thread: TurnThread::New(NewThread::default()),
            source: RunSource::User,
            step: opened.step,
            expected_head: opened.head,
            queued_id: None,
            answers_interrupt: false,
            occurrence: None,
            attachments: refs.iter().map(|r| r.id.clone()).collect(),
        })
        .await
        .unwrap();
    let client: Arc<dyn ModelClient> = provider.clone();
    let input = RunInput {
        thread_id: started.thread_id.clone(),
        run_id: started.run.id.clone(),
        model: client,
        model_id: "test-model".into(),
        context_window: None,
        attachments: AttachmentSupport {
            vision,
            limits: provider.attachment_limits(),
        },
        new_user_text: None,
        profile: Arc::new(RunProfile::default()),
    };
    let outcome = Agent::new(store.clone())
        .resume(input, Arc::new(NullSink), CancellationToken::new())
        .await;
    assert_eq!(
        outcome.status,
        RunStatus::Succeeded,
        "{format:?}: {:?}",
        outcome.error
    );
    let body = server.last_request().unwrap().json();
    store.close().await;
    format.user_turn(&body)
}

const TEXT_BLOCK: &str =
    "<attachment name=\"notes.md\" type=\"text/markdown\">\n# Plan\nship it\n</attachment>";
const NO_PDF: &str = "[document spec.pdf not shown: this model cannot read PDF documents]";

#[tokio::test]
async fn openai_chat_gets_an_image_url_part_text_and_a_document_notice() {
    let user = sent(Format::Chat, true, false).await;
    assert_eq!(
        user["content"],
        json!([
            {"type": "text", "text": "What is in these?"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", b64(PNG))}},
            {"type": "text", "text": NO_PDF},
            {"type": "text", "text": TEXT_BLOCK},
        ])
    );
}

#[tokio::test]
async fn openai_responses_gets_an_input_image_and_an_input_file() {
    let user = sent(Format::Responses, true, false).await;
    let content = user["content"].as_array().unwrap();
    assert_eq!(
        content[0],
        json!({"type": "input_text", "text": "What is in these?"})
    );
    assert_eq!(content[1]["type"], "input_image");
    assert_eq!(
        content[1]["image_url"],
        format!("data:image/png;base64,{}", b64(PNG))
    );
    assert_eq!(content[2]["type"], "input_file");
    assert_eq!(content[2]["filename"], "spec.pdf");
    assert_eq!(
        content[2]["file_data"],
        format!("data:application/pdf;base64,{}", b64(PDF))
    );
    assert_eq!(
        content[3],
        json!({"type": "input_text", "text": TEXT_BLOCK})
    );
}

#[tokio::test]
async fn anthropic_gets_base64_image_and_document_blocks() {
    let user = sent(Format::Anthropic, true, false).await;
    let content = user["content"].as_array().unwrap();
    assert_eq!(
        content[1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)}})
    );
    assert_eq!(content[2]["type"], "document");
    assert_eq!(
        content[2]["source"],
        json!({"type": "base64", "media_type": "application/pdf", "data": b64(PDF)})
    );
    assert_eq!(content[3], json!({"type": "text", "text": TEXT_BLOCK}));
}

#[tokio::test]
async fn gemini_gets_inline_data_parts() {
    let user = sent(Format::Gemini, true, false).await;
    let parts = user["parts"].as_array().unwrap();
    assert_eq!(
        parts[1],
        json!({"inlineData": {"mimeType": "image/png", "data": b64(PNG)}})
    );
    assert_eq!(
        parts[2],
        json!({"inlineData": {"mimeType": "application/pdf", "data": b64(PDF)}})
    );
    assert_eq!(parts[3], json!({"text": TEXT_BLOCK}));
}

#[tokio::test]
async fn bedrock_gets_image_and_document_blocks() {
    let user = sent(Format::Bedrock, true, false).await;
    let content = user["content"].as_array().unwrap();
    assert_eq!(
        content[1],
        json!({"image": {"format": "png", "source": {"bytes": b64(PNG)}}})
    );
    assert_eq!(content[2]["document"]["format"], "pdf");
    assert_eq!(content[2]["document"]["source"], json!({"bytes": b64(PDF)}));
    assert_eq!(content[3], json!({"text": TEXT_BLOCK}));
}

#[tokio::test]
async fn ollama_gets_images_beside_the_text() {
    let user = sent(Format::Ollama, true, false).await;
    assert_eq!(user["images"], json!([b64(PNG)]));
    let text = user["content"].as_str().unwrap();
    assert!(text.contains(NO_PDF), "{text}");
    assert!(text.contains(TEXT_BLOCK), "{text}");
}

#[tokio::test]
async fn a_model_without_vision_and_a_lost_file_get_notices() {
    let blind = sent(Format::Anthropic, false, false).await;
    assert_eq!(
        blind["content"][1],
        json!({"type": "text", "text": "[image dot.png not shown: this model has no vision]"})
    );
    let lost = sent(Format::Anthropic, true, true).await;
    assert_eq!(
        lost["content"][1],
        json!({"type": "text", "text": "[attachment dot.png unavailable]"})
    );
}
