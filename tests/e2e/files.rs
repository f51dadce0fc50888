//! Settings › Files and a run that uses a granted folder: read it, be
//! refused a write while it is read-only, allow changes, then a write
//! approved with "Always allow" lands on disk, the next run's write there
//! does not ask, and an edit's approval card shows its diff.

use crate::chat::{ask, configure_provider, openai_mock};
use crate::harness::{App, Sandbox};
use anyhow::{Result, bail};
use pizza_test_support::mock_provider::sse;
use serde_json::json;
use std::time::{Duration, Instant};

const COMPLETIONS: &str = "/v1/chat/completions";
const NOTES: &str = "Buy flour, basil and mozzarella.";

/// Whether a tool card of the feed (error cards when `error`) contains every
/// one of `texts`.
fn tool_card_has(texts: &[&str], error: bool) -> String {
    let selector = if error {
        ".tool.tool--error"
    } else {
        ".tool:not(.tool--error)"
    };
    format!(
        "const cards = [...document.querySelectorAll('{selector}')].map(c => c.textContent);
         return cards.some(c => {}.every(t => c.includes(t)));",
        serde_json::to_string(texts).unwrap_or_default()
    )
}

/// Approves the one pending approval card.
async fn approve(app: &App, path: &str) -> Result<()> {
    let card = app.text("[data-testid=approval-card]").await?;
    anyhow::ensure!(card.contains(path), "the approval card shows {card:?}");
    app.click("[data-testid=approval-card] [data-testid=approve]")
        .await
}

/// Polls until `done` holds; a deadline, not a wait.
async fn until(what: &str, done: impl Fn() -> bool) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        if Instant::now() > deadline {
            bail!("timed out waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_granted_folder_is_read_refused_a_write_then_written_once_allowed() -> Result<()> {
    let mock = openai_mock().await?;
    let read = json!({"file_path": "/local/notes/notes.txt"});
    let refused = json!({"file_path": "/local/notes/plan.md", "content": "refused"});
    mock.push_for(
        COMPLETIONS,
        sse::openai_chat_tool_call("call_read", "read_file", &read),
    );
    mock.push_for(
        COMPLETIONS,
        sse::openai_chat_tool_call("call_w1", "write_file", &refused),
    );
    // Answers after the tools, and the automatic title request.
    mock.set_default(COMPLETIONS, sse::openai_chat_text("Done with the notes."));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;
    let folder = sandbox.path().join("notes");
    std::fs::create_dir_all(&folder)?;
    std::fs::write(folder.join("notes.txt"), NOTES)?;
    let folder = std::fs::canonicalize(folder)?;

    let app = App::start(&sandbox, "files").await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=settings-files]").await?;
        app.find("[data-testid=grants-empty]").await?;
        app.find("[data-testid=grants-path]")
            .await?
            .send_keys(&folder.display().to_string())
            .await?;
        app.click("[data-testid=grants-add-path]").await?;
        app.find("[data-testid=grant-notes][data-access=read_only]")
            .await?;
        let badge = app.text("[data-testid=grant-access-notes]").await?;
        anyhow::ensure!(badge == "Read-only", "badge {badge:?}");

        // Read it, then a write there is refused (after its approval).
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        ask(app, "What is in my notes?").await?;
        app.wait_for_value(&tool_card_has(&[NOTES], false), &json!(true))
            .await?;
        approve(app, "/local/notes/plan.md").await?;
        app.wait_for_value(
            &tool_card_has(&["read-only", "Settings › Files"], true),
            &json!(true),
        )
        .await?;
        app.find("[data-testid=composer-send]").await?;
        anyhow::ensure!(!folder.join("plan.md").exists(), "a refused write wrote");
        // Three calls of the run and the title request are done before the
        // next write is scripted, so the title request cannot take it.
        until("the first run's requests", || mock.requests().len() >= 4).await?;
        let allowed = json!({"file_path": "/local/notes/plan.md", "content": "# Plan\nPizza.\n"});
        mock.push_for(
            COMPLETIONS,
            sse::openai_chat_tool_call("call_w2", "write_file", &allowed),
        );

        // Allow changes: the confirmation says what it allows.
        app.click("[data-testid=rail-settings]").await?;
        app.click("[data-testid=settings-files]").await?;
        app.click("[data-testid=grant-toggle-notes]").await?;
        let question = app.text("[data-testid=settings-confirm]").await?;
        anyhow::ensure!(
            question.contains("create and change files") && question.contains("approval"),
            "the confirmation says {question:?}"
        );
        app.click("[data-testid=settings-confirm-ok]").await?;
        app.find("[data-testid=grant-notes][data-access=read_write]")
            .await?;
        let badge = app.text("[data-testid=grant-access-notes]").await?;
        anyhow::ensure!(badge == "Read & write", "badge {badge:?}");

        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=thread-row] .thread__main").await?;
        ask(app, "Write the plan").await?;
        // A new file: the card shows its content.
        app.find("[data-testid=approval-card] [data-testid=approval-preview][data-kind=new_file]")
            .await?;
        let card = app.text("[data-testid=approval-card]").await?;
        anyhow::ensure!(
            card.contains("New file") && card.contains("# Plan"),
            "the approval card shows {card:?}"
        );
        app.click("[data-testid=approval-card] [data-testid=approve-always]")
            .await?;
        let plan = folder.join("plan.md");
        until("plan.md on disk", || {
            std::fs::read_to_string(&plan).is_ok_and(|c| c == "# Plan\nPizza.\n")
        })
        .await?;
        app.find("[data-testid=composer-send]").await?;
        until("the second run's requests", || mock.requests().len() >= 6).await?;

        // The next run: its write is always allowed, its edit asks with a diff.
        let list = json!({"file_path": "/local/notes/list.md", "content": "flour\n"});
        let edit = json!({
            "file_path": "/local/notes/plan.md",
            "old_string": "Pizza.",
            "new_string": "Pizza with basil."
        });
        mock.push_for(
            COMPLETIONS,
            sse::openai_chat_tool_call("call_w3", "write_file", &list),
        );
        mock.push_for(
            COMPLETIONS,
            sse::openai_chat_tool_call("call_e1", "edit_file", &edit),
        );
        ask(app, "Make a list, then improve the plan").await?;
        app.find("[data-testid=approval-card] [data-testid=approval-preview][data-kind=diff]")
            .await?;
        anyhow::ensure!(
            std::fs::read_to_string(folder.join("list.md"))? == "flour\n",
            "the always-allowed write ran before the edit asked"
        );
        let lines = app
            .eval(
                "return [...document.querySelectorAll('[data-testid=approval-card] .diff__line')]
                     .map(l => l.dataset.line + ':' + l.textContent.trimEnd());",
            )
            .await?;
        anyhow::ensure!(
            lines
                == json!([
                    "hunk:@@ -1,2 +1,2 @@",
                    "same: # Plan",
                    "del:-Pizza.",
                    "add:+Pizza with basil."
                ]),
            "the diff shows {lines}"
        );
        let requests = app
            .eval("return document.querySelectorAll('[data-testid=approval-request]').length;")
            .await?;
        anyhow::ensure!(requests == json!(1), "only the edit asks: {requests}");
        approve(app, "/local/notes/plan.md").await?;
        until("the edit on disk", || {
            std::fs::read_to_string(&plan).is_ok_and(|c| c == "# Plan\nPizza with basil.\n")
        })
        .await?;

        // Settings › Approvals shows what "Always allow" recorded.
        app.find("[data-testid=composer-send]").await?;
        app.click("[data-testid=rail-settings]").await?;
        app.click("[data-testid=settings-approvals]").await?;
        app.find("[data-testid=approval-row-write_file][data-policy=allow]")
            .await?;
        app.find("[data-testid=approval-row-edit_file][data-policy='']")
            .await?;
        Ok(())
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn memories_are_created_edited_and_deleted_in_settings() -> Result<()> {
    let sandbox = Sandbox::new()?;
    let memories = sandbox.data_root().join("memories");
    let app = App::start(&sandbox, "memory").await?;
    app.run(async |app| {
        app.click("[data-testid=rail-settings]").await?;
        app.click("[data-testid=settings-memory]").await?;
        // Off by default, and the page says what that means.
        app.find("[data-testid=memory-off]").await?;
        app.find("[data-testid=memory-empty]").await?;

        app.click("[data-testid=memory-new]").await?;
        app.find("[data-testid=memory-name]")
            .await?
            .send_keys("pizza.md")
            .await?;
        app.find("[data-testid=memory-content]")
            .await?
            .send_keys("Prefers thin crust.")
            .await?;
        app.click("[data-testid=memory-save]").await?;
        let row = app.text("[data-testid='memory-pizza.md']").await?;
        anyhow::ensure!(row.contains("Prefers thin crust."), "row {row:?}");
        anyhow::ensure!(
            std::fs::read_to_string(memories.join("pizza.md"))? == "Prefers thin crust.",
            "the file on disk"
        );

        app.click("[data-testid=memory-enabled]").await?;
        app.wait_for_value(
            "return document.querySelector('[data-testid=memory-off]') === null",
            &json!(true),
        )
        .await?;

        app.click("[data-testid='memory-pizza.md'] [aria-label='Delete pizza.md']")
            .await?;
        app.click("[data-testid=settings-confirm-ok]").await?;
        app.find("[data-testid=memory-empty]").await?;
        anyhow::ensure!(!memories.join("pizza.md").exists(), "deleted on disk");
        Ok(())
    })
    .await?;
    let store = pizza_store::Store::open(sandbox.data_root()).await?;
    let enabled: bool = store.setting("memory.enabled").await?;
    store.close().await;
    anyhow::ensure!(enabled, "the memory switch was saved");
    Ok(())
}
