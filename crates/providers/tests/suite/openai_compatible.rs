//! OpenRouter and the person's own compatible servers: both speak Chat
//! Completions, each under its own id with its own listing.

use std::collections::BTreeMap;
use std::time::Duration;

use pizza_llm::StreamEvent;
use pizza_providers::*;
use pizza_test_support::mock_provider::{MockProvider, MockResponse, sse};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::common::{fast, request, run};

fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).into(), (*v).into()))
        .collect()
}

fn text_of(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// OpenRouter's `/models` shape: prices as decimal strings per token.
fn openrouter_models() -> MockResponse {
    MockResponse::json(
        200,
        &json!({"data": [
            {"id": "anthropic/claude-sonnet-4.5", "name": "Anthropic: Claude Sonnet 4.5",
             "context_length": 1_000_000,
             "pricing": {"prompt": "0.000003", "completion": "0.000015", "request": "0"},
             "architecture": {"input_modalities": ["text", "image"]}},
            {"id": "meta-llama/llama-3.3-8b-instruct:free", "name": "Llama 3.3 8B (free)",
             "context_length": 128_000, "pricing": {"prompt": "0", "completion": "0"}},
            {"id": "openrouter/auto", "name": "Auto Router", "context_length": 2_000_000,
             "pricing": {"prompt": "-1", "completion": "-1"}}
        ]}),
    )
}

#[tokio::test]
async fn openrouter_lists_prices_and_sends_its_attribution_headers() {
    let server = MockProvider::start().await.unwrap();
    server.set_default("/api/v1/models", openrouter_models());
    server.set_default("/api/v1/chat/completions", sse::openai_chat_text("Ciao."));
    let base_url = format!("{}/api/v1", server.url());
    let provider = build_provider(
        "openrouter",
        &fields(&[("api_key", "sk-or-test"), ("base_url", &base_url)]),
        fast(),
    )
    .unwrap();
    assert_eq!(provider.provider_id(), "openrouter");

    let catalog = ModelCatalog::new(Duration::from_secs(30));
    catalog.register(provider.clone());
    let listing = catalog.list("openrouter").await.unwrap();
    assert_eq!(listing.status, CatalogStatus::Ready);
    let sonnet = &listing.models[0];
    assert_eq!(sonnet.name, "Anthropic: Claude Sonnet 4.5");
    assert_eq!(sonnet.context_window, Some(1_000_000));
    assert_eq!(
        listing.facts["anthropic/claude-sonnet-4.5"],
        ModelFacts {
            context_source: Some(ContextSource::Provider),
            default_context_window: Some(1_000_000),
            price: Some(ModelPrice {
                input_micros_per_mtok: 3_000_000,
                output_micros_per_mtok: 15_000_000,
            }),
        }
    );
    assert_eq!(
        listing.facts["meta-llama/llama-3.3-8b-instruct:free"].price,
        Some(ModelPrice {
            input_micros_per_mtok: 0,
            output_micros_per_mtok: 0,
        })
    );
    assert_eq!(
        listing.facts["openrouter/auto"].price, None,
        "-1 is no price"
    );
    let listed = server.last_request().unwrap();
    assert_eq!(listed.header("authorization"), Some("Bearer sk-or-test"));
    assert_eq!(listed.header("x-title"), Some("Pizza Bot"));
    assert!(listed.header("http-referer").is_some());

    // The override wins and says so; the provider's value is kept beside it.
    catalog.set_context_override("openrouter:anthropic/claude-sonnet-4.5", Some(200_000));
    let listing = catalog.list("openrouter").await.unwrap();
    assert_eq!(listing.models[0].context_window, Some(200_000));
    let facts = listing.facts["anthropic/claude-sonnet-4.5"];
    assert_eq!(facts.context_source, Some(ContextSource::Override));
    assert_eq!(facts.default_context_window, Some(1_000_000));

    let (events, error) = run(provider.as_ref(), request("anthropic/claude-sonnet-4.5")).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(text_of(&events), "Ciao.");
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/api/v1/chat/completions");
    assert_eq!(sent.header("x-title"), Some("Pizza Bot"));
    assert_eq!(sent.json()["model"], "anthropic/claude-sonnet-4.5");
}

#[tokio::test]
async fn compatible_servers_are_providers_of_their_own() {
    let lm_studio = MockProvider::start().await.unwrap();
    lm_studio.set_default(
        "/v1/models",
        MockResponse::json(
            200,
            &json!({"object": "list", "data": [{"id": "qwen2.5-7b-instruct", "object": "model"}]}),
        ),
    );
    lm_studio.set_default(
        "/v1/chat/completions",
        sse::openai_chat_text("From LM Studio."),
    );
    let gateway = MockProvider::start().await.unwrap();
    gateway.set_default(
        "/v1/models",
        MockResponse::json(200, &json!({"data": [{"id": "gpt-4o"}]})),
    );

    let id = compatible_id("LM Studio").unwrap();
    assert_eq!(id, "compatible:lm-studio");
    let local = build_provider(
        &id,
        &fields(&[
            ("name", "LM Studio"),
            ("base_url", &format!("{}/v1", lm_studio.url())),
        ]),
        fast(),
    )
    .unwrap();
    let corp = build_provider(
        "compatible:corp-gateway",
        &fields(&[
            ("name", "Corp gateway"),
            ("base_url", &format!("{}/v1", gateway.url())),
            ("api_key", "corp-key"),
        ]),
        fast(),
    )
    .unwrap();
    let catalog = ModelCatalog::default();
    catalog.register(local.clone());
    catalog.register(corp);
    assert_eq!(
        catalog.provider_ids(),
        ["compatible:corp-gateway", "compatible:lm-studio"]
    );
    let models = |listing: CatalogListing| -> Vec<String> {
        listing.models.into_iter().map(|m| m.id).collect()
    };
    assert_eq!(
        models(catalog.list("compatible:lm-studio").await.unwrap()),
        ["qwen2.5-7b-instruct"]
    );
    assert_eq!(
        models(catalog.list("compatible:corp-gateway").await.unwrap()),
        ["gpt-4o"]
    );
    assert_eq!(
        lm_studio.last_request().unwrap().header("authorization"),
        None
    );
    assert_eq!(
        gateway.last_request().unwrap().header("authorization"),
        Some("Bearer corp-key")
    );

    // `provider:model` resolves through the full id, colon and all.
    let (client, model) = catalog
        .resolve("compatible:lm-studio:qwen2.5-7b-instruct")
        .unwrap();
    assert_eq!(model, "qwen2.5-7b-instruct");
    assert_eq!(
        split_key("compatible:vllm:qwen3:8b").unwrap(),
        ("compatible:vllm", "qwen3:8b")
    );
    assert_eq!(
        split_key("ollama:qwen3:8b").unwrap(),
        ("ollama", "qwen3:8b")
    );
    assert!(split_key("compatible:vllm").is_err());
    drop(client);

    let (events, error) = run(local.as_ref(), request("qwen2.5-7b-instruct")).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(text_of(&events), "From LM Studio.");

    catalog.unregister("compatible:lm-studio");
    assert_eq!(catalog.provider_ids(), ["compatible:corp-gateway"]);
}

#[test]
fn compatible_ids_and_fields_are_validated() {
    assert_eq!(
        compatible_id("  vLLM @ GPU box #2 ").as_deref(),
        Some("compatible:vllm-gpu-box-2")
    );
    assert_eq!(compatible_id("!!!"), None);
    let ok = fields(&[("name", "x"), ("base_url", "http://127.0.0.1:8080/v1")]);
    for bad_id in [
        "compatible:",
        "compatible:Upper",
        "compatible:-x",
        "compatible:a b",
    ] {
        let error = build_provider(bad_id, &ok, fast()).unwrap_err();
        assert_eq!(error.code(), "INVALID_INPUT", "{bad_id}");
    }
    for bad in [
        fields(&[("name", "x")]),
        fields(&[("base_url", "http://127.0.0.1:8080/v1")]),
        fields(&[("name", "x"), ("base_url", "127.0.0.1:8080")]),
    ] {
        let error = build_provider("compatible:x", &bad, fast()).unwrap_err();
        assert_eq!(error.code(), "INVALID_INPUT", "{bad:?}");
    }
    let descriptor = provider_descriptor("compatible:x").unwrap();
    let keys: Vec<_> = descriptor.fields.iter().map(|f| f.key).collect();
    assert_eq!(keys, ["name", "base_url", "api_key"]);
    assert!(provider_descriptor("openrouter").is_some());
    assert!(provider_descriptor("nobody").is_none());
}

#[tokio::test]
async fn local_servers_are_probed_in_their_own_wire_format() {
    let timeout = Duration::from_millis(300);
    let ollama = MockProvider::start().await.unwrap();
    ollama.set_default(
        "/api/tags",
        MockResponse::json(
            200,
            &json!({"models": [{"name": "llama3.2:latest", "model": "llama3.2:latest", "size": 2_019_393_189}]}),
        ),
    );
    let found = probe_local(&ollama.url(), LocalListing::OllamaTags, timeout)
        .await
        .unwrap();
    assert_eq!(found, ["llama3.2:latest"]);
    assert_eq!(ollama.last_request().unwrap().method, "GET");

    let llama_cpp = MockProvider::start().await.unwrap();
    llama_cpp.set_default(
        "/v1/models",
        MockResponse::json(200, &json!({"object": "list", "data": [{"id": "smollm2-135m.gguf", "object": "model", "owned_by": "llamacpp"}]})),
    );
    let base = format!("{}/v1", llama_cpp.url());
    assert_eq!(
        probe_local(&base, LocalListing::OpenAiModels, timeout)
            .await
            .unwrap(),
        ["smollm2-135m.gguf"]
    );
    // Another kind of server on the port, a slow one, nobody: not found.
    assert!(
        probe_local(&base, LocalListing::OllamaTags, timeout)
            .await
            .is_err()
    );
    llama_cpp.push_for(
        "/v1/models",
        MockResponse::json(200, &json!({"data": []})).delay(Duration::from_secs(5)),
    );
    assert!(
        probe_local(&base, LocalListing::OpenAiModels, timeout)
            .await
            .is_err()
    );
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = closed.local_addr().unwrap();
    drop(closed);
    assert!(
        probe_local(
            &format!("http://{address}"),
            LocalListing::OllamaTags,
            timeout
        )
        .await
        .is_err()
    );
}
