//! Native notifications end to end: a recording notification server on the
//! test's session bus (the app's bus too), a run against a mock provider,
//! and a click on the notification bringing the real window to the thread
//! (after the window was closed to the tray: `hidden.rs`).

use crate::chat::{ask, configure_provider, feed_has, openai_mock};
use crate::harness::{App, Sandbox};
use anyhow::{Result, anyhow, bail};
use pizza_test_support::mock_provider::{Chunk, MockBody, MockResponse, sse};
use pizza_test_support::notification_server::{NotificationServer, Recorded};
use serde_json::json;
use std::time::{Duration, Instant};

const QUESTION: &str = "How long should dough rest?";
const ANSWER: &str = "Let the dough rest for two hours.";
const TITLE: &str = "Dough Resting Time";
/// How long the mock holds the answer back: time for the user to leave the
/// thread. The test never waits on it; it only has to outlast two clicks.
const ANSWER_HELD: Duration = Duration::from_secs(5);
const NOTIFICATION_TIMEOUT: Duration = Duration::from_secs(30);
/// `response` sent only after `delay`.
fn held(response: MockResponse, delay: Duration) -> MockResponse {
    let body = match response.body {
        MockBody::Full(bytes) => vec![Chunk::Delay(delay), Chunk::Data(bytes)],
        MockBody::Chunks(chunks) => std::iter::once(Chunk::Delay(delay)).chain(chunks).collect(),
    };
    MockResponse {
        body: MockBody::Chunks(body),
        ..response
    }
}

/// Waits (off the async threads) for a notification with `summary`.
async fn notification(server: &NotificationServer, summary: &str) -> Result<Recorded> {
    tokio::task::block_in_place(|| server.wait_for(NOTIFICATION_TIMEOUT, |n| n.summary == summary))
        .map_err(|e| anyhow!(e))
}

/// Clicks the notification until the window shows `expected` in its feed.
/// The app listens for the click just after showing the notification, so a
/// click sent in that instant is missed: click again until one lands.
async fn click_until_shown(
    app: &App,
    server: &NotificationServer,
    id: u32,
    expected: &[&str],
) -> Result<()> {
    let deadline = Instant::now() + NOTIFICATION_TIMEOUT;
    loop {
        server.click(id).map_err(|e| anyhow!(e))?;
        let settle = Instant::now() + Duration::from_millis(500);
        while Instant::now() < settle {
            if app.eval(&feed_has(expected)).await? == json!(true) {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if Instant::now() > deadline {
            bail!("the window did not show the clicked notification's thread");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_finished_run_is_announced_and_its_notification_opens_the_thread() -> Result<()> {
    let mock = openai_mock().await?;
    let completions = "/v1/chat/completions";
    mock.push_for(
        completions,
        held(sse::openai_chat_text(ANSWER), ANSWER_HELD),
    );
    // The automatic title after the first answer.
    mock.set_default(completions, sse::openai_chat_text(TITLE));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;

    // No notification service yet: the app says so and works on.
    let app = App::start(&sandbox, "notifications-unavailable").await?;
    app.run(async |app| {
        let hint = app.find("[data-testid=notifications-unavailable]").await?;
        assert_eq!(hint.text().await?, "Notifications unavailable");
        let title = hint.attr("title").await?.unwrap_or_default();
        assert!(title.contains("No notification service"), "{title}");
        configure_provider(app, &base_url).await?;
        Ok(())
    })
    .await?;

    let server = NotificationServer::start().map_err(|e| anyhow!(e))?;
    let app = App::start(&sandbox, "notifications").await?;
    app.run(async |app| {
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        app.find("[data-testid=welcome]").await?;
        ask(app, QUESTION).await?;
        // Leave the thread while the answer is on its way.
        app.find("[data-testid=composer-stop]").await?;
        app.click("[data-testid=rail-settings]").await?;
        app.click("[data-testid=settings-notifications]").await?;
        for toggle in ["notify-run-finished", "notify-action-required"] {
            let checked = app
                .eval(&format!(
                    "return document.querySelector('[data-testid={toggle}]').checked"
                ))
                .await?;
            assert_eq!(checked, json!(true), "{toggle} is on by default");
        }

        let shown = notification(&server, "Run finished").await?;
        assert_eq!(shown.app_name, "Pizza Bot");
        assert_eq!(shown.body, format!("{TITLE}\n{ANSWER}"));
        assert_eq!(shown.actions, vec!["default".to_owned(), "Open".to_owned()]);
        // Where a service runs, the status bar has nothing to say.
        assert_eq!(
            app.eval(
                "return document.querySelector('[data-testid=notifications-unavailable]') === null"
            )
            .await?,
            json!(true)
        );

        click_until_shown(app, &server, shown.id, &[QUESTION, ANSWER]).await?;
        assert_eq!(app.text("[data-testid=thread-pane-title]").await?, TITLE);

        Ok(())
    })
    .await?;
    assert_eq!(
        server.notifications().len(),
        1,
        "one outcome, one notification: {:#?}",
        server.notifications()
    );
    Ok(())
}
