//! The thread's History and Files panels: a thread of two turns (the first
//! writes a file through a tool), its checkpoints, the state at the end of
//! the first turn (only its messages), "Fork from here" opening a thread
//! with only those messages, and that thread's file previewed and saved
//! with "Save as…".

use crate::chat::{ask, configure_provider, openai_mock};
use crate::harness::{App, Sandbox};
use anyhow::{Result, ensure};
use pizza_test_support::mock_provider::sse;
use serde_json::json;

const COMPLETIONS: &str = "/v1/chat/completions";
const FIRST: &str = "How long should dough rest?";
const SECOND: &str = "And how hot should the oven be?";
const ANSWER: &str = "Noted.";
const PLAN: &str = "# Plan\nRest the dough for two hours.\n";
const ESCAPE: &str = "\u{E00C}";

/// Whether the element at `css` exists and its text contains every one of
/// `present` and none of `absent`.
fn text_has(css: &str, present: &[&str], absent: &[&str]) -> String {
    format!(
        "const el = document.querySelector({css});
         if (!el) return false;
         const text = el.textContent;
         return {present}.every(t => text.includes(t)) && !{absent}.some(t => text.includes(t));",
        css = json!(css),
        present = json!(present),
        absent = json!(absent),
    )
}

/// How many committed messages of the feed contain `text`.
fn feed_count(text: &str) -> String {
    format!(
        "return [...document.querySelectorAll('[data-testid=feed] [data-testid=message]')]
             .filter(m => m.textContent.includes({})).length;",
        json!(text)
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn history_views_an_earlier_checkpoint_and_forks_from_it() -> Result<()> {
    let mock = openai_mock().await?;
    // The first turn writes a file, then every answer (and title) is short.
    mock.push_for(
        COMPLETIONS,
        sse::openai_chat_tool_call(
            "call_plan",
            "write_file",
            &json!({"file_path": "/plan.md", "content": PLAN}),
        ),
    );
    mock.set_default(COMPLETIONS, sse::openai_chat_text(ANSWER));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;

    let app = App::start(&sandbox, "history").await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        ask(app, FIRST).await?;
        app.wait_for_value(&feed_count(ANSWER), &json!(1)).await?;
        app.find("[data-testid=composer-send]").await?;
        ask(app, SECOND).await?;
        app.wait_for_value(&feed_count(ANSWER), &json!(2)).await?;
        app.find("[data-testid=composer-send]").await?;

        // History: the checkpoints, newest first; one says the file changed.
        app.click("[data-testid=open-history]").await?;
        app.find("[data-testid=history-panel] [data-testid=checkpoint]")
            .await?;
        app.wait_for_value(
            &text_has("[data-testid=history-panel]", &["/plan.md", ANSWER], &[]),
            &json!(true),
        )
        .await?;
        // The end of the first turn: the oldest checkpoint that answered.
        let step = app
            .eval(&format!(
                "const steps = [...document.querySelectorAll('[data-testid=history-panel] [data-testid=checkpoint]')]
                     .filter(r => (r.querySelector('.checkpoint__preview') || {{}}).textContent === {answer})
                     .map(r => Number(r.dataset.step));
                 return Math.min(...steps);",
                answer = json!(ANSWER)
            ))
            .await?;
        let step = step.as_i64().unwrap_or_default();
        ensure!(step > 1, "the first turn ends at step {step}");
        app.click(&format!(
            "[data-testid=checkpoint][data-step='{step}'] [data-testid=checkpoint-view]"
        ))
        .await?;
        // Only the first turn's messages, and the file it wrote.
        app.wait_for_value(
            &text_has("[data-testid=checkpoint-messages]", &[FIRST, ANSWER], &[SECOND]),
            &json!(true),
        )
        .await?;
        app.find("[data-testid=checkpoint-state] [data-testid=thread-file][data-path='/plan.md']")
            .await?;
        // The main feed still shows the whole thread.
        app.wait_for_value(&feed_count(SECOND), &json!(1)).await?;

        app.click("[data-testid=checkpoint-state] [data-testid=checkpoint-fork]")
            .await?;
        // The fork opens with only the first turn.
        app.wait_for_value(
            &text_has("[data-testid=thread-pane-title]", &["(fork)"], &[]),
            &json!(true),
        )
        .await?;
        app.wait_for_value(&feed_count(FIRST), &json!(1)).await?;
        app.wait_for_value(&feed_count(SECOND), &json!(0)).await?;
        app.wait_for_value(&feed_count(ANSWER), &json!(1)).await?;
        ensure!(
            app.eval("return document.querySelector('[data-testid=history-panel]') === null;")
                .await?
                == json!(true),
            "the history panel stays open over the fork"
        );

        // The fork's files: the plan, previewed, then saved where the dialog says.
        app.click("[data-testid=open-files]").await?;
        app.click("[data-testid=files-panel] [data-testid=thread-file][data-path='/plan.md']")
            .await?;
        app.wait_for_value(
            "const p = document.querySelector('[data-testid=file-preview-text]'); return p && p.textContent;",
            &json!(PLAN),
        )
        .await?;
        app.click("[data-testid=files-panel] [data-testid=file-save]")
            .await?;
        app.find("[data-testid=file-saved]").await?;
        let saved = std::fs::read_to_string(sandbox.save_dialog_answer())?;
        ensure!(saved == PLAN, "Save as wrote {saved:?}");

        // Escape closes the panel and gives the focus back to its button.
        app.find("[data-testid=files-close]")
            .await?
            .send_keys(ESCAPE)
            .await?;
        app.wait_for_value(
            "return document.querySelector('[data-testid=files-panel]') === null
                 && document.activeElement === document.querySelector('[data-testid=open-files]');",
            &json!(true),
        )
        .await?;
        Ok(())
    })
    .await
}
