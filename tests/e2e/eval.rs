//! A scripted model runs a program with `eval`: the app's own binary serves
//! it as the worker, the program reads the thread's files through a bridge,
//! and the tool card shows the program and its result.

use crate::chat::{ask, configure_provider, openai_mock};
use crate::harness::{App, Sandbox};
use anyhow::Result;
use pizza_test_support::mock_provider::sse;
use serde_json::json;

const COMPLETIONS: &str = "/v1/chat/completions";
const PROGRAM: &str = "await tools.writeFile({ file_path: '/toppings.md', content: 'basil\\nmozzarella\\nbasil\\n' });\n\
const page = await tools.readFile('/toppings.md');\n\
const counts = {};\n\
for (const t of page.split('\\n').filter(Boolean)) counts[t] = (counts[t] || 0) + 1;\n\
console.log('distinct', Object.keys(counts).length);\n\
return counts;";

/// A script: whether some tool card of the feed contains every one of `texts`.
fn cards_with(texts: &[&str]) -> String {
    format!(
        "const cards = [...document.querySelectorAll('.tool')].map(c => c.textContent);
         return cards.some(c => {}.every(t => c.includes(t)));",
        serde_json::to_string(texts).unwrap_or_default()
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_program_runs_and_its_card_shows_the_code_and_the_result() -> Result<()> {
    let mock = openai_mock().await?;
    mock.push_for(
        COMPLETIONS,
        sse::openai_chat_tool_call("call_eval", "eval", &json!({ "code": PROGRAM })),
    );
    mock.set_default(
        COMPLETIONS,
        sse::openai_chat_text("Basil twice, mozzarella once."),
    );
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;
    let app = App::start(&sandbox, "eval").await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        ask(app, "Count the toppings").await?;
        // Live, the call and its result share a card; once stored, they are
        // two cards: either way one shows the program, one its result.
        app.wait_for_value(
            &cards_with(&["Program", "const counts = {};"]),
            &json!(true),
        )
        .await?;
        app.wait_for_value(
            &cards_with(&["\"basil\": 2", "Console output:", "distinct 2"]),
            &json!(true),
        )
        .await?;
        app.wait_for_value(
            "return document.body.textContent.includes('Basil twice, mozzarella once.');",
            &json!(true),
        )
        .await?;
        Ok(())
    })
    .await
}
