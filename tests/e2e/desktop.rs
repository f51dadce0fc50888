//! The desktop around the window: the quick-ask window opened by its global
//! shortcut (a real X11 key press through `xdotool`), the question typed at
//! the keyboard at once, its streamed answer, and the thread landing in
//! Unread once the window is hidden with Esc.

use crate::chat::{configure_provider, openai_mock};
use crate::harness::{App, Sandbox};
use crate::x11;
use anyhow::{Result, bail};
use pizza_test_support::mock_provider::sse;
use serde_json::json;
use std::time::{Duration, Instant};

const QUICK_ASK_TITLE: &str = "Quick ask — Pizza Bot";
const ESCAPE: &str = "\u{E00C}";
const QUESTION: &str = "What temperature for a pizza stone?";
const ANSWER: &str = "Heat the stone to 260 °C for an hour.";
const DEADLINE: Duration = Duration::from_secs(20);

/// Presses the quick-ask shortcut until a second webview (quick-ask) is
/// listed: the shortcut is registered shortly after the window appears.
async fn open_quick_ask(app: &App) -> Result<fantoccini::wd::WindowHandle> {
    let main = app.client.window().await?;
    let deadline = Instant::now() + DEADLINE;
    loop {
        x11::press_key("ctrl+shift+space")?;
        let windows = app.client.windows().await?;
        if let Some(other) = windows.into_iter().find(|w| *w != main) {
            return Ok(other);
        }
        if Instant::now() > deadline {
            bail!("the quick-ask window did not open within {DEADLINE:?}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Does the quick-ask window's answer show `text` yet?
pub(crate) fn quick_ask_answer_has(text: &str) -> String {
    format!(
        "const a = document.querySelector('[data-testid=quick-ask-answer]');
         return !!a && a.textContent.includes({});",
        json!(text)
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn quick_ask_streams_an_answer_that_lands_in_unread() -> Result<()> {
    let mock = openai_mock().await?;
    mock.set_default("/v1/chat/completions", sse::openai_chat_text(ANSWER));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;

    let app = App::start(&sandbox, "quick-ask").await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        let main = app.client.window().await?;

        let quick = open_quick_ask(app).await?;
        // Typed at the keyboard as soon as the window shows, whether or
        // not its page can take keys yet.
        let window = x11::wait_for_window(QUICK_ASK_TITLE, &app.processes()).await?;
        x11::type_in(window, QUESTION)?;
        app.client.switch_to_window(quick).await?;
        app.wait_for_value(&quick_ask_answer_has(ANSWER), &json!(true))
            .await?;
        app.find("[data-testid=quick-ask-input]")
            .await?
            .send_keys(ESCAPE)
            .await?;

        app.client.switch_to_window(main).await?;
        app.click("[data-testid=view-unread]").await?;
        app.wait_for_value(
            "return document.querySelectorAll('[data-testid=thread-row]').length",
            &json!(1),
        )
        .await?;
        app.click("[data-testid=thread-row] .thread__main").await?;
        app.wait_for_value(
            &format!(
                "const feed = [...document.querySelectorAll('[data-testid=message]')].map(m => m.textContent).join('\\n');
                 return feed.includes({}) && feed.includes({});",
                json!(QUESTION),
                json!(ANSWER)
            ),
            &json!(true),
        )
        .await?;
        Ok(())
    })
    .await
}
