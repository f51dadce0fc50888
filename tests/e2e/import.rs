//! Import through the window: a thread Pizza Bot exported as JSON Lines and
//! a ChatGPT `conversations.json`, each chosen in the (answered) open
//! dialog, previewed, imported and shown; a bad line is refused by number.

use crate::chat::feed_has;
use crate::harness::{App, Sandbox};
use anyhow::{Result, ensure};
use fantoccini::Locator;
use serde_json::json;

/// A thread as `thread_export` writes it: a question, a tool call, its
/// result and the answer.
fn jsonl_export() -> String {
    [
        json!({"id": "m1", "seq": 1, "role": "user", "created_at": 1_700_000_000_000_i64,
               "parts": [{"type": "text", "text": "What toppings are in my notes?"}]}),
        json!({"id": "m2", "seq": 2, "role": "assistant", "created_at": 1_700_000_001_000_i64,
               "parts": [{"type": "tool_call", "id": "c1", "name": "read_file",
                          "arguments": {"file_path": "/notes.txt"}}]}),
        json!({"id": "m3", "seq": 3, "role": "tool", "created_at": 1_700_000_002_000_i64,
               "parts": [{"type": "tool_result", "call_id": "c1",
                          "content": "pepperoni and basil", "is_error": false}]}),
        json!({"id": "m4", "seq": 4, "role": "assistant", "created_at": 1_700_000_003_000_i64,
               "parts": [{"type": "text", "text": "Your notes list pepperoni and basil."}]}),
    ]
    .iter()
    .map(|line| format!("{line}\n"))
    .collect()
}

/// Two ChatGPT conversations; the first had its question edited, and only
/// the branch ending at `current_node` is kept.
fn chatgpt_export() -> String {
    let message = |role: &str, text: &str, at: f64| {
        json!({"author": {"role": role}, "create_time": at, "metadata": {},
               "content": {"content_type": "text", "parts": [text]}})
    };
    json!([
        {"title": "Oven temperature", "create_time": 1_690_000_000.0, "update_time": 1_690_000_100.0,
         "current_node": "a2", "mapping": {
            "root": {"parent": null, "children": ["q1", "q2"], "message": null},
            "q1": {"parent": "root", "children": ["a1"], "message": message("user", "Abandoned question", 1_690_000_001.0)},
            "a1": {"parent": "q1", "children": [], "message": message("assistant", "Abandoned answer", 1_690_000_002.0)},
            "q2": {"parent": "root", "children": ["a2"], "message": message("user", "How hot should the oven be?", 1_690_000_010.0)},
            "a2": {"parent": "q2", "children": [], "message": message("assistant", "As hot as it goes, about 280 °C.", 1_690_000_011.0)}
         }},
        {"title": "Basil storage", "create_time": 1_680_000_000.0, "update_time": 1_680_000_050.0,
         "current_node": "b", "mapping": {
            "a": {"parent": null, "children": ["b"], "message": message("user", "How do I keep basil fresh?", 1_680_000_001.0)},
            "b": {"parent": "a", "children": [], "message": message("assistant", "In water, like flowers.", 1_680_000_002.0)}
         }}
    ])
    .to_string()
}

fn row(title: &str) -> String {
    format!(
        "//div[@data-testid='thread-row'][.//span[@data-testid='thread-title' and normalize-space()='{title}']]"
    )
}

/// "Import…", then the preview of the file the dialog answers with.
async fn open_preview(app: &App, format: &str, count: &str) -> Result<()> {
    app.click("[data-testid=import-threads]").await?;
    app.find("[data-testid=import-dialog]").await?;
    let shown = app.text("[data-testid=import-format]").await?;
    ensure!(shown.contains(format), "the preview says {shown:?}");
    let counted = app.text("[data-testid=import-count]").await?;
    ensure!(counted.contains(count), "the preview counts {counted:?}");
    Ok(())
}

/// The preview's rows as text (WebDriver's visible text leaves out the
/// clipped title spans).
async fn preview_rows(app: &App) -> Result<String> {
    let text = app
        .eval("const e = document.querySelector('[data-testid=import-list]'); return e && e.textContent")
        .await?;
    Ok(text.as_str().unwrap_or_default().to_owned())
}

async fn pane_title(app: &App) -> Result<String> {
    app.text("[data-testid=thread-pane-title]").await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_jsonl_export_and_a_chatgpt_export_become_threads() -> Result<()> {
    let sandbox = Sandbox::new()?;
    let file = sandbox.open_dialog_answer();
    let app = App::start(&sandbox, "import").await?;
    app.run(async |app| {
        // A broken line: refused by its number, nothing imported.
        std::fs::write(&file, format!("{}{{\"role\": \n", jsonl_export()))?;
        app.click("[data-testid=import-threads]").await?;
        let refused = app.text("[data-testid=import-error]").await?;
        ensure!(refused.contains("line 5"), "the error says {refused:?}");
        ensure!(app.client.find(Locator::Css("[data-testid=thread-row]")).await.is_err());

        // The Pizza Bot export: one thread, titled by its file's name.
        std::fs::write(&file, jsonl_export())?;
        open_preview(app, "Pizza Bot", "1 conversation").await?;
        let listed = preview_rows(app).await?;
        ensure!(listed.contains("to-open") && listed.contains("4 messages"), "the preview lists {listed:?}");
        app.click("[data-testid=import-confirm]").await?;
        let done = app.text("[data-testid=import-done]").await?;
        ensure!(done.contains("Imported 1 conversation"), "{done:?}");
        app.wait_for_value(
            &feed_has(&["What toppings are in my notes?", "Your notes list pepperoni and basil."]),
            &json!(true),
        )
        .await?;
        app.wait_for_value(
            "return [...document.querySelectorAll('[data-testid=feed] .tool')].map(t => t.textContent).join(' ').includes('pepperoni and basil')",
            &json!(true),
        )
        .await?;
        app.retrying(async || {
            ensure!(pane_title(app).await? == "to-open");
            Ok(())
        })
        .await?;

        // The ChatGPT export: two threads with their titles, the first opened.
        std::fs::write(&file, chatgpt_export())?;
        open_preview(app, "ChatGPT", "2 conversations").await?;
        let listed = preview_rows(app).await?;
        ensure!(
            listed.contains("Oven temperature") && listed.contains("Basil storage"),
            "the preview lists {listed:?}"
        );
        app.click("[data-testid=import-confirm]").await?;
        app.wait_for_value(
            &feed_has(&["How hot should the oven be?", "As hot as it goes, about 280 °C."]),
            &json!(true),
        )
        .await?;
        app.wait_for_value(&feed_has(&["Abandoned"]), &json!(false)).await?;
        app.retrying(async || {
            ensure!(pane_title(app).await? == "Oven temperature");
            Ok(())
        })
        .await?;
        // Both land in the inbox, read, and open like any thread.
        app.retrying(async || {
            app.client.find(Locator::XPath(&row("Basil storage"))).await?.click().await?;
            Ok(())
        })
        .await?;
        app.wait_for_value(&feed_has(&["In water, like flowers."]), &json!(true))
            .await?;
        app.wait_for_value(
            "const e = document.querySelector('[data-testid=count-unread]'); return e && e.textContent",
            &json!("0"),
        )
        .await?;
        Ok(())
    })
    .await
}
