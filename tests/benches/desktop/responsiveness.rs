//! How quickly the page keeps up once it holds real work: a long answer
//! (markdown with headings, lists, code and tables) streamed word by word,
//! and that thread opened again from the list. The page's engine settings
//! (its JIT tiers) trade memory for this speed, so both are measured.

use crate::chat;
use crate::figures::Figures;
use crate::harness::App;
use anyhow::{Result, bail};
use pizza_test_support::mock_provider::{MockProvider, sse};
use serde_json::json;
use std::time::{Duration, Instant};

const QUESTION: &str = "Write the long plan";
/// The title the mock gives the long thread, to find its row by.
const TITLE: &str = "The long plan";
/// The last block of the long answer: a code block in a language of its
/// own, so the page can look for it cheaply on every frame.
const LAST_BLOCK: &str = "code.language-planend";

/// ~60 KB of markdown: 40 sections, each a heading, a paragraph, a list and
/// a code block, with a table every fifth section.
fn long_answer() -> String {
    let mut text = String::new();
    for section in 0..40 {
        text.push_str(&format!("## Part {section}: what to do next\n\n"));
        for sentence in 0..6 {
            text.push_str(&format!(
                "Sentence {sentence} of part {section} explains the step in **plain words** with `code` and a [link](https://example.com/{section}). "
            ));
        }
        text.push_str("\n\n");
        for item in 0..5 {
            text.push_str(&format!(
                "- item {item}: check the *result* of part {section}\n"
            ));
        }
        text.push_str("\n```rust\n");
        for line in 0..10 {
            text.push_str(&format!("let value_{line} = step({section}, {line});\n"));
        }
        text.push_str("```\n\n");
        if section % 5 == 0 {
            text.push_str("| step | owner | due |\n|---|---|---|\n");
            for row in 0..6 {
                text.push_str(&format!("| {row} | team {section} | day {row} |\n"));
            }
            text.push('\n');
        }
    }
    text.push_str("```planend\nthe end\n```\n");
    text
}

/// Streams the long answer into a new thread (timed from the send to the
/// committed message), then opens that thread from the list `samples`
/// times (timed in the page, from the row's click to the frame after its
/// last block is in the DOM).
pub(crate) async fn measure(
    app: &App,
    mock: &MockProvider,
    figures: &mut Figures,
    samples: usize,
) -> Result<()> {
    let answer = long_answer();
    mock.push_for("/v1/chat/completions", sse::openai_chat_text(&answer));
    mock.push_for("/v1/chat/completions", sse::openai_chat_text(TITLE));
    app.click("[data-testid=new-thread]").await?;
    app.find("[data-testid=welcome]").await?;
    let started = Instant::now();
    chat::ask(app, QUESTION).await?;
    let committed =
        format!("return !!document.querySelector('[data-testid=message] {LAST_BLOCK}');");
    app.wait_for_value(&committed, &json!(true)).await?;
    figures.ms(
        &format!(
            "long answer ({} KB) streamed: committed",
            answer.len() / 1024
        ),
        started.elapsed(),
    );
    let has_row = format!(
        "return [...document.querySelectorAll('[data-testid=thread-row]')]
             .some(r => r.textContent.includes({}));",
        serde_json::to_string(TITLE)?
    );
    app.wait_for_value(&has_row, &json!(true)).await?;
    let mut opened = Vec::new();
    for _ in 0..samples {
        app.click("[data-testid=new-thread]").await?;
        app.find("[data-testid=welcome]").await?;
        opened.push(open_from_the_list(app).await?);
    }
    opened.sort();
    let samples_ms: Vec<String> = opened.iter().map(|d| d.as_millis().to_string()).collect();
    eprintln!(
        "  open the long thread: samples {} ms",
        samples_ms.join(", ")
    );
    if let Some(median) = opened.get(opened.len() / 2) {
        figures.ms("open the long thread from the list: painted", *median);
    }
    Ok(())
}

/// Clicks the long thread's row and times, in the page, until the frame
/// after its last block is there.
async fn open_from_the_list(app: &App) -> Result<Duration> {
    let start = format!(
        "window.pizzaOpenMs = null;
         const row = [...document.querySelectorAll('[data-testid=thread-row]')]
             .find(r => r.textContent.includes({title}));
         if (!row) return false;
         const t0 = performance.now();
         const look = () => document.querySelector('[data-testid=message] {LAST_BLOCK}')
             ? requestAnimationFrame(() => {{ window.pizzaOpenMs = performance.now() - t0; }})
             : requestAnimationFrame(look);
         row.querySelector('button:not(.thread__menu-button)').click();
         requestAnimationFrame(look);
         return true;",
        title = serde_json::to_string(TITLE)?
    );
    if app.eval(&start).await? != json!(true) {
        bail!("no row for the long thread in the list");
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let value = app.eval("return window.pizzaOpenMs;").await?;
        if let Some(ms) = value.as_f64() {
            return Ok(Duration::from_secs_f64(ms / 1000.0));
        }
        if Instant::now() > deadline {
            bail!("the long thread did not open within 30 s");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
