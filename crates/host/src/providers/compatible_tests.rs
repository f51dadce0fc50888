//! OpenRouter, the person's own compatible servers, servers found on this
//! machine, and where a model's context window comes from.

use crate::secrets::MemorySecrets;
use crate::{DataRoot, Host, HostOptions, LocalProbe};
use pizza_protocol::{
    ContextSource, ErrorCode, LocalServerKind, ModelListParams, ModelOverrideSetParams, ModelPrice,
    ProviderAddParams, ProviderConfigureParams, ProviderDiscoverParams, ProviderIdParams,
    ProviderListParams, ProviderStatus,
};
use pizza_test_support::data_root::TempDataRoot;
use pizza_test_support::mock_provider::{MockProvider, MockResponse};
use pretty_assertions::assert_eq;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;

async fn open(root: &TempDataRoot, secrets: &Arc<MemorySecrets>, probes: Vec<LocalProbe>) -> Host {
    let options = HostOptions::default()
        .with_secrets(secrets.clone())
        .with_local_probes(probes);
    Host::open(DataRoot::prepare(root.path()).unwrap(), options)
        .await
        .unwrap()
}

async fn openai_like(models: &[&str]) -> MockProvider {
    let mock = MockProvider::start().await.unwrap();
    let data: Vec<_> = models.iter().map(|id| json!({"id": id})).collect();
    mock.set_default(
        "/v1/models",
        MockResponse::json(200, &json!({"data": data})),
    );
    mock
}

fn add(name: &str, mock: &MockProvider, key: &str) -> ProviderAddParams {
    ProviderAddParams {
        name: name.into(),
        base_url: format!("{}/v1", mock.url()),
        api_key: key.into(),
    }
}

fn ids(list: &pizza_protocol::ProviderList) -> Vec<&str> {
    list.providers.iter().map(|p| p.id.as_str()).collect()
}

#[tokio::test]
async fn compatible_servers_are_added_listed_kept_and_removed_one_by_one() {
    let root = TempDataRoot::new().unwrap();
    let secrets = Arc::new(MemorySecrets::default());
    let studio = openai_like(&["qwen2.5-7b-instruct"]).await;
    let gateway = openai_like(&["gpt-4o", "gpt-5-mini"]).await;
    let host = open(&root, &secrets, Vec::new()).await;

    let info = host
        .provider_add(add("LM Studio", &studio, ""))
        .await
        .unwrap();
    assert_eq!(info.id, "compatible:lm-studio");
    assert_eq!(info.name, "LM Studio");
    assert!(info.compatible && info.configured);
    assert_eq!(info.status, ProviderStatus::Ready);
    let info = host
        .provider_add(add("Corp gateway", &gateway, "corp-secret-1"))
        .await
        .unwrap();
    assert_eq!(info.id, "compatible:corp-gateway");
    assert_eq!(
        secrets
            .snapshot()
            .get("provider.compatible:corp-gateway.api_key")
            .map(String::as_str),
        Some("corp-secret-1")
    );
    assert_eq!(
        gateway.last_request().unwrap().header("authorization"),
        Some("Bearer corp-secret-1")
    );

    // A second server of the same name is refused; bad input saves nothing.
    let taken = host
        .provider_add(add("lm studio", &studio, ""))
        .await
        .unwrap_err();
    assert_eq!(taken.code, ErrorCode::Conflict);
    for bad in [
        ProviderAddParams {
            name: "  ".into(),
            base_url: "http://127.0.0.1:1/v1".into(),
            api_key: String::new(),
        },
        ProviderAddParams {
            name: "vLLM".into(),
            base_url: "not a url".into(),
            api_key: String::new(),
        },
        ProviderAddParams {
            name: "???".into(),
            base_url: "http://127.0.0.1:1/v1".into(),
            api_key: String::new(),
        },
    ] {
        let error = host.provider_add(bad).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidInput, "{}", error.message);
    }
    // Configure edits a server that exists, never makes one.
    let missing = host
        .provider_configure(ProviderConfigureParams {
            id: "compatible:nobody".into(),
            fields: BTreeMap::from([("base_url".into(), "http://127.0.0.1:1/v1".into())]),
            enablement: None,
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);

    let list = host.provider_list(ProviderListParams {}).await.unwrap();
    assert!(ids(&list).ends_with(&["compatible:corp-gateway", "compatible:lm-studio"]));
    let models = host.model_list(ModelListParams::default()).await.unwrap();
    let model_ids: Vec<_> = models.models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        model_ids,
        [
            "compatible:corp-gateway:gpt-4o",
            "compatible:corp-gateway:gpt-5-mini",
            "compatible:lm-studio:qwen2.5-7b-instruct",
        ]
    );
    let names: Vec<_> = models.providers.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Corp gateway", "LM Studio"]);
    host.close().await;

    // Reopened: both are back with their names and statuses.
    let host = open(&root, &secrets, Vec::new()).await;
    let list = host.provider_list(ProviderListParams {}).await.unwrap();
    let gateway_info = list
        .providers
        .iter()
        .find(|p| p.id == "compatible:corp-gateway")
        .unwrap();
    assert_eq!(gateway_info.name, "Corp gateway");
    assert_eq!(gateway_info.status, ProviderStatus::Ready);

    // Removing one leaves the other, its models and its secret alone.
    let list = host
        .provider_remove(ProviderIdParams {
            id: "compatible:lm-studio".into(),
        })
        .await
        .unwrap();
    assert!(!ids(&list).contains(&"compatible:lm-studio"));
    assert!(ids(&list).contains(&"compatible:corp-gateway"));
    assert!(
        secrets
            .snapshot()
            .contains_key("provider.compatible:corp-gateway.api_key")
    );
    let tested = host
        .provider_test(ProviderIdParams {
            id: "compatible:corp-gateway".into(),
        })
        .await
        .unwrap();
    assert_eq!(tested.models.len(), 2);
    host.close().await;
    let host = open(&root, &secrets, Vec::new()).await;
    let list = host.provider_list(ProviderListParams {}).await.unwrap();
    assert!(!ids(&list).contains(&"compatible:lm-studio"));
    // The name is free again.
    host.provider_add(add("LM Studio", &studio, ""))
        .await
        .unwrap();
}

#[tokio::test]
async fn openrouter_shows_prices_and_every_context_source() {
    let root = TempDataRoot::new().unwrap();
    let secrets = Arc::new(MemorySecrets::default());
    let mock = MockProvider::start().await.unwrap();
    mock.set_default(
        "/api/v1/models",
        MockResponse::json(
            200,
            &json!({"data": [
                {"id": "anthropic/claude-sonnet-4.5", "name": "Claude Sonnet 4.5", "context_length": 1_000_000,
                 "pricing": {"prompt": "0.000003", "completion": "0.000015"}},
                {"id": "gpt-4o", "pricing": {"prompt": "0.0000025", "completion": "0.00001"}},
                {"id": "someone/unknown-model"}
            ]}),
        ),
    );
    let host = open(&root, &secrets, Vec::new()).await;
    let info = host
        .provider_configure(ProviderConfigureParams {
            id: "openrouter".into(),
            fields: BTreeMap::from([
                ("api_key".into(), "sk-or-1".into()),
                ("base_url".into(), format!("{}/api/v1", mock.url())),
            ]),
            enablement: None,
        })
        .await
        .unwrap();
    assert_eq!(info.status, ProviderStatus::Ready);
    assert_eq!(
        mock.last_request().unwrap().header("x-title"),
        Some("Pizza Bot")
    );
    host.model_override_set(ModelOverrideSetParams {
        model: "openrouter:gpt-4o".into(),
        context_window: Some(64_000),
    })
    .await
    .unwrap();

    let models = host.model_list(ModelListParams::default()).await.unwrap();
    let row = |id: &str| models.models.iter().find(|m| m.id == id).unwrap().clone();
    let sonnet = row("openrouter:anthropic/claude-sonnet-4.5");
    assert_eq!(sonnet.context_window, Some(1_000_000));
    assert_eq!(sonnet.context_source, Some(ContextSource::Provider));
    assert_eq!(
        sonnet.price,
        Some(ModelPrice {
            input_micros_per_mtok: 3_000_000,
            output_micros_per_mtok: 15_000_000,
        })
    );
    let gpt = row("openrouter:gpt-4o");
    assert_eq!(gpt.context_window, Some(64_000));
    assert_eq!(gpt.context_source, Some(ContextSource::Override));
    assert_eq!(
        gpt.default_context_window,
        Some(128_000),
        "the bundled catalog's"
    );
    let unknown = row("openrouter:someone/unknown-model");
    assert_eq!(unknown.context_window, None);
    assert_eq!(unknown.context_source, None);
    assert_eq!(unknown.price, None);

    // Cleared: back to the bundled catalog's value.
    host.model_override_set(ModelOverrideSetParams {
        model: "openrouter:gpt-4o".into(),
        context_window: None,
    })
    .await
    .unwrap();
    let models = host.model_list(ModelListParams::default()).await.unwrap();
    let gpt = models
        .models
        .iter()
        .find(|m| m.id == "openrouter:gpt-4o")
        .unwrap();
    assert_eq!(gpt.context_window, Some(128_000));
    assert_eq!(gpt.context_source, Some(ContextSource::Catalog));
}

#[tokio::test]
async fn servers_on_this_machine_are_found_in_their_own_wire_format() {
    let root = TempDataRoot::new().unwrap();
    let secrets = Arc::new(MemorySecrets::default());
    let ollama = MockProvider::start().await.unwrap();
    ollama.set_default(
        "/api/tags",
        MockResponse::json(200, &json!({"models": [{"name": "llama3.2:latest"}]})),
    );
    ollama.set_default(
        "/api/show",
        MockResponse::json(200, &json!({"capabilities": ["completion", "tools"]})),
    );
    let llama_cpp = openai_like(&["smollm2-135m.gguf"]).await;
    // LM Studio's port answers, but not as an OpenAI-compatible server.
    let stranger = MockProvider::start().await.unwrap();
    stranger.set_default("/v1/models", MockResponse::text(200, "<html>hello</html>"));
    let probes = vec![
        LocalProbe {
            kind: LocalServerKind::Ollama,
            address: ollama.addr().to_string(),
        },
        LocalProbe {
            kind: LocalServerKind::LlamaCpp,
            address: llama_cpp.addr().to_string(),
        },
        LocalProbe {
            kind: LocalServerKind::LmStudio,
            address: stranger.addr().to_string(),
        },
    ];
    let host = open(&root, &secrets, probes).await;

    // Nothing is configured by finding it.
    let list = host.provider_list(ProviderListParams {}).await.unwrap();
    assert!(list.providers.iter().all(|p| !p.configured));
    let found = host
        .provider_discover(ProviderDiscoverParams {})
        .await
        .unwrap();
    let kinds: Vec<_> = found
        .servers
        .iter()
        .map(|s| (s.kind, s.provider_id.clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            (LocalServerKind::Ollama, None),
            (LocalServerKind::LlamaCpp, None)
        ]
    );
    assert_eq!(found.servers[0].models, ["llama3.2:latest"]);
    assert_eq!(found.servers[0].base_url, ollama.url());
    assert_eq!(found.servers[1].name, "llama.cpp server");
    assert_eq!(found.servers[1].base_url, format!("{}/v1", llama_cpp.url()));

    // Added as the window's one click does: then found as that provider.
    host.provider_configure(ProviderConfigureParams {
        id: "ollama".into(),
        fields: BTreeMap::from([("base_url".into(), found.servers[0].base_url.clone())]),
        enablement: None,
    })
    .await
    .unwrap();
    let added = host
        .provider_add(ProviderAddParams {
            name: found.servers[1].name.clone(),
            base_url: found.servers[1].base_url.clone(),
            api_key: String::new(),
        })
        .await
        .unwrap();
    assert_eq!(added.id, "compatible:llama-cpp-server");
    let found = host
        .provider_discover(ProviderDiscoverParams {})
        .await
        .unwrap();
    let ids: Vec<_> = found
        .servers
        .iter()
        .map(|s| s.provider_id.as_deref())
        .collect();
    assert_eq!(ids, [Some("ollama"), Some("compatible:llama-cpp-server")]);
    let models = host.model_list(ModelListParams::default()).await.unwrap();
    let model_ids: Vec<_> = models.models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        model_ids,
        [
            "compatible:llama-cpp-server:smollm2-135m.gguf",
            "ollama:llama3.2:latest"
        ]
    );
}
