//! Settings › About › Logs: the viewer over the app's own log files finds
//! what the app logged as it started, its search and level filter narrow
//! it, and the diagnostics name the versions and never a key.

use crate::chat::{configure_provider, openai_mock};
use crate::harness::{App, Sandbox};
use anyhow::{Result, ensure};
use serde_json::json;

/// The visible log lines' text.
const LINES: &str =
    "return [...document.querySelectorAll('[data-testid=log-line]')].map(l => l.textContent);";

/// Whether the viewer shows lines and every one contains `text`.
fn all_lines_contain(text: &str) -> String {
    format!(
        "const lines = [...document.querySelectorAll('[data-testid=log-line]')].map(l => l.textContent);
         return lines.length > 0 && lines.every(l => l.includes({text}));",
        text = json!(text)
    )
}

/// Chooses `value` in the level select as a person's choice reaches it.
fn choose_level(value: &str) -> String {
    format!(
        "const s = document.querySelector('[data-testid=logs-level]');
         s.value = {value};
         s.dispatchEvent(new Event('change', {{bubbles: true}}));
         return null;",
        value = json!(value)
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_logs_viewer_finds_what_the_app_logged_at_start() -> Result<()> {
    let mock = openai_mock().await?;
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;
    let app = App::start(&sandbox, "logs").await?;
    app.run(async |app| {
        // A key the app holds, which nothing may show.
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=settings-about]").await?;
        app.find("[data-testid=logs-lines]").await?;
        let dir = app.text("[data-testid=logs-dir]").await?;
        ensure!(
            dir == sandbox.data_root().join("logs").display().to_string(),
            "the viewer reads {dir:?}"
        );

        // The startup line is there; the newest line is last.
        app.retrying(async || {
            app.click("[data-testid=logs-refresh]").await?;
            let lines = app.eval(LINES).await?;
            let has = lines
                .as_array()
                .is_some_and(|l| l.iter().any(|l| l.as_str().is_some_and(|l| l.contains("starting Pizza Bot"))));
            ensure!(has, "no startup line in {lines}");
            Ok(())
        })
        .await?;

        let search = app.find("[data-testid=logs-search]").await?;
        search.send_keys("starting pizza").await?;
        app.wait_for_value(&all_lines_contain("starting Pizza Bot"), &json!(true))
            .await?;
        // Errors only: the clean start logged none.
        app.eval(&choose_level("error")).await?;
        app.find("[data-testid=logs-empty]").await?;
        app.eval(&choose_level("info")).await?;
        app.wait_for_value(&all_lines_contain("starting Pizza Bot"), &json!(true))
            .await?;
        search.clear().await?;
        search.send_keys("no such line anywhere").await?;
        app.find("[data-testid=logs-empty]").await?;

        app.click("[data-testid=logs-copy-diagnostics]").await?;
        let diagnostics = app
            .retrying(async || {
                let text = app
                    .eval("const d = document.querySelector('[data-testid=logs-diagnostics]'); return d && d.value;")
                    .await?;
                text.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| anyhow::anyhow!("no diagnostics yet"))
            })
            .await?;
        ensure!(
            diagnostics.starts_with(&format!("Pizza Bot {}", env!("CARGO_PKG_VERSION")))
                && diagnostics.contains("Web engine: WebKitGTK ")
                && diagnostics.contains(": ready"),
            "diagnostics: {diagnostics}"
        );
        ensure!(
            !diagnostics.contains("sk-e2e") && !diagnostics.contains(&mock.url()),
            "diagnostics show a key or URL: {diagnostics}"
        );
        Ok(())
    })
    .await
}
