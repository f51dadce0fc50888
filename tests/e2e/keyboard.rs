//! The keyboard shortcuts, pressed as a person presses them (WebDriver key
//! actions, not synthetic events), and the status bar: the provider dot
//! with its first problem, and the context gauge of a thread that had a run,
//! shown from the stored thread after a restart (which lands on it).

use crate::chat::{ask, configure_provider, feed_has, openai_mock};
use crate::harness::{App, Sandbox};
use anyhow::Result;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use pizza_test_support::mock_provider::sse;
use serde_json::json;

const FIRST: &str = "Which flour for pizza?";
const SECOND: &str = "How hot should the oven be?";
const ANSWER: &str = "Tipo 00, and as hot as it goes.";

/// Ctrl held while `key` is pressed, on whatever has the focus.
async fn ctrl(app: &App, key: char) -> Result<()> {
    let keys = KeyActions::new("keyboard".to_owned())
        .then(KeyAction::Down {
            value: Key::Control.into(),
        })
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key })
        .then(KeyAction::Up {
            value: Key::Control.into(),
        });
    app.client.perform_actions(keys).await?;
    Ok(())
}

/// The id of the selected thread's row.
fn selected_row() -> &'static str {
    "const row = document.querySelector('[data-testid=thread-row].thread--selected');
     return row && row.getAttribute('data-thread-id');"
}

fn row_id(index: usize) -> String {
    format!(
        "const rows = document.querySelectorAll('[data-testid=thread-row]');
         return rows.length > {index} ? rows[{index}].getAttribute('data-thread-id') : null;"
    )
}

/// The gauge's tooltip: the stored or live tokens of the last model call.
const GAUGE: &str = "const g = document.querySelector('[data-testid=context-gauge]');
                     return g && g.getAttribute('title');";
const PROVIDERS: &str = "const p = document.querySelector('[data-testid=status-providers]');
                         return p && [p.getAttribute('data-health'), p.textContent.trim()];";

#[tokio::test(flavor = "multi_thread")]
async fn shortcuts_switch_threads_and_the_status_bar_tells_what_stands() -> Result<()> {
    let mock = openai_mock().await?;
    mock.set_default("/v1/chat/completions", sse::openai_chat_text(ANSWER));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;

    let app = App::start(&sandbox, "keyboard").await?;
    app.run(async |app| {
        // No provider yet: the status bar says so, and takes you to set one up.
        app.wait_for_value(PROVIDERS, &json!(["error", "No model provider is set up"]))
            .await?;
        app.click("[data-testid=status-providers]").await?;
        app.find("[data-testid=provider-row-openai]").await?;
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.wait_for_value(PROVIDERS, &json!(["ready", "Providers ok"]))
            .await?;

        // Ctrl+N: a new thread, from anywhere; each gets a run.
        app.click("[data-testid=rail-settings]").await?;
        ctrl(app, 'n').await?;
        app.find("[data-testid=welcome]").await?;
        ask(app, FIRST).await?;
        app.wait_for_value(&feed_has(&[FIRST, ANSWER]), &json!(true))
            .await?;
        // The live call's usage fills the gauge.
        app.find("[data-testid=context-gauge]").await?;
        ctrl(app, 'n').await?;
        app.find("[data-testid=welcome]").await?;
        ask(app, SECOND).await?;
        app.wait_for_value(&feed_has(&[SECOND, ANSWER]), &json!(true))
            .await?;
        app.find("[data-testid=composer-send]").await?;

        // Ctrl+1 and Ctrl+2: the first and second thread of the list.
        for index in [1usize, 0] {
            let id = app.eval(&row_id(index)).await?;
            anyhow::ensure!(id.is_string(), "no thread row {index}");
            ctrl(app, char::from(b'1' + u8::try_from(index)?)).await?;
            app.wait_for_value(selected_row(), &id).await?;
        }

        // Ctrl+/: the shortcut list, and Ctrl+/ again hides it.
        ctrl(app, '/').await?;
        app.find("[role=dialog][aria-label='Keyboard shortcuts']").await?;
        ctrl(app, '/').await?;
        app.wait_for_value(
            "return document.querySelector(\"[role=dialog][aria-label='Keyboard shortcuts']\") === null",
            &json!(true),
        )
        .await?;
        Ok(())
    })
    .await?;

    // After a restart the window is back on the thread it showed, and
    // nothing is live: the gauge comes from the stored thread.
    let app = App::start(&sandbox, "keyboard-restart").await?;
    app.run(async |app| {
        app.find("[data-testid=thread-row]").await?;
        let id = app.eval(&row_id(0)).await?;
        app.wait_for_value(selected_row(), &id).await?;
        app.wait_for_value(&feed_has(&[ANSWER]), &json!(true))
            .await?;
        // The mock reports 12 input and 7 output tokens.
        let title = app
            .retrying(async || {
                let title = app.eval(GAUGE).await?;
                title
                    .as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| anyhow::anyhow!("no gauge yet"))
            })
            .await?;
        anyhow::ensure!(title.starts_with("19 of "), "the gauge says {title:?}");
        Ok(())
    })
    .await
}
