//! Provider secrets against a real Secret Service (gnome-keyring on the test
//! session bus): set, replace and delete, directly and through the host's
//! commands; the secret never reaches the database, the logs or an answer.
//!
//! Needs a session bus: `cargo xtask test` runs the tests under
//! `dbus-run-session`. Without one this test fails, it does not skip.

// A test binary: a panic is how its helpers report a failure.
#![allow(clippy::unwrap_used)]

use pizza_bot::KeychainSecrets;
use pizza_host::{DataRoot, Host, HostOptions, SecretStore};
use pizza_protocol::{
    ModelListParams, ProviderConfigureParams, ProviderIdParams, ProviderListParams,
};
use pizza_test_support::data_root::TempDataRoot;
use pizza_test_support::mock_provider::{MockProvider, MockResponse};
use pizza_test_support::secret_service;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Everything logged while the test runs, at every level.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn capture_logs() -> Captured {
    let captured = Captured::default();
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .init();
    captured
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

fn database_bytes(root: &std::path::Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(root).unwrap() {
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
    assert!(!bytes.is_empty(), "no database files in {}", root.display());
    bytes
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_secrets_live_in_the_real_keychain_only() {
    let logs = capture_logs();
    if let Err(reason) = secret_service::ensure() {
        panic!("the keychain test needs a real Secret Service: {reason}");
    }
    let service = format!("pizza-bot-test-{}", std::process::id());
    let keychain = KeychainSecrets::new(&service);

    // Directly: set, replace, delete.
    keychain.set("direct", "first-value").unwrap();
    assert_eq!(
        keychain.get("direct").unwrap().as_deref(),
        Some("first-value")
    );
    keychain.set("direct", "second-value").unwrap();
    assert_eq!(
        keychain.get("direct").unwrap().as_deref(),
        Some("second-value")
    );
    assert_eq!(
        secret_service::lookup(&service, "direct")
            .unwrap()
            .as_deref(),
        Some("second-value")
    );
    keychain.delete("direct").unwrap();
    assert_eq!(keychain.get("direct").unwrap(), None);
    keychain.delete("direct").unwrap();

    // Through the host's commands.
    let mock = MockProvider::start().await.unwrap();
    mock.set_default(
        "/v1/models",
        MockResponse::json(200, &serde_json::json!({"data": [{"id": "gpt-4o"}]})),
    );
    let base = format!("{}/v1", mock.url());
    let root = TempDataRoot::new().unwrap();
    let options = HostOptions::default()
        .with_secrets(Arc::new(keychain.clone()))
        .with_ollama_probe(None);
    let host = Host::open(DataRoot::prepare(root.path()).unwrap(), options)
        .await
        .unwrap();
    let (first, second) = ("sk-first-4c1f9a0e7d", "sk-second-88b2e6d1aa");
    let mut answers = Vec::new();

    let configured = host.provider_configure(openai(&base, first)).await.unwrap();
    answers.push(serde_json::to_string(&configured).unwrap());
    assert_eq!(
        secret_service::lookup(&service, "provider.openai.api_key")
            .unwrap()
            .as_deref(),
        Some(first)
    );
    let replaced = host
        .provider_configure(openai(&base, second))
        .await
        .unwrap();
    answers.push(serde_json::to_string(&replaced).unwrap());
    assert_eq!(
        secret_service::lookup(&service, "provider.openai.api_key")
            .unwrap()
            .as_deref(),
        Some(second)
    );
    let tested = host
        .provider_test(ProviderIdParams {
            id: "openai".into(),
        })
        .await
        .unwrap();
    answers.push(serde_json::to_string(&tested).unwrap());
    assert_eq!(tested.status, pizza_protocol::ProviderStatus::Ready);
    assert_eq!(
        mock.last_request().unwrap().header("authorization"),
        Some(format!("Bearer {second}").as_str())
    );
    answers.push(
        serde_json::to_string(&host.provider_list(ProviderListParams {}).await.unwrap()).unwrap(),
    );
    answers.push(
        serde_json::to_string(&host.model_list(ModelListParams::default()).await.unwrap()).unwrap(),
    );
    let removed = host
        .provider_remove(ProviderIdParams {
            id: "openai".into(),
        })
        .await
        .unwrap();
    answers.push(serde_json::to_string(&removed).unwrap());
    assert_eq!(
        secret_service::lookup(&service, "provider.openai.api_key").unwrap(),
        None
    );
    host.close().await;

    let database = database_bytes(&root.path());
    let logged = logs.0.lock().unwrap().clone();
    assert!(
        !logged.is_empty(),
        "nothing was logged; the capture is broken"
    );
    for secret in [first, second] {
        assert!(
            !contains(&database, secret),
            "the secret is in the database"
        );
        assert!(!contains(&logged, secret), "the secret is in the logs");
        for answer in &answers {
            assert!(
                !contains(answer.as_bytes(), secret),
                "a command answer carries the secret: {answer}"
            );
        }
    }
}
