//! Native notifications end to end: a recording notification server on the
//! test's session bus (the app's bus too), a run against a mock provider,
//! and a click on the notification bringing the real window to the thread —
//! also after the window was closed to the tray.

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
const FOLLOW_UP: &str = "And how hot should the oven be?";
const FOLLOW_UP_ANSWER: &str = "Bake it at 250 degrees.";
/// The tray host's bus name: owning it makes closing the window hide it.
const TRAY_WATCHER: &str = "org.kde.StatusNotifierWatcher";

/// A tray host as far as the app can tell: a StatusNotifierWatcher that
/// takes every registration. Closing the window then hides it.
struct TrayWatcher;

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl TrayWatcher {
    fn register_status_notifier_item(&self, _service: &str) {}

    fn register_status_notifier_host(&self, _service: &str) {}

    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        Vec::new()
    }
}

async fn tray_host() -> Result<zbus::Connection> {
    Ok(zbus::connection::Builder::session()?
        .serve_at("/StatusNotifierWatcher", TrayWatcher)?
        .name(TRAY_WATCHER)?
        .build()
        .await?)
}

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

        // Closed to the tray during a run: the run completes, the
        // notification comes, and its click brings the window back.
        let _tray = tray_host().await?;
        mock.push_for(
            completions,
            held(sse::openai_chat_text(FOLLOW_UP_ANSWER), ANSWER_HELD),
        );
        ask(app, FOLLOW_UP).await?;
        app.find("[data-testid=composer-stop]").await?;
        let window = x11::close_window("Pizza Bot")?;
        x11::wait_until(window, false).await?;

        let second = tokio::task::block_in_place(|| {
            server.wait_for(NOTIFICATION_TIMEOUT, |n| n.body.contains(FOLLOW_UP_ANSWER))
        })
        .map_err(|e| anyhow!(e))?;
        assert_eq!(second.summary, "Run finished");
        assert_eq!(second.body, format!("{TITLE}\n{FOLLOW_UP_ANSWER}"));
        // A hidden page runs no script for the driver: first the window.
        x11::click_until_shown(&server, second.id, window).await?;
        app.wait_for_value(&feed_has(&[FOLLOW_UP, FOLLOW_UP_ANSWER]), &json!(true))
            .await?;
        Ok(())
    })
    .await?;
    assert_eq!(
        server.notifications().len(),
        2,
        "one outcome, one notification: {:#?}",
        server.notifications()
    );
    Ok(())
}

/// The window as a window manager sees it, over the X display the app uses.
mod x11 {
    use anyhow::{Context, Result, bail};
    use std::time::{Duration, Instant};
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{
        AtomEnum, ClientMessageEvent, ConnectionExt as _, EventMask, MapState, Window,
    };
    use x11rb::rust_connection::RustConnection;

    const TIMEOUT: Duration = Duration::from_secs(20);

    fn connect() -> Result<(RustConnection, Window)> {
        let (conn, screen) = x11rb::connect(None).context("connecting to the X display")?;
        let root = conn.setup().roots[screen].root;
        Ok((conn, root))
    }

    fn atom(conn: &RustConnection, name: &str) -> Result<u32> {
        Ok(conn.intern_atom(false, name.as_bytes())?.reply()?.atom)
    }

    fn mapped(conn: &RustConnection, window: Window) -> Result<bool> {
        Ok(conn.get_window_attributes(window)?.reply()?.map_state == MapState::VIEWABLE)
    }

    /// Asks the shown top-level window titled `title` to close, as a window
    /// manager's close button does (`WM_DELETE_WINDOW`); returns it.
    pub(super) fn close_window(title: &str) -> Result<Window> {
        let (conn, root) = connect()?;
        let net_wm_name = atom(&conn, "_NET_WM_NAME")?;
        let utf8 = atom(&conn, "UTF8_STRING")?;
        let mut found = None;
        for window in conn.query_tree(root)?.reply()?.children {
            let name = conn
                .get_property(false, window, net_wm_name, utf8, 0, 256)?
                .reply()?
                .value;
            let legacy = conn
                .get_property(false, window, AtomEnum::WM_NAME, AtomEnum::STRING, 0, 256)?
                .reply()?
                .value;
            if (name == title.as_bytes() || legacy == title.as_bytes()) && mapped(&conn, window)? {
                found = Some(window);
                break;
            }
        }
        let Some(window) = found else {
            bail!("no shown window titled {title:?}");
        };
        let protocols = atom(&conn, "WM_PROTOCOLS")?;
        let delete = atom(&conn, "WM_DELETE_WINDOW")?;
        let event = ClientMessageEvent::new(32, window, protocols, [delete, 0, 0, 0, 0]);
        conn.send_event(false, window, EventMask::NO_EVENT, event)?;
        conn.flush()?;
        Ok(window)
    }

    /// Clicks notification `id` until `window` is shown again (a click in
    /// the instant after showing the notification is missed).
    pub(super) async fn click_until_shown(
        server: &super::NotificationServer,
        id: u32,
        window: Window,
    ) -> Result<()> {
        let (conn, _) = connect()?;
        let deadline = Instant::now() + TIMEOUT;
        loop {
            server.click(id).map_err(|e| anyhow::anyhow!(e))?;
            let settle = Instant::now() + Duration::from_millis(500);
            while Instant::now() < settle {
                if mapped(&conn, window)? {
                    return Ok(());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            if Instant::now() > deadline {
                bail!("clicking the notification did not show the window");
            }
        }
    }

    /// Polls until `window` is shown (`true`) or hidden.
    pub(super) async fn wait_until(window: Window, shown: bool) -> Result<()> {
        let (conn, _) = connect()?;
        let deadline = Instant::now() + TIMEOUT;
        while mapped(&conn, window)? != shown {
            if Instant::now() > deadline {
                bail!(
                    "the window is still {}",
                    if shown { "hidden" } else { "shown" }
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(())
    }
}
