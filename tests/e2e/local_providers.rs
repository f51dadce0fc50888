//! Settings › Providers › "Found on this machine": an Ollama answering on
//! the (env-overridden) probed address is offered, added with one click,
//! lists its models with their context windows (one overridden by hand),
//! and a chat with it answers — the mock speaks Ollama's real NDJSON wire.

use crate::chat::{ask, choose_default_model, feed_has};
use crate::harness::{App, Launch, Sandbox};
use anyhow::{Result, ensure};
use pizza_test_support::mock_provider::{MockProvider, MockResponse};
use serde_json::{Value, json};

const MODEL: &str = "llama3.2:latest";
const QUESTION: &str = "Which cheese melts best on pizza?";
const ANSWER: &str = "Low-moisture mozzarella melts best.";

/// Ollama's `/api/tags`, `/api/show` and a streamed `/api/chat`.
async fn ollama_mock() -> Result<MockProvider> {
    let mock = MockProvider::start().await?;
    mock.set_default(
        "/api/tags",
        MockResponse::json(
            200,
            &json!({"models": [{"name": MODEL, "model": MODEL, "size": 2_019_393_189,
                "details": {"family": "llama", "parameter_size": "3.2B"}}]}),
        ),
    );
    mock.set_default(
        "/api/show",
        MockResponse::json(
            200,
            &json!({"capabilities": ["completion", "tools"],
                "model_info": {"general.architecture": "llama", "llama.context_length": 131_072}}),
        ),
    );
    let mut lines: Vec<Value> = ANSWER
        .split_inclusive(' ')
        .map(|piece| {
            json!({"model": MODEL, "created_at": "2026-12-02T10:00:00Z",
                "message": {"role": "assistant", "content": piece}, "done": false})
        })
        .collect();
    lines.push(json!({"model": MODEL, "created_at": "2026-12-02T10:00:01Z",
        "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
        "prompt_eval_count": 26, "eval_count": 9}));
    mock.set_default("/api/chat", MockResponse::ndjson(lines));
    Ok(mock)
}

fn model_row(part: &str) -> String {
    format!("[data-testid='provider-model-{MODEL}'] [data-testid={part}]")
}

fn context_source() -> String {
    format!(
        "return document.querySelector(\"{}\")?.dataset.source ?? null",
        model_row("model-context")
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_local_ollama_is_found_added_listed_and_answers() -> Result<()> {
    let ollama = ollama_mock().await?;
    // Only the mock is looked for: this machine's real ports stay out of it.
    let probes = format!("ollama={},llamacpp=off,lmstudio=off", ollama.addr());
    let sandbox = Sandbox::new()?;
    let env = [("PIZZA_LOCAL_PROBES", probes)];
    let app = App::start_with_env(&sandbox, "local-providers", Launch::default(), &env).await?;
    app.run(async |app| {
        app.click("[data-testid=rail-settings]").await?;
        app.click("[data-testid=settings-providers]").await?;
        // Found, not configured by being found.
        app.find("[data-testid=found-ollama]").await?;
        app.wait_for_value(
            "return document.querySelector('[data-testid=provider-status-ollama]')?.dataset.status ?? null",
            &json!("unconfigured"),
        )
        .await?;
        let found = app
            .eval("return document.querySelector('[data-testid=found-ollama]').textContent")
            .await?;
        let found = found.as_str().unwrap_or_default().to_owned();
        ensure!(found.contains(&ollama.url()) && found.contains("1 model"), "found row says {found:?}");

        app.click("[data-testid=found-add-ollama]").await?;
        app.find("[data-testid=found-added-ollama]").await?;
        app.wait_for_value(
            "return document.querySelector('[data-testid=provider-status-ollama]')?.dataset.status ?? null",
            &json!("ready"),
        )
        .await?;
        // Its form opens and lists its models, the window from `/api/show`.
        app.find("[data-testid=provider-form-ollama]").await?;
        app.find(&format!("[data-testid='provider-model-{MODEL}']")).await?;
        app.wait_for_value(&context_source(), &json!("provider")).await?;

        // The person's own context window: bad input is refused inline.
        app.click(&model_row("model-context-edit")).await?;
        let input = app.find(&model_row("model-context-input")).await?;
        input.send_keys("lots").await?;
        app.click(&model_row("model-context-save")).await?;
        app.find(&model_row("model-context-error")).await?;
        input.clear().await?;
        input.send_keys("32,768\u{E007}").await?;
        app.wait_for_value(&context_source(), &json!("override")).await?;
        let context = app.text(&model_row("model-context")).await?;
        ensure!(
            context.contains("32,768") && context.contains("131,072"),
            "the row says {context:?}"
        );

        choose_default_model(app, &format!("ollama:{MODEL}")).await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        app.find("[data-testid=welcome]").await?;
        ask(app, QUESTION).await?;
        app.wait_for_value(&feed_has(&[QUESTION, ANSWER]), &json!(true))
            .await?;
        Ok(())
    })
    .await?;

    let chats: Vec<_> = ollama
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path == "/api/chat")
        .collect();
    ensure!(!chats.is_empty(), "the mock Ollama was never asked");
    let body = chats[0].json();
    ensure!(body["model"] == MODEL, "asked {:?}", body["model"]);
    ensure!(
        body["messages"].to_string().contains(QUESTION),
        "the question is not in {body}"
    );
    Ok(())
}
