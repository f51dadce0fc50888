//! The chat in the thread pane: a provider against a mock server, a message
//! typed in the composer, the answer streamed into the feed and still there
//! after a restart.

use crate::harness::{App, Sandbox, Script};
use anyhow::{Result, anyhow};
use pizza_test_support::mock_provider::{MockProvider, MockResponse, sse};
use pizza_test_support::secret_service;
use serde_json::json;

const KEY: &str = "sk-e2e-chat-51c0";
const ENTER: &str = "\u{E007}";
const QUESTION: &str = "How long should dough rest?";
const ANSWER: &str = "Let the dough rest for two hours.";
const QUEUED: &str = "Then add a summary";
/// Whether the page has typing to undo.
const UNDO_ENABLED: &str = "return document.queryCommandEnabled('undo');";

/// Settings › Providers: the OpenAI-compatible provider against `base_url`,
/// and its `gpt-4o` as the default model.
pub(crate) async fn configure_provider(app: &App, base_url: &str) -> Result<()> {
    configure_openai(app, base_url, None).await
}

/// Settings › Providers: OpenAI against `base_url` through `api` (the form's
/// API select, e.g. `responses`; `None` keeps Chat), and `gpt-4o` as the
/// default model.
pub(crate) async fn configure_openai(app: &App, base_url: &str, api: Option<&str>) -> Result<()> {
    app.click("[data-testid=rail-settings]").await?;
    app.click("[data-testid=settings-providers]").await?;
    app.click("[data-testid=provider-row-openai]").await?;
    app.find("[data-testid=provider-field-base_url]")
        .await?
        .send_keys(base_url)
        .await?;
    app.find("[data-testid=provider-field-api_key]")
        .await?
        .send_keys(KEY)
        .await?;
    if let Some(api) = api {
        app.find(&format!(
            "[data-testid=provider-field-api] option[value={api}]"
        ))
        .await?;
        app.eval(&format!(
            "const s = document.querySelector('[data-testid=provider-field-api]');
             s.value = {api};
             s.dispatchEvent(new Event('change', {{bubbles: true}}));
             return null;",
            api = json!(api)
        ))
        .await?;
    }
    app.click("[data-testid=provider-save]").await?;
    app.find("[data-testid=provider-saved]").await?;
    choose_default_model(app, "openai:gpt-4o").await
}

/// Settings › Providers: picks `model` as the default in the select, as a
/// user's choice reaches it (a `change` event), and waits for the save.
pub(crate) async fn choose_default_model(app: &App, model: &str) -> Result<()> {
    app.find(&format!(
        "[data-testid=default-model] option[value='{model}']"
    ))
    .await?;
    app.eval(&format!(
        "const s = document.querySelector('[data-testid=default-model]');
         s.value = {model};
         s.dispatchEvent(new Event('change', {{bubbles: true}}));
         return null;",
        model = json!(model)
    ))
    .await?;
    app.find("[data-testid=default-model-saved]").await?;
    Ok(())
}

/// Settings › Approvals: sets `tool`'s policy (`""` for its default) as a
/// user's choice reaches the select, and waits for the save.
pub(crate) async fn set_approval_policy(app: &App, tool: &str, policy: &str) -> Result<()> {
    app.click("[data-testid=rail-settings]").await?;
    app.click("[data-testid=settings-approvals]").await?;
    app.find(&format!("[data-testid=approval-policy-{tool}]"))
        .await?;
    app.eval(&format!(
        "const s = document.querySelector('[data-testid=approval-policy-{tool}]');
         s.value = {policy};
         s.dispatchEvent(new Event('change', {{bubbles: true}}));
         return null;",
        policy = json!(policy)
    ))
    .await?;
    app.find(&format!(
        "[data-testid=approval-row-{tool}][data-policy='{policy}']"
    ))
    .await?;
    Ok(())
}

/// A Secret Service on the bus and a mock OpenAI-compatible server that
/// lists `gpt-4o`; each test scripts its own completions.
pub(crate) async fn openai_mock() -> Result<MockProvider> {
    secret_service::ensure()
        .map_err(|reason| anyhow!("the chat e2e test needs a Secret Service: {reason}"))?;
    let mock = MockProvider::start().await?;
    mock.set_default(
        "/v1/models",
        MockResponse::json(200, &json!({"data": [{"id": "gpt-4o"}]})),
    );
    Ok(mock)
}

/// Whether the committed messages of the feed contain every one of `texts`.
pub(crate) fn feed_has(texts: &[&str]) -> Script {
    Script::new(
        "const feed = [...document.querySelectorAll('[data-testid=message]')].map(m => m.textContent).join('\\n');
         return arguments[0].every(t => feed.includes(t));",
        vec![json!(texts)],
    )
}

pub(crate) async fn ask(app: &App, text: &str) -> Result<()> {
    let input = app.find("[data-testid=composer-input]").await?;
    input.send_keys(text).await?;
    input.send_keys(ENTER).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_streams_an_answer_that_is_kept() -> Result<()> {
    let mock = openai_mock().await?;
    mock.set_default("/v1/chat/completions", sse::openai_chat_text(ANSWER));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;

    let app = App::start(&sandbox, "chat").await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        app.find("[data-testid=welcome]").await?;
        // What was typed can be undone until it is sent; then the page's
        // undo history, which WebKit would keep for the page's life, is gone.
        let input = app.find("[data-testid=composer-input]").await?;
        input.send_keys(QUESTION).await?;
        app.wait_for_value(UNDO_ENABLED, &json!(true)).await?;
        input.send_keys(ENTER).await?;
        app.wait_for_value(&feed_has(&[QUESTION, ANSWER]), &json!(true))
            .await?;
        app.wait_for_value(UNDO_ENABLED, &json!(false)).await?;
        // The run ended: Send is back, the composer is empty.
        app.find("[data-testid=composer-send]").await?;
        app.wait_for_value(
            "return document.querySelector('[data-testid=composer-input]').value",
            &json!(""),
        )
        .await?;
        Ok(())
    })
    .await?;

    let app = App::start(&sandbox, "chat-restart").await?;
    app.run(async |app| {
        app.click("[data-testid=thread-row] .thread__main").await?;
        app.wait_for_value(&feed_has(&[QUESTION, ANSWER]), &json!(true))
            .await?;
        Ok(())
    })
    .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approval_card_edits_write_file_and_a_401_asks_for_the_key() -> Result<()> {
    let mock = openai_mock().await?;
    let completions = "/v1/chat/completions";
    mock.push_for(
        completions,
        sse::openai_chat_tool_call(
            "call_1",
            "write_file",
            &json!({"file_path": "/report.md", "content": "# Report\nAll good.\n"}),
        ),
    );
    // The answer after the approval, and the automatic title requests.
    mock.set_default(completions, sse::openai_chat_text("The report is written."));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;

    let app = App::start(&sandbox, "chat-approval").await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        // Writes to the thread's own files do not ask unless the policy says so.
        set_approval_policy(app, "write_file", "ask").await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        ask(app, "Write a short report").await?;
        let card = app.text("[data-testid=approval-card]").await?;
        anyhow::ensure!(
            card.contains("Write file") && card.contains("/report.md"),
            "the approval card shows {card:?}"
        );
        // A message while the card waits is queued behind the decision: no
        // run of its own, and the thread stays in Action.
        ask(app, QUEUED).await?;
        app.wait_for_value(
            "const n = document.querySelector('[data-testid=queue-note]'); return n && n.textContent",
            &json!("Sends after your decision"),
        )
        .await?;
        app.wait_for_value(
            "const c = document.querySelector('[data-testid=queued-message] .chip__text'); return c && c.textContent",
            &json!(QUEUED),
        )
        .await?;
        app.wait_for_value(
            "const c = document.querySelector('[data-testid=count-action]'); return c && c.textContent",
            &json!("1"),
        )
        .await?;
        app.find("[data-testid=approval-card]").await?;
        // Edit in the fields view: change the content, revert, change again.
        app.click("[data-testid=approval-card] [data-testid=edit]")
            .await?;
        let content = app.find("[data-testid=edit-field-content]").await?;
        content.clear().await?;
        content.send_keys("Changed my mind").await?;
        app.click("[data-testid=edit-revert]").await?;
        app.wait_for_value(
            "return document.querySelector('[data-testid=edit-field-content]').value",
            &json!("# Report\nAll good.\n"),
        )
        .await?;
        let content = app.find("[data-testid=edit-field-content]").await?;
        content.clear().await?;
        content.send_keys("Edited by hand.").await?;
        app.click("[data-testid=edit-save]").await?;
        // The decided run answers, then the queued message runs and answers.
        app.wait_for_value(
            &format!(
                "const feed = [...document.querySelectorAll('[data-testid=message]')].map(m => m.textContent);
                 return feed.some(t => t.includes({queued}))
                     && feed.filter(t => t.includes('The report is written.')).length >= 2
                     && document.querySelectorAll('[data-testid=queued-message]').length === 0;",
                queued = json!(QUEUED)
            ),
            &json!(true),
        )
        .await?;
        app.find("[data-testid=composer-send]").await?;
        // The automatic title request goes first; the next request is the run's.
        let titled = || {
            mock.requests().iter().any(|r| {
                r.path == completions
                    && String::from_utf8_lossy(&r.body).contains("Write a title of 2 to 6 words")
            })
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !titled() {
            anyhow::ensure!(std::time::Instant::now() < deadline, "no title request");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        mock.push_for(
            completions,
            MockResponse::json(401, &json!({"error": {"message": "bad key"}})),
        );
        ask(app, "And once more").await?;
        app.find("[data-testid=run-error][data-code=AUTH_EXPIRED]")
            .await?;
        app.click("[data-testid=run-error-action]").await?;
        app.find("[data-testid=settings-providers]").await?;
        Ok(())
    })
    .await?;

    // The approved write is in the thread's files, as committed by the run.
    let store = pizza_store::Store::open(sandbox.data_root()).await?;
    let threads = store
        .list_threads(&pizza_store::ThreadQuery::default())
        .await?;
    let thread = threads
        .threads
        .first()
        .ok_or_else(|| anyhow!("no thread"))?;
    let state = store.state(&thread.id, None).await?;
    let report = state
        .files
        .get("/report.md")
        .ok_or_else(|| anyhow!("no /report.md in {:?}", state.files.keys()))?;
    anyhow::ensure!(report.content == "Edited by hand.", "{:?}", report.content);
    store.close().await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_ends_a_streaming_answer() -> Result<()> {
    let mock = openai_mock().await?;
    // A stream that starts an answer and then stalls until it is stopped.
    let chunk = json!({
        "id": "chatcmpl-stop", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4o",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Partial answer "}, "finish_reason": null}]
    });
    mock.push_for(
        "/v1/chat/completions",
        MockResponse::sse([format!("data: {chunk}\n\n")]).hang(),
    );
    mock.set_default("/v1/chat/completions", sse::openai_chat_text("A title"));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;

    let app = App::start(&sandbox, "chat-stop").await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        ask(app, "Tell me everything").await?;
        app.wait_for_value(
            "const t = document.querySelector('[data-testid=streaming-text]'); return !!t && t.textContent.includes('Partial answer')",
            &json!(true),
        )
        .await?;
        app.click("[data-testid=composer-stop]").await?;
        // Stopped: Send is back, nothing streams, and a user's stop is no error.
        app.find("[data-testid=composer-send]").await?;
        app.wait_for_value(
            "return !document.querySelector('[data-testid=streaming-message]') && !document.querySelector('[data-testid=run-error]')",
            &json!(true),
        )
        .await?;
        // What streamed before the stop stays in the thread, marked stopped.
        app.wait_for_value(
            &feed_has(&["Tell me everything", "Partial answer", "Stopped:"]),
            &json!(true),
        )
        .await?;
        Ok(())
    })
    .await
}

/// A 5,000-token answer arriving at 200 tokens/s: prints the frame intervals
/// the webview achieved while it streamed (a figure, not a pass/fail timing).
#[tokio::test(flavor = "multi_thread")]
async fn a_long_answer_streams_frame_by_frame() -> Result<()> {
    let mock = openai_mock().await?;
    // 5,000 one-word tokens in paragraphs of 50, then a marker.
    let mut answer = String::new();
    for i in 0..5_000 {
        answer.push_str(&format!("word{i}"));
        answer.push_str(if i % 50 == 49 { "\n\n" } else { " " });
    }
    answer.push_str("THE-END");
    mock.push_for(
        "/v1/chat/completions",
        sse::openai_chat_text(&answer)
            .with_delay_between_chunks(std::time::Duration::from_millis(5)),
    );
    mock.set_default("/v1/chat/completions", sse::openai_chat_text("A title"));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;

    let app = App::start(&sandbox, "chat-frames").await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        app.find("[data-testid=composer-input]").await?;
        // The webview's own cadence with nothing to do, for comparison.
        let idle = app
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 const f = []; let last = performance.now(); const end = last + 5000;
                 const tick = (t) => { f.push(t - last); last = t;
                   if (t < end) { requestAnimationFrame(tick); } else { f.sort((a, b) => a - b); done([f[Math.floor(f.length / 2)], f[Math.floor(f.length * 0.95)], f[f.length - 1], f.filter((x) => x > 50).length, f.length]); } };
                 requestAnimationFrame(tick);",
                vec![],
            )
            .await?;
        crate::harness::report(&format!(
            "idle animation-frame interval in this webview: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms, {} of {} frames over 50 ms",
            idle[0].as_f64().unwrap_or(-1.0),
            idle[1].as_f64().unwrap_or(-1.0),
            idle[2].as_f64().unwrap_or(-1.0),
            idle[3],
            idle[4]
        ));
        app.eval(
            // Frames are counted from the first streamed text on: what is
            // measured is rendering the answer, not starting the run.
            "window.__frames = []; window.__slow = []; window.__stop = false;
             let last = performance.now(); let start = null;
             const tick = (t) => {
               const text = document.querySelector('[data-testid=streaming-text]');
               if (start === null && text && text.textContent.length > 0) { start = t; }
               else if (start !== null) {
                 window.__frames.push(t - last);
                 if (t - last > 50) { window.__slow.push([Math.round(t - start), Math.round(t - last)]); }
               }
               last = t;
               if (!window.__stop) requestAnimationFrame(tick);
             };
             requestAnimationFrame(tick);
             return true",
        )
        .await?;
        ask(app, "Write at length").await?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
        loop {
            let done = app.eval(&feed_has(&["THE-END"])).await?;
            if done == json!(true) {
                break;
            }
            anyhow::ensure!(std::time::Instant::now() < deadline, "the long answer never completed");
            // Seldom: every WebDriver script call also costs the page a frame.
            tokio::time::sleep(std::time::Duration::from_secs(5)).await;
        }
        let stats = app
            .eval(
                "window.__stop = true;
                 const f = window.__frames.slice().sort((a, b) => a - b);
                 const p = (q) => f[Math.min(f.length - 1, Math.floor(q * f.length))];
                 return [f.length, p(0.5), p(0.95), f[f.length - 1], f.filter((x) => x > 50).length,
                         JSON.stringify(window.__slow.slice(0, 12))];",
            )
            .await?;
        crate::harness::report(&format!(
            "5,000-token answer at 200 tokens/s: {} frames, interval p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms, {} frames over 50 ms (first, as [ms into the answer, interval]: {})",
            stats[0],
            stats[1].as_f64().unwrap_or(-1.0),
            stats[2].as_f64().unwrap_or(-1.0),
            stats[3].as_f64().unwrap_or(-1.0),
            stats[4],
            stats[5].as_str().unwrap_or("?")
        ));
        Ok(())
    })
    .await
}
