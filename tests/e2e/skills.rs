//! Skills end to end: on a fresh data root the shipped guide is listed and
//! ready; a skill written in the editor is offered to the model through the
//! `task` tool; a scripted model delegates to it, and the chat shows the
//! delegation card with the subagent's tool call and its report; switched
//! off, the next request has no `task` tool at all.

use crate::chat::{ask, configure_provider, feed_has, openai_mock};
use crate::harness::{App, Sandbox};
use anyhow::{Result, ensure};
use pizza_test_support::mock_provider::{MockProvider, RecordedRequest, sse};
use serde_json::{Value, json};

const ASK: &str = "What is in the pantry?";
const REPORT: &str = "In stock: flour (2 kg), San Marzano tomatoes (6 tins).";
const AFTER: &str = "Nothing is delegated now.";

/// The tool names a chat completions request offered.
fn tools_of(request: &RecordedRequest) -> Vec<String> {
    request.json()["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn completions(mock: &MockProvider) -> Vec<RecordedRequest> {
    mock.requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .collect()
}

/// The system prompt a chat completions request sent.
fn system_of(request: &RecordedRequest) -> String {
    let body = request.json();
    match body["messages"][0]["role"].as_str() {
        Some("system") => body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        _ => String::new(),
    }
}

/// An element's whole text, shown or folded away.
pub(crate) async fn text_content(app: &App, css: &str) -> Result<String> {
    let script = format!(
        "const el = document.querySelector({}); return el ? el.textContent : null",
        json!(css)
    );
    Ok(app
        .eval(&script)
        .await?
        .as_str()
        .unwrap_or_default()
        .to_owned())
}

/// Replaces a field's value as typing does.
pub(crate) async fn fill(app: &App, testid: &str, value: &str) -> Result<()> {
    app.find(&format!("[data-testid={testid}]")).await?;
    app.eval(&format!(
        "const el = document.querySelector('[data-testid={testid}]');
         el.value = {value};
         el.dispatchEvent(new Event('input', {{bubbles: true}}));
         return null;",
        value = json!(value)
    ))
    .await?;
    Ok(())
}

fn readiness(name: &str) -> String {
    format!(
        "const el = document.querySelector('[data-testid=skill-readiness-{name}]');
         return el ? el.dataset.state : null"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_skill_written_in_the_editor_is_delegated_to_and_switched_off() -> Result<()> {
    let mock = openai_mock().await?;
    let path = "/v1/chat/completions";
    // The orchestrator delegates, the subagent looks and reports, the
    // orchestrator relays; later requests get a plain answer.
    mock.push_for(
        path,
        sse::openai_chat_tool_call("call_task", "task", &json!({"skill": "pantry", "ask": ASK})),
    );
    mock.push_for(
        path,
        sse::openai_chat_tool_call("call_ls", "ls", &json!({"path": "/"})),
    );
    mock.push_for(path, sse::openai_chat_text(REPORT));
    mock.push_for(path, sse::openai_chat_text(REPORT));
    mock.set_default(path, sse::openai_chat_text(AFTER));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;

    let app = App::start(&sandbox, "skills").await?;
    app.run(async |app| {
        // A fresh data root lists the shipped guide, ready.
        app.click("[data-testid=rail-skills]").await?;
        app.find("[data-testid=skill-card-pizza-bot-guide]").await?;
        app.wait_for_value(&readiness("pizza-bot-guide"), &json!("ready"))
            .await?;
        let source = app.text("[data-testid=skill-source-pizza-bot-guide]").await?;
        ensure!(source.contains("Built-in"), "the guide's source: {source:?}");

        // Write a skill in the editor.
        app.click("[data-testid=skill-new]").await?;
        fill(app, "skill-name", "pantry").await?;
        fill(app, "skill-display-name", "Pantry").await?;
        fill(
            app,
            "skill-description",
            "Checks what is in the pantry; returns the items in stock with amounts.",
        )
        .await?;
        fill(app, "skill-body", "You check the pantry. Look with ls, then list what is in stock.")
            .await?;
        app.click("[data-testid=skill-tool-ls]").await?;
        app.click("[data-testid=skill-save]").await?;
        app.find("[data-testid=skill-card-pantry]").await?;
        app.wait_for_value(&readiness("pantry"), &json!("ready")).await?;
        let written = std::fs::read_to_string(sandbox.data_root().join("skills/pantry/SKILL.md"))?;
        ensure!(written.contains("name: pantry") || written.contains("name: \"pantry\""), "{written}");

        // A scripted model delegates to it.
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        ask(app, ASK).await?;
        let card = "[data-testid=delegation-call_task]";
        app.find(card).await?;
        app.wait_for_value(
            &format!("return document.querySelector('{card}')?.dataset.state ?? null"),
            &json!("done"),
        )
        .await?;
        let card_text = text_content(app, card).await?;
        ensure!(card_text.contains("Asked") && card_text.contains("pantry"), "{card_text}");
        ensure!(card_text.contains(ASK), "the ask on the card: {card_text}");
        let tools = text_content(app, "[data-testid=delegation-tool-call_task]").await?;
        ensure!(
            tools.starts_with("Ls") && tools.contains("/ is empty."),
            "the subagent's tool call and its result: {tools}"
        );
        let report = text_content(app, "[data-testid=delegation-report-call_task]").await?;
        ensure!(report.contains("San Marzano"), "the report: {report}");
        app.wait_for_value(&feed_has(&[REPORT]), &json!(true)).await?;

        // The orchestrator was offered `task` over the skill; the subagent
        // got its own prompt and the ask, and no `task` of its own.
        let requests = completions(&mock);
        let root = requests
            .iter()
            .find(|r| tools_of(r).contains(&"task".to_owned()))
            .ok_or_else(|| anyhow::anyhow!("no request offered the task tool"))?;
        let task = root.json()["tools"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["function"]["name"] == "task").cloned())
            .unwrap_or(Value::Null);
        let described = task["function"]["description"].as_str().unwrap_or_default();
        ensure!(described.contains("pantry: Checks what is in the pantry"), "{described}");
        let sub = requests
            .iter()
            .find(|r| system_of(r).starts_with("You check the pantry."))
            .ok_or_else(|| anyhow::anyhow!("no request had the skill's prompt"))?;
        ensure!(!tools_of(sub).contains(&"task".to_owned()));
        ensure!(sub.json()["messages"][1]["content"] == json!(ASK), "{}", sub.json()["messages"]);

        // Switched off (the guide too), the next request has no `task` tool.
        app.click("[data-testid=rail-skills]").await?;
        for name in ["pantry", "pizza-bot-guide"] {
            app.click(&format!("[data-testid=skill-enabled-{name}]")).await?;
            app.wait_for_value(
                &format!(
                    "return document.querySelector('[data-testid=skill-enabled-{name}]')?.checked ?? null"
                ),
                &json!(false),
            )
            .await?;
        }
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        ask(app, "Anything else?").await?;
        app.wait_for_value(&feed_has(&[AFTER]), &json!(true)).await?;
        // The run's request (the one offering tools; a title request offers none).
        let run = completions(&mock)
            .into_iter()
            .filter(|r| String::from_utf8_lossy(&r.body).contains("Anything else?"))
            .find(|r| !tools_of(r).is_empty())
            .ok_or_else(|| anyhow::anyhow!("no run request for the second ask"))?;
        let offered = tools_of(&run);
        ensure!(!offered.contains(&"task".to_owned()), "tools offered: {offered:?}");
        ensure!(offered.contains(&"ls".to_owned()), "the built-in tools stay: {offered:?}");

        // Opened again later, the delegation still shows the subagent's call.
        app.eval(
            "const row = [...document.querySelectorAll('[data-testid=thread-row]')]
                .find(r => r.textContent.includes('San Marzano'));
             row.querySelector('.thread__main').click();
             return null;",
        )
        .await?;
        app.wait_for_value(
            "const el = document.querySelector('[data-testid=delegation-tool-call_task]');
             return !!el && el.textContent.includes('/ is empty.')",
            &json!(true),
        )
        .await?;
        Ok(())
    })
    .await
}
