use crate::secrets::MemorySecrets;
use crate::{DataRoot, Host, HostOptions, NoSecretStore};
use pizza_protocol::{
    ErrorCode, ModelDefaultGetParams, ModelDefaultSetParams, ModelEnablement, ModelListParams,
    ModelOverrideSetParams, ProviderConfigureParams, ProviderIdParams, ProviderListParams,
    ProviderStatus,
};
use pizza_test_support::data_root::TempDataRoot;
use pizza_test_support::mock_provider::{MockProvider, MockResponse};
use pretty_assertions::assert_eq;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

const KEY: &str = "sk-test-very-secret-4242";

async fn open_with(root: &TempDataRoot, secrets: Arc<dyn crate::SecretStore>) -> Host {
    let options = HostOptions::default()
        .with_secrets(secrets)
        .with_ollama_probe(None);
    Host::open(DataRoot::prepare(root.path()).unwrap(), options)
        .await
        .unwrap()
}

async fn mock_openai() -> MockProvider {
    let mock = MockProvider::start().await.unwrap();
    mock.set_default(
        "/v1/models",
        MockResponse::json(
            200,
            &serde_json::json!({"data": [{"id": "gpt-4o"}, {"id": "gpt-5-mini"}]}),
        ),
    );
    mock
}

fn openai(base_url: &str, key: &str) -> ProviderConfigureParams {
    ProviderConfigureParams {
        id: "openai".into(),
        fields: BTreeMap::from([
            ("base_url".into(), base_url.into()),
            ("api_key".into(), key.into()),
        ]),
        enablement: None,
    }
}

/// Every byte of the database files, to prove a secret never reached them.
fn database_bytes(root: &TempDataRoot) -> Vec<u8> {
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(root.path()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("pizza-bot.sqlite")
        {
            bytes.extend(std::fs::read(path).unwrap());
        }
    }
    bytes
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[tokio::test]
async fn configure_test_and_reopen_keep_the_key_in_the_keychain_only() {
    let root = TempDataRoot::new().unwrap();
    let secrets = Arc::new(MemorySecrets::default());
    let mock = mock_openai().await;
    let host = open_with(&root, secrets.clone()).await;

    let info = host
        .provider_configure(openai(&format!("{}/v1", mock.url()), KEY))
        .await
        .unwrap();
    assert_eq!(info.status, ProviderStatus::Ready);
    assert!(info.configured);
    let key_field = info.fields.iter().find(|f| f.key == "api_key").unwrap();
    assert!(key_field.stored && key_field.secret);
    assert_eq!(
        secrets
            .snapshot()
            .get("provider.openai.api_key")
            .map(String::as_str),
        Some(KEY)
    );
    assert_eq!(
        mock.last_request().unwrap().header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );

    let tested = host
        .provider_test(ProviderIdParams {
            id: "openai".into(),
        })
        .await
        .unwrap();
    assert_eq!(tested.status, ProviderStatus::Ready);
    let ids: Vec<_> = tested.models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["openai:gpt-4o", "openai:gpt-5-mini"]);

    let list = host.provider_list(ProviderListParams {}).await.unwrap();
    let models = host.model_list(ModelListParams::default()).await.unwrap();
    for json in [
        serde_json::to_string(&info).unwrap(),
        serde_json::to_string(&tested).unwrap(),
        serde_json::to_string(&list).unwrap(),
        serde_json::to_string(&models).unwrap(),
    ] {
        assert!(!json.contains(KEY), "a response carries the secret: {json}");
    }
    host.close().await;
    assert!(
        !contains(&database_bytes(&root), KEY),
        "the secret is in the database"
    );

    // Reopened: still configured, the key read back from the keychain.
    let host = open_with(&root, secrets.clone()).await;
    let list = host.provider_list(ProviderListParams {}).await.unwrap();
    let openai = list.providers.iter().find(|p| p.id == "openai").unwrap();
    assert!(openai.configured);
    assert_eq!(openai.status, ProviderStatus::Ready);
    assert_eq!(
        openai.values.get("base_url"),
        Some(&format!("{}/v1", mock.url()))
    );
}

#[tokio::test]
async fn a_blank_secret_keeps_the_stored_one_and_a_new_one_replaces_it() {
    let root = TempDataRoot::new().unwrap();
    let secrets = Arc::new(MemorySecrets::default());
    let mock = mock_openai().await;
    let host = open_with(&root, secrets.clone()).await;
    let base = format!("{}/v1", mock.url());
    host.provider_configure(openai(&base, KEY)).await.unwrap();
    host.provider_configure(openai(&base, "")).await.unwrap();
    assert_eq!(
        secrets
            .snapshot()
            .get("provider.openai.api_key")
            .map(String::as_str),
        Some(KEY)
    );
    host.provider_configure(openai(&base, "sk-second"))
        .await
        .unwrap();
    assert_eq!(
        secrets
            .snapshot()
            .get("provider.openai.api_key")
            .map(String::as_str),
        Some("sk-second")
    );

    // `${ENV_VAR}` replaces the keychain entry, which is then deleted.
    let info = host
        .provider_configure(openai(&base, "${HOME}"))
        .await
        .unwrap();
    let field = info.fields.iter().find(|f| f.key == "api_key").unwrap();
    assert_eq!(field.env_ref.as_deref(), Some("${HOME}"));
    assert!(secrets.snapshot().is_empty());

    let list = host
        .provider_remove(ProviderIdParams {
            id: "openai".into(),
        })
        .await
        .unwrap();
    assert!(
        !list
            .providers
            .iter()
            .find(|p| p.id == "openai")
            .unwrap()
            .configured
    );
    let missing = host
        .provider_remove(ProviderIdParams {
            id: "openai".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn removing_a_provider_deletes_its_secret() {
    let root = TempDataRoot::new().unwrap();
    let secrets = Arc::new(MemorySecrets::default());
    let mock = mock_openai().await;
    let host = open_with(&root, secrets.clone()).await;
    host.provider_configure(openai(&format!("{}/v1", mock.url()), KEY))
        .await
        .unwrap();
    host.provider_remove(ProviderIdParams {
        id: "openai".into(),
    })
    .await
    .unwrap();
    assert!(secrets.snapshot().is_empty());
    assert_eq!(
        host.store()
            .setting_opt::<serde_json::Value>("providers.openai")
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn bad_input_is_refused_and_saves_nothing() {
    let root = TempDataRoot::new().unwrap();
    let secrets = Arc::new(MemorySecrets::default());
    let host = open_with(&root, secrets.clone()).await;
    let bad = [
        openai("not a url", KEY),
        openai("ftp://example.com/v1", KEY),
        ProviderConfigureParams {
            id: "no-such-provider".into(),
            ..ProviderConfigureParams::default()
        },
        ProviderConfigureParams {
            id: "anthropic".into(),
            fields: BTreeMap::from([("api_key".into(), "  ".into())]),
            enablement: None,
        },
        ProviderConfigureParams {
            id: "openai".into(),
            fields: BTreeMap::from([("colour".into(), "red".into())]),
            enablement: None,
        },
        openai("http://127.0.0.1:9/v1", "${PIZZA_SURELY_UNSET_VARIABLE}"),
        openai("http://127.0.0.1:9/v1", "${not valid}"),
    ];
    for params in bad {
        let error = host.provider_configure(params.clone()).await.unwrap_err();
        assert_eq!(
            error.code,
            ErrorCode::InvalidInput,
            "{params:?} → {error:?}"
        );
        assert!(!error.message.contains(KEY));
    }
    assert!(secrets.snapshot().is_empty());
    for id in ["openai", "anthropic", "no-such-provider"] {
        assert_eq!(
            host.store()
                .setting_opt::<serde_json::Value>(&format!("providers.{id}"))
                .await
                .unwrap(),
            None
        );
    }
    let unknown = host
        .provider_test(ProviderIdParams { id: "nope".into() })
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::InvalidInput);
    let unconfigured = host
        .provider_test(ProviderIdParams {
            id: "gemini".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(unconfigured.code, ErrorCode::InvalidInput);
}

#[tokio::test]
async fn an_unusable_keychain_is_a_clear_error_and_never_a_plaintext_fallback() {
    let root = TempDataRoot::new().unwrap();
    let mock = mock_openai().await;
    let base = format!("{}/v1", mock.url());

    let host = open_with(&root, Arc::new(NoSecretStore)).await;
    let error = host
        .provider_configure(openai(&base, KEY))
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::DependencyDisabled);
    assert!(
        error.message.contains("unavailable") && error.message.contains("${ENV_VAR}"),
        "{}",
        error.message
    );
    // The environment-variable form needs no keychain.
    let info = host
        .provider_configure(openai(&base, "${HOME}"))
        .await
        .unwrap();
    assert_eq!(info.status, ProviderStatus::Ready);
    host.close().await;
    assert!(!contains(&database_bytes(&root), KEY));

    let root = TempDataRoot::new().unwrap();
    let secrets = Arc::new(MemorySecrets::default());
    secrets.locked.store(true, Ordering::SeqCst);
    let host = open_with(&root, secrets.clone()).await;
    let error = host
        .provider_configure(openai(&base, KEY))
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::PermissionDenied);
    assert!(
        error.message.contains("locked") && error.message.contains("${ENV_VAR}"),
        "{}",
        error.message
    );
    assert_eq!(
        host.store()
            .setting_opt::<serde_json::Value>("providers.openai")
            .await
            .unwrap(),
        None
    );
    assert!(secrets.snapshot().is_empty());
}

#[tokio::test]
async fn a_locked_keychain_at_startup_shows_the_provider_as_error() {
    let root = TempDataRoot::new().unwrap();
    let secrets = Arc::new(MemorySecrets::default());
    let mock = mock_openai().await;
    let host = open_with(&root, secrets.clone()).await;
    host.provider_configure(openai(&format!("{}/v1", mock.url()), KEY))
        .await
        .unwrap();
    host.close().await;

    secrets.locked.store(true, Ordering::SeqCst);
    let host = open_with(&root, secrets.clone()).await;
    let list = host.provider_list(ProviderListParams {}).await.unwrap();
    let openai = list.providers.iter().find(|p| p.id == "openai").unwrap();
    assert!(openai.configured);
    assert!(
        matches!(&openai.status, ProviderStatus::Error { code: ErrorCode::PermissionDenied, message, .. } if message.contains("locked")),
        "{:?}",
        openai.status
    );
    // Unlocked, Test recovers without a restart.
    secrets.locked.store(false, Ordering::SeqCst);
    let tested = host
        .provider_test(ProviderIdParams {
            id: "openai".into(),
        })
        .await
        .unwrap();
    assert_eq!(tested.status, ProviderStatus::Ready);
}

#[tokio::test]
async fn the_default_model_is_automatic_remembered_and_choosable() {
    let root = TempDataRoot::new().unwrap();
    let secrets = Arc::new(MemorySecrets::default());
    let mock = mock_openai().await;
    let host = open_with(&root, secrets).await;
    assert_eq!(
        host.model_default_get(ModelDefaultGetParams {})
            .await
            .unwrap()
            .effective,
        None
    );

    host.provider_configure(openai(&format!("{}/v1", mock.url()), KEY))
        .await
        .unwrap();
    let auto = host
        .model_default_get(ModelDefaultGetParams {})
        .await
        .unwrap();
    assert_eq!(auto.chosen, None);
    assert_eq!(auto.effective.as_deref(), Some("openai:gpt-5-mini"));

    // A failing listing (degraded catalog) never moves the remembered pick.
    mock.set_default(
        "/v1/models",
        MockResponse::json(200, &serde_json::json!({"data": [{"id": "gpt-4o"}]})),
    );
    mock.push_for("/v1/models", MockResponse::text(500, "down"));
    mock.push_for("/v1/models", MockResponse::text(500, "down"));
    mock.push_for("/v1/models", MockResponse::text(500, "down"));
    mock.push_for("/v1/models", MockResponse::text(500, "down"));
    let tested = host
        .provider_test(ProviderIdParams {
            id: "openai".into(),
        })
        .await
        .unwrap();
    // The last good list stays: the catalog is degraded, not in error.
    assert!(
        matches!(tested.status, ProviderStatus::Degraded { .. }),
        "{:?}",
        tested.status
    );
    let kept = host
        .model_default_get(ModelDefaultGetParams {})
        .await
        .unwrap();
    assert_eq!(kept.effective.as_deref(), Some("openai:gpt-5-mini"));

    let chosen = host
        .model_default_set(ModelDefaultSetParams {
            model: Some("openai:gpt-4o".into()),
        })
        .await
        .unwrap();
    assert_eq!(chosen.chosen.as_deref(), Some("openai:gpt-4o"));
    for bad in ["gpt-4o", "gemini:gemini-2.5-pro", ":x"] {
        let error = host
            .model_default_set(ModelDefaultSetParams {
                model: Some(bad.into()),
            })
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidInput, "{bad}");
    }
    let back = host
        .model_default_set(ModelDefaultSetParams { model: None })
        .await
        .unwrap();
    assert_eq!(back.chosen, None);
}

#[tokio::test]
async fn enablement_and_context_overrides_shape_the_model_list() {
    let root = TempDataRoot::new().unwrap();
    let mock = mock_openai().await;
    let host = open_with(&root, Arc::new(MemorySecrets::default())).await;
    let mut params = openai(&format!("{}/v1", mock.url()), KEY);
    params.enablement = Some(ModelEnablement::Selected {
        models: vec!["gpt-4o".into()],
    });
    host.provider_configure(params).await.unwrap();
    host.model_override_set(ModelOverrideSetParams {
        model: "openai:gpt-4o".into(),
        context_window: Some(4096),
    })
    .await
    .unwrap();
    let models = host.model_list(ModelListParams::default()).await.unwrap();
    assert_eq!(models.models.len(), 1);
    assert_eq!(models.models[0].id, "openai:gpt-4o");
    assert_eq!(models.models[0].context_window, Some(4096));
    let all = host
        .model_list(ModelListParams {
            include_disabled: true,
        })
        .await
        .unwrap();
    assert_eq!(all.models.len(), 2);
    assert!(!all.models[1].enabled);
    // Only enabled models are picked automatically.
    let auto = host
        .model_default_get(ModelDefaultGetParams {})
        .await
        .unwrap();
    assert_eq!(auto.effective.as_deref(), Some("openai:gpt-4o"));

    let error = host
        .model_override_set(ModelOverrideSetParams {
            model: "openai:gpt-4o".into(),
            context_window: Some(0),
        })
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidInput);
}

#[tokio::test]
async fn a_failed_retry_keeps_the_last_good_list() {
    let root = TempDataRoot::new().unwrap();
    let mock = mock_openai().await;
    let host = open_with(&root, Arc::new(MemorySecrets::default())).await;
    host.provider_configure(openai(&format!("{}/v1", mock.url()), KEY))
        .await
        .unwrap();
    let first = host
        .provider_test(ProviderIdParams {
            id: "openai".into(),
        })
        .await
        .unwrap();
    assert_eq!(first.status, ProviderStatus::Ready);
    assert_eq!(first.models.len(), 2);

    // The server starts refusing: Retry reports it but keeps what was listed.
    mock.set_default(
        "/v1/models",
        MockResponse::json(401, &serde_json::json!({"error": {"message": "bad key"}})),
    );
    let retried = host
        .provider_test(ProviderIdParams {
            id: "openai".into(),
        })
        .await
        .unwrap();
    assert!(
        matches!(
            retried.status,
            ProviderStatus::Degraded {
                code: ErrorCode::AuthExpired,
                ..
            }
        ),
        "{:?}",
        retried.status
    );
    assert_eq!(retried.models.len(), 2);
}
