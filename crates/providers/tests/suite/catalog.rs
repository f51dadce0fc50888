use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use pizza_llm::ModelDescriptor;
use pizza_providers::*;
use pizza_test_support::mock_provider::{MockProvider, MockResponse};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::common::fast;

fn openai(url: &str) -> Arc<dyn Provider> {
    Arc::new(
        OpenAiProvider::new(OpenAiConfig {
            id: "local".into(),
            base_url: format!("{url}/v1"),
            api: OpenAiApi::Chat,
            transport: fast(),
            ..OpenAiConfig::default()
        })
        .unwrap(),
    )
}

fn models(ids: &[&str]) -> MockResponse {
    let data: Vec<_> = ids
        .iter()
        .map(|id| json!({"id": id, "object": "model"}))
        .collect();
    MockResponse::json(200, &json!({"object": "list", "data": data}))
}

#[tokio::test]
async fn cache_dedup_degraded_and_override() {
    let server = MockProvider::start().await.unwrap();
    server.push_for(
        "/v1/models",
        models(&["gpt-4o", "my-model"]).delay(Duration::from_millis(50)),
    );
    let catalog = ModelCatalog::new(Duration::from_secs(30));
    catalog.register(openai(&server.url()));

    // Concurrent callers share one fetch; a second call is served from cache.
    let (a, b) = tokio::join!(catalog.list("local"), catalog.list("local"));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a, b);
    assert_eq!(a.status, CatalogStatus::Ready);
    assert_eq!(
        a.models[0].context_window,
        Some(128_000),
        "from the snapshot"
    );
    catalog.list("local").await.unwrap();
    assert_eq!(server.requests().len(), 1);

    // Override wins over snapshot.
    catalog.set_context_override("local:gpt-4o", Some(50_000));
    assert_eq!(
        catalog.context_window("local:gpt-4o", Some(128_000)),
        Some(50_000)
    );

    // Expired cache + failing source: degraded, last good list kept.
    let expiring = ModelCatalog::new(Duration::ZERO);
    expiring.register(openai(&server.url()));
    server.push_for("/v1/models", models(&["gpt-4o"]));
    server.push_for("/v1/models", MockResponse::text(500, "down"));
    assert_eq!(
        expiring.list("local").await.unwrap().status,
        CatalogStatus::Ready
    );
    let degraded = expiring.list("local").await.unwrap();
    assert_eq!(
        degraded.status,
        CatalogStatus::Degraded {
            code: "GENERAL",
            retryable: true
        }
    );
    assert_eq!(degraded.models.len(), 1);

    // Never listed: error.
    let failing = ModelCatalog::new(Duration::ZERO);
    failing.register(openai(&server.url()));
    server.push_for("/v1/models", MockResponse::text(401, "bad key"));
    let listing = failing.list("local").await.unwrap();
    assert_eq!(
        listing.status,
        CatalogStatus::Error {
            code: "AUTH_EXPIRED",
            retryable: false
        }
    );

    // Registry resolution.
    let (_, model) = catalog.resolve("local:my-model").unwrap();
    assert_eq!(model, "my-model");
    assert_eq!(
        catalog.resolve("nobody:x").unwrap_err().code(),
        "MODEL_UNAVAILABLE"
    );
    assert_eq!(
        catalog.resolve("no-colon").unwrap_err().code(),
        "INVALID_INPUT"
    );
}

fn listing(provider: &str, status: CatalogStatus, ids: &[&str]) -> CatalogListing {
    CatalogListing {
        provider_id: provider.into(),
        status,
        models: ids.iter().map(|id| ModelDescriptor::bare(*id)).collect(),
        facts: BTreeMap::new(),
    }
}

#[test]
fn default_pick_ranks_by_family_and_keeps_remembered_when_incomplete() {
    let ready = [
        listing("ollama", CatalogStatus::Ready, &["llama3.2", "qwen3:8b"]),
        listing(
            "anthropic",
            CatalogStatus::Ready,
            &["claude-haiku-4-5", "claude-sonnet-4-5"],
        ),
    ];
    assert_eq!(
        automatic_default_model(None, &ready).as_deref(),
        Some("anthropic:claude-sonnet-4-5")
    );
    assert_eq!(
        automatic_default_model(Some("ollama:qwen3:8b"), &ready).as_deref(),
        Some("ollama:qwen3:8b")
    );
    // Gone from a complete catalog: re-pick.
    assert_eq!(
        automatic_default_model(Some("openai:gpt-4o"), &ready).as_deref(),
        Some("anthropic:claude-sonnet-4-5")
    );
    // A degraded or failed listing may hide it: keep it.
    let degraded = [
        listing("anthropic", CatalogStatus::Ready, &["claude-sonnet-4-5"]),
        listing(
            "openai",
            CatalogStatus::Degraded {
                code: "RATE_LIMIT",
                retryable: true,
            },
            &[],
        ),
    ];
    assert_eq!(
        automatic_default_model(Some("openai:gpt-4o"), &degraded).as_deref(),
        Some("openai:gpt-4o")
    );
    assert_eq!(
        automatic_default_model(Some("openai:gpt-4o"), &[]).as_deref(),
        Some("openai:gpt-4o")
    );
}

#[test]
fn descriptors_validate_fields() {
    let ids: Vec<_> = provider_descriptors().iter().map(|d| d.id).collect();
    assert_eq!(
        ids,
        [
            "anthropic",
            "openai",
            "openrouter",
            "gemini",
            "ollama",
            "bedrock"
        ]
    );
    let fields = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    };
    let err = build_provider("anthropic", &fields(&[("api_key", "  ")]), fast()).unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT");
    let err = build_provider("openai", &fields(&[("base_url", "not a url")]), fast()).unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT");
    let err = build_provider("openai", &fields(&[("base_url", "ftp://x")]), fast()).unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT");
    let err = build_provider("openai", &fields(&[("api", "soap")]), fast()).unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT");
    assert!(build_provider("ollama", &fields(&[]), fast()).is_ok());
    assert!(
        build_provider(
            "anthropic",
            &fields(&[("api_key", "k"), ("auth", "bearer")]),
            fast()
        )
        .is_ok()
    );
}
