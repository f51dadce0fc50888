//! Settings › Providers in the real window: configure an OpenAI-compatible
//! provider against a mock server, test it, choose the default model, and
//! find all of it again after a restart — with the key in the real keychain.

use crate::harness::{App, Sandbox};
use anyhow::{Context, Result, anyhow, ensure};
use pizza_test_support::mock_provider::{MockProvider, MockResponse, sse};
use pizza_test_support::secret_service;
use serde_json::json;

const KEY: &str = "sk-e2e-7f3a9c21d4";
/// `src-tauri`'s keychain service name and the host's entry for the key.
const SERVICE: &str = "pizza-bot";
const ENTRY: &str = "provider.openai.api_key";

fn status_of(id: &str) -> String {
    format!(
        "return document.querySelector('[data-testid=provider-status-{id}]')?.dataset.status ?? null"
    )
}

async fn open_providers(app: &App) -> Result<()> {
    app.click("[data-testid=rail-settings]").await?;
    app.click("[data-testid=settings-providers]").await?;
    app.find("[data-testid=provider-row-openai]").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_openai_compatible_provider_is_configured_tested_and_kept() -> Result<()> {
    secret_service::ensure()
        .map_err(|reason| anyhow!("the providers e2e test needs a Secret Service: {reason}"))?;
    let mock = MockProvider::start().await?;
    mock.set_default(
        "/v1/models",
        MockResponse::json(
            200,
            &json!({"data": [{"id": "gpt-4o"}, {"id": "gpt-5-mini"}]}),
        ),
    );
    mock.set_default(
        "/v1/chat/completions",
        sse::openai_chat_text("Hello from the mock."),
    );
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;

    let app = App::start(&sandbox, "providers").await?;
    app.run(async |app| {
        open_providers(app).await?;
        app.wait_for_value(&status_of("openai"), &json!("unconfigured"))
            .await?;
        app.click("[data-testid=provider-row-openai]").await?;
        app.find("[data-testid=provider-form-openai]").await?;
        app.find("[data-testid=provider-field-base_url]")
            .await?
            .send_keys(&base_url)
            .await?;
        app.find("[data-testid=provider-field-api_key]")
            .await?
            .send_keys(KEY)
            .await?;
        app.click("[data-testid=provider-save]").await?;
        app.find("[data-testid=provider-saved]").await?;
        app.wait_for_value(&status_of("openai"), &json!("ready"))
            .await?;
        // The key field is cleared and only says a key is stored.
        app.wait_for_value(
            "return document.querySelector('[data-testid=provider-field-api_key]').value",
            &json!(""),
        )
        .await?;
        app.wait_for_value(
            "return document.querySelector('[data-testid=provider-field-api_key]').placeholder",
            &json!("•••• stored — leave blank to keep"),
        )
        .await?;

        app.click("[data-testid=provider-test]").await?;
        app.find("[data-testid=provider-test-result][data-status=ready]")
            .await?;
        app.find("[data-testid=provider-model-gpt-4o]").await?;
        app.find("[data-testid=provider-model-gpt-5-mini]").await?;

        // The default model: automatic first, then a choice.
        crate::chat::choose_default_model(app, "openai:gpt-4o").await?;
        let effective = app.text("[data-testid=default-model-effective]").await?;
        ensure!(
            effective.contains("openai:gpt-4o"),
            "default model shows {effective:?}"
        );

        let page = app.client.source().await?;
        ensure!(!page.contains(KEY), "the page shows the secret");
        Ok(())
    })
    .await?;
    let stored = secret_service::lookup(SERVICE, ENTRY).map_err(|e| anyhow!(e))?;
    ensure!(
        stored.as_deref() == Some(KEY),
        "keychain holds {stored:?} after the first run"
    );
    let authorized = mock
        .requests()
        .iter()
        .any(|r| r.header("authorization") == Some(format!("Bearer {KEY}").as_str()));
    ensure!(authorized, "the mock never saw the key");

    let app = App::start(&sandbox, "providers-restart").await?;
    app.run(async |app| {
        open_providers(app).await?;
        app.wait_for_value(&status_of("openai"), &json!("ready")).await?;
        app.click("[data-testid=provider-row-openai]").await?;
        app.wait_for_value(
            "return document.querySelector('[data-testid=provider-field-api_key]')?.placeholder ?? null",
            &json!("•••• stored — leave blank to keep"),
        )
        .await?;
        app.find("[data-testid=default-model] option[value='openai:gpt-4o']").await?;
        app.wait_for_value(
            "return document.querySelector('[data-testid=default-model]').value",
            &json!("openai:gpt-4o"),
        )
        .await?;
        Ok(())
    })
    .await?;
    let stored = secret_service::lookup(SERVICE, ENTRY).map_err(|e| anyhow!(e))?;
    ensure!(
        stored.as_deref() == Some(KEY),
        "keychain holds {stored:?} after the restart"
    );

    let logs =
        std::fs::read_dir(sandbox.data_root().join("logs")).context("reading the logs folder")?;
    for entry in logs {
        let text = std::fs::read(entry?.path())?;
        ensure!(
            !text.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
            "the key is in the logs"
        );
    }
    Ok(())
}
