//! What the composer and the list keep across a restart: a thread's unsent
//! draft, the prompts ↑ recalls, a thread whose first run is still going
//! listed under its first message, and an answer's sources row.

use crate::chat::{ask, configure_openai, feed_has, openai_mock};
use crate::harness::{App, Sandbox};
use anyhow::Result;
use pizza_test_support::mock_provider::MockResponse;
use serde_json::json;

const ARROW_UP: &str = "\u{E013}";
const HOME: &str = "\u{E011}";
/// Short enough to be the whole interim title (60 characters).
const WAITING: &str = "Plan a week of pizza nights for the team";
const QUESTION: &str = "When was Rome founded?";
const ANSWER: &str = "Rome was founded in 753 BC.";
const DRAFT: &str = "And what about Naples";

/// A Responses answer after a web search: one citation streams as
/// `annotation.added`, the finished message repeats it and adds one more.
const CITED_ANSWER: &str = r#"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_e2e","object":"response","status":"in_progress","model":"gpt-4o","output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_e2e","type":"message","status":"in_progress","role":"assistant","content":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_e2e","output_index":0,"content_index":0,"delta":"Rome was founded in 753 BC."}

event: response.output_text.annotation.added
data: {"type":"response.output_text.annotation.added","sequence_number":3,"item_id":"msg_e2e","output_index":0,"content_index":0,"annotation_index":0,"annotation":{"type":"url_citation","start_index":0,"end_index":27,"url":"https://en.wikipedia.org/wiki/Founding_of_Rome","title":"Founding of Rome - Wikipedia"}}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":4,"output_index":0,"item":{"id":"msg_e2e","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Rome was founded in 753 BC.","annotations":[{"type":"url_citation","start_index":0,"end_index":27,"url":"https://en.wikipedia.org/wiki/Founding_of_Rome","title":"Founding of Rome - Wikipedia"},{"type":"url_citation","start_index":0,"end_index":27,"url":"https://www.britannica.com/place/Rome","title":""}]}]}}

event: response.completed
data: {"type":"response.completed","sequence_number":5,"response":{"id":"resp_e2e","object":"response","status":"completed","output":[],"usage":{"input_tokens":30,"output_tokens":9}}}

"#;

/// The list's titles, top to bottom.
const TITLES: &str = "return [...document.querySelectorAll('[data-testid=thread-title]')]
    .map(t => t.textContent.trim())";

/// The open thread's sources row, as its chips' labels and links.
const SOURCES: &str =
    "return [...document.querySelectorAll('[data-testid=sources] [data-testid=source]')]
    .map(s => [s.textContent.trim(), s.getAttribute('href')])";

fn row_of(title: &str) -> String {
    format!(
        "//div[@data-testid='thread-row'][.//span[@data-testid='thread-title' and normalize-space()='{title}']]//button[contains(@class, 'thread__main')]"
    )
}

async fn open_row(app: &App, title: &str) -> Result<()> {
    app.retrying(async || {
        let row = app
            .client
            .find(fantoccini::Locator::XPath(&row_of(title)))
            .await?;
        row.click().await?;
        Ok(())
    })
    .await
}

const COMPOSER_VALUE: &str = "return document.querySelector('[data-testid=composer-input]').value";

#[tokio::test(flavor = "multi_thread")]
async fn drafts_history_untitled_threads_and_sources_survive_a_restart() -> Result<()> {
    let mock = openai_mock().await?;
    // The first question's answer never comes: its run is still going.
    mock.push_for(
        "/v1/responses",
        MockResponse::new(200)
            .header("content-type", "text/event-stream")
            .chunk(
                "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_wait\",\"status\":\"in_progress\",\"output\":[]}}\n\n",
            )
            .hang(),
    );
    // Every later call (the answer, its title) cites two pages.
    mock.set_default("/v1/responses", MockResponse::sse_raw(CITED_ANSWER));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;

    let app = App::start(&sandbox, "drafts").await?;
    app.run(async |app| {
        configure_openai(app, &base_url, Some("responses")).await?;
        app.click("[data-testid=rail-inbox]").await?;

        eprintln!("step: a thread whose first run is going is listed under its first message");
        app.click("[data-testid=new-thread]").await?;
        app.find("[data-testid=welcome]").await?;
        ask(app, WAITING).await?;
        app.find("[data-testid=running-dot]").await?;
        app.wait_for_value(TITLES, &json!([WAITING])).await?;

        eprintln!("step: an answer shows its sources");
        app.click("[data-testid=new-thread]").await?;
        app.find("[data-testid=welcome]").await?;
        ask(app, QUESTION).await?;
        app.wait_for_value(&feed_has(&[QUESTION, ANSWER]), &json!(true))
            .await?;
        app.wait_for_value(
            SOURCES,
            &json!([
                [
                    "Founding of Rome - Wikipedia",
                    "https://en.wikipedia.org/wiki/Founding_of_Rome"
                ],
                ["britannica.com", "https://www.britannica.com/place/Rome"]
            ]),
        )
        .await?;

        eprintln!("step: a draft is kept");
        app.find("[data-testid=composer-send]").await?;
        app.find("[data-testid=composer-input]")
            .await?
            .send_keys(DRAFT)
            .await?;
        app.find("[data-testid=composer][data-draft-stored=true]")
            .await?;
        app.wait_for_value(COMPOSER_VALUE, &json!(DRAFT)).await?;
        Ok(())
    })
    .await?;

    let app = App::start(&sandbox, "drafts-restart").await?;
    app.run(async |app| {
        eprintln!("step: after the restart");
        app.find("[data-testid=thread-row]").await?;
        let titles = app.eval(TITLES).await?;
        anyhow::ensure!(
            titles
                .as_array()
                .is_some_and(|t| t.contains(&json!(WAITING))),
            "the interrupted thread is still named by its first message: {titles}"
        );
        // The answered thread: its draft, and its sources, are back.
        let answered = app
            .eval(&format!("{TITLES}.find(t => t !== {})", json!(WAITING)))
            .await?;
        let answered = answered.as_str().unwrap_or_default().to_owned();
        open_row(app, &answered).await?;
        app.wait_for_value(&feed_has(&[QUESTION, ANSWER]), &json!(true))
            .await?;
        app.wait_for_value(COMPOSER_VALUE, &json!(DRAFT)).await?;
        let sources = app.eval(SOURCES).await?;
        anyhow::ensure!(
            sources.as_array().map(Vec::len) == Some(2),
            "the sources row is stored with the answer: {sources}"
        );

        eprintln!("step: ↑ recalls the prompts sent before the restart");
        app.click("[data-testid=new-thread]").await?;
        app.find("[data-testid=welcome]").await?;
        let input = app.find("[data-testid=composer-input]").await?;
        input.send_keys(ARROW_UP).await?;
        app.wait_for_value(COMPOSER_VALUE, &json!(QUESTION)).await?;
        // ↑ goes further back from the start of the text, as in a shell.
        // (One call: the driver puts the caret at the end of each new one.)
        input.send_keys(&format!("{HOME}{ARROW_UP}")).await?;
        app.wait_for_value(COMPOSER_VALUE, &json!(WAITING)).await?;
        Ok(())
    })
    .await
}
