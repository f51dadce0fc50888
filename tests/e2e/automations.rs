//! The Automations page end to end: a schedule made in the editor (its cron
//! checked as it is typed, a refused field named beside it, nothing typed
//! lost); then, with a provider against a mock server, automations switched
//! on with start at login (the XDG autostart entry written), Run now
//! starting a thread that lands in Unread with a notification, a webhook
//! made in the editor and fired with `curl`, and an every-minute schedule
//! that still fires once the window is closed to the tray.

use crate::chat::{configure_provider, feed_has, openai_mock};
use crate::harness::{App, Sandbox};
use crate::x11;
use anyhow::{Context, Result, anyhow, bail, ensure};
use pizza_test_support::mock_provider::{MockProvider, sse};
use pizza_test_support::notification_server::NotificationServer;
use pizza_test_support::tray_watcher::TrayWatcher;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

const ENTER: &str = "\u{E007}";
const ESCAPE: &str = "\u{E00C}";
const ANSWER: &str = "The oven is at 250 degrees and ready.";
const EVERY_MINUTE: &str = "Every minute";
const EVERY_MINUTE_PROMPT: &str = "Check the proofing drawer.";
const RUN_NOW: &str = "Oven check";
const RUN_NOW_PROMPT: &str = "Is the oven hot yet?";
const WEBHOOK: &str = "Order hook";
const WEBHOOK_PROMPT: &str = "A new order came in: two margheritas.";
/// An every-minute schedule fires within a minute; a little more for the run.
const FIRE_TIMEOUT: Duration = Duration::from_secs(100);
const NOTIFICATION_TIMEOUT: Duration = Duration::from_secs(30);
const UI_TIMEOUT: Duration = Duration::from_secs(20);

/// Replaces a field's value as typing does (an `input` event), or a
/// select's choice (a `change` event).
async fn fill(app: &App, testid: &str, value: &str) -> Result<()> {
    app.find(&format!("[data-testid={testid}]")).await?;
    app.eval(&format!(
        "const el = document.querySelector('[data-testid={testid}]');
         el.value = {value};
         el.dispatchEvent(new Event(el.tagName === 'SELECT' || el.type === 'time' ? 'change' : 'input', {{bubbles: true}}));
         return null;",
        value = json!(value)
    ))
    .await?;
    Ok(())
}

fn value_of(testid: &str) -> String {
    format!(
        "const el = document.querySelector('[data-testid={testid}]'); return el ? el.value : null"
    )
}

fn count_of(css: &str) -> String {
    format!("return document.querySelectorAll({}).length", json!(css))
}

fn text_of(css: &str) -> String {
    format!(
        "const el = document.querySelector({}); return el ? el.textContent.trim() : null",
        json!(css)
    )
}

/// The CSS for the row of the trigger named `name`.
async fn row_of(app: &App, name: &str) -> Result<String> {
    let script = format!(
        "const row = [...document.querySelectorAll('[data-testid=trigger-row]')]
            .find(r => r.querySelector('[data-testid=trigger-name]')?.textContent === {});
         return row ? row.dataset.triggerId : null",
        json!(name)
    );
    let id = app
        .retrying(async || match app.eval(&script).await? {
            Value::String(id) => Ok(id),
            other => bail!("no row for the trigger {name:?} yet ({other})"),
        })
        .await?;
    Ok(format!("[data-testid=trigger-row][data-trigger-id='{id}']"))
}

async fn open_automations(app: &App) -> Result<()> {
    app.click("[data-testid=rail-automations]").await?;
    app.find("[data-testid=schedules]").await?;
    Ok(())
}

/// The editor for a new schedule, its name and prompt typed.
async fn new_schedule(app: &App, name: &str, prompt: &str) -> Result<()> {
    app.click("[data-testid=new-schedule]").await?;
    app.find("[data-testid=trigger-editor][data-kind=cron]")
        .await?
        .find(fantoccini::Locator::Css("[data-testid=trigger-name-input]"))
        .await?
        .send_keys(name)
        .await?;
    app.find("[data-testid=trigger-prompt]")
        .await?
        .send_keys(prompt)
        .await?;
    Ok(())
}

/// Saves the editor with Enter in its name field and waits for it to close.
async fn save_with_enter(app: &App) -> Result<()> {
    app.find("[data-testid=trigger-name-input]")
        .await?
        .send_keys(ENTER)
        .await?;
    app.wait_for_value(&count_of("[data-testid=trigger-editor]"), &json!(0))
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_schedule_is_made_in_the_editor_with_its_fire_times_checked_as_it_is_typed() -> Result<()>
{
    let sandbox = Sandbox::new()?;
    let app = App::start(&sandbox, "automations-editor").await?;
    app.run(async |app| {
        open_automations(app).await?;
        new_schedule(app, "Morning dough", "Start the dough for tonight.").await?;

        // The editor starts on weekdays at 09:00, and shows its next fires.
        app.wait_for_value(&value_of("trigger-preset"), &json!("weekdays"))
            .await?;
        app.wait_for_value(&value_of("trigger-cron"), &json!("0 9 * * 1-5"))
            .await?;
        app.wait_for_value(&count_of("[data-testid=trigger-preview-fire]"), &json!(5))
            .await?;

        // A wrong expression is refused beside the field as it is typed.
        fill(app, "trigger-cron", "61 * * * *").await?;
        app.wait_for_value(&value_of("trigger-preset"), &json!("custom"))
            .await?;
        app.wait_for_value(
            "const e = document.querySelector('[data-testid=trigger-preview-error]');
             return !!e && e.dataset.field === 'cron' && e.textContent.length > 0",
            &json!(true),
        )
        .await?;

        // A preset fills the raw field again; its time too.
        fill(app, "trigger-preset", "daily").await?;
        app.wait_for_value(&value_of("trigger-cron"), &json!("0 9 * * *"))
            .await?;
        fill(app, "trigger-preset-time", "07:30").await?;
        app.wait_for_value(&value_of("trigger-cron"), &json!("30 7 * * *"))
            .await?;
        app.wait_for_value(&count_of("[data-testid=trigger-preview-fire]"), &json!(5))
            .await?;
        let words = app.text("[data-testid=trigger-preview-words]").await?;
        ensure!(words.contains("07:30"), "the schedule in words: {words:?}");

        // An unknown zone: the preview and the save both name the field, and
        // nothing typed is lost.
        fill(app, "trigger-timezone", "Mars/Olympus_Mons").await?;
        app.wait_for_value(
            "const e = document.querySelector('[data-testid=trigger-preview-error]'); return e && e.dataset.field",
            &json!("timezone"),
        )
        .await?;
        app.click("[data-testid=trigger-save]").await?;
        app.find("[data-testid=trigger-error-timezone]").await?;
        assert_eq!(app.eval(&value_of("trigger-name-input")).await?, json!("Morning dough"));
        assert_eq!(app.eval(&value_of("trigger-cron")).await?, json!("30 7 * * *"));
        assert_eq!(app.eval(&count_of("[data-testid=trigger-row]")).await?, json!(0));

        // An empty name is refused beside the name.
        fill(app, "trigger-timezone", "Europe/Paris").await?;
        fill(app, "trigger-name-input", "  ").await?;
        app.click("[data-testid=trigger-save]").await?;
        app.find("[data-testid=trigger-error-name]").await?;
        ensure!(
            app.eval(&count_of("[data-testid=trigger-error-timezone]")).await? == json!(0),
            "the fixed zone is no longer refused"
        );

        fill(app, "trigger-name-input", "Morning dough").await?;
        save_with_enter(app).await?;
        let row = row_of(app, "Morning dough").await?;
        let schedule = app.eval(&text_of(&format!("{row} [data-testid=trigger-schedule]"))).await?;
        let schedule = schedule.as_str().unwrap_or_default();
        ensure!(schedule.contains("07:30"), "the row's schedule: {schedule:?}");
        let next = app.eval(&text_of(&format!("{row} [data-testid=trigger-next]"))).await?;
        let next = next.as_str().unwrap_or_default();
        ensure!(next.starts_with("Next: "), "the row's next run: {next:?}");

        // Editing shows the preset that made it; Escape closes unsaved.
        app.click(&format!("{row} [data-testid=trigger-edit]")).await?;
        app.wait_for_value(&value_of("trigger-preset"), &json!("daily"))
            .await?;
        assert_eq!(app.eval(&value_of("trigger-preset-time")).await?, json!("07:30"));
        assert_eq!(app.eval(&value_of("trigger-timezone")).await?, json!("Europe/Paris"));
        app.find("[data-testid=trigger-name-input]")
            .await?
            .send_keys(ESCAPE)
            .await?;
        app.wait_for_value(&count_of("[data-testid=trigger-editor]"), &json!(0))
            .await?;
        Ok(())
    })
    .await
}

/// Completions the mock received whose body mentions `text`.
fn requests_mentioning(mock: &MockProvider, text: &str) -> usize {
    mock.requests()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .filter(|r| String::from_utf8_lossy(&r.body).contains(text))
        .count()
}

/// Waits until the mock has received more than `seen` completions that
/// mention `text`.
async fn wait_for_request(
    mock: &MockProvider,
    text: &str,
    seen: usize,
    timeout: Duration,
) -> Result<()> {
    let deadline = Instant::now() + timeout;
    while requests_mentioning(mock, text) <= seen {
        if Instant::now() > deadline {
            bail!("no new run with {text:?} reached the provider within {timeout:?}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok(())
}

/// Waits until `path` exists (`true`) or is gone (`false`).
async fn wait_for_file(path: &Path, exists: bool) -> Result<()> {
    let deadline = Instant::now() + UI_TIMEOUT;
    while path.is_file() != exists {
        if Instant::now() > deadline {
            bail!(
                "{} still {}",
                path.display(),
                if exists { "missing" } else { "there" }
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

#[tokio::test(flavor = "multi_thread")]
async fn triggers_fire_from_run_now_a_webhook_and_a_schedule_with_the_window_closed() -> Result<()>
{
    let mock = openai_mock().await?;
    mock.set_default("/v1/chat/completions", sse::openai_chat_text(ANSWER));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;
    let notifications = NotificationServer::start().map_err(|e| anyhow!(e))?;
    // Before the app starts: with a tray, closing the window only hides it.
    let _tray = TrayWatcher::start().map_err(|e| anyhow!(e))?;
    let autostart = sandbox
        .path()
        .join("home/.config/autostart/pizza-bot.desktop");
    let port = free_port()?;

    let app = App::start(&sandbox, "automations-fire").await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        open_automations(app).await?;

        // Off by default; switching it on offers to start at login, once.
        assert_eq!(
            app.eval("return document.querySelector('[data-testid=automations-enabled]').checked")
                .await?,
            json!(false)
        );
        app.find("[data-testid=start-at-login]").await?;
        app.click("[data-testid=automations-enabled]").await?;
        app.click("[data-testid=start-at-login-accept]").await?;
        wait_for_file(&autostart, true).await?;
        let entry = std::fs::read_to_string(&autostart)?;
        ensure!(
            entry.contains("[Desktop Entry]") && entry.contains("Exec="),
            "{entry}"
        );
        app.wait_for_value(
            "return document.querySelector('[data-testid=start-at-login]').checked",
            &json!(true),
        )
        .await?;
        // The switch takes it away again, and puts it back.
        app.click("[data-testid=start-at-login]").await?;
        wait_for_file(&autostart, false).await?;
        app.click("[data-testid=start-at-login]").await?;
        wait_for_file(&autostart, true).await?;
        // Settings › General shows the same switch.
        app.click("[data-testid=rail-settings]").await?;
        app.click("[data-testid=settings-general]").await?;
        app.wait_for_value(
            "const c = document.querySelector('[data-testid=settings-start-at-login]'); return !!c && c.checked",
            &json!(true),
        )
        .await?;
        open_automations(app).await?;

        // Made first, so its fires land while the rest of the test runs.
        new_schedule(app, EVERY_MINUTE, EVERY_MINUTE_PROMPT).await?;
        fill(app, "trigger-cron", "* * * * *").await?;
        app.wait_for_value(&count_of("[data-testid=trigger-preview-fire]"), &json!(5))
            .await?;
        save_with_enter(app).await?;
        row_of(app, EVERY_MINUTE).await?;

        // Run now: a thread, linked from the row, in Unread, announced.
        new_schedule(app, RUN_NOW, RUN_NOW_PROMPT).await?;
        save_with_enter(app).await?;
        let row = row_of(app, RUN_NOW).await?;
        app.click(&format!("{row} [data-testid=trigger-run-now]"))
            .await?;
        let link = app
            .find(&format!(
                "{row} [data-testid=trigger-run-result] [data-testid=trigger-run-thread]"
            ))
            .await?;
        let thread_id = link
            .attr("data-thread-id")
            .await?
            .context("the Run now link names its thread")?;
        let shown = tokio::task::block_in_place(|| {
            notifications.wait_for(NOTIFICATION_TIMEOUT, |n| {
                n.summary == "Run finished"
                    && n.body.starts_with(RUN_NOW)
                    && n.body.contains(ANSWER)
            })
        })
        .map_err(|e| anyhow!(e))?;
        assert_eq!(shown.app_name, "Pizza Bot");
        // Its history says why it ran, and links the same thread.
        app.click(&format!("{row} [data-testid=trigger-history-toggle]")).await?;
        app.wait_for_value(
            &text_of(&format!("{row} [data-testid=occurrence-row] [data-testid=occurrence-reason]")),
            &json!("Run now"),
        )
        .await?;
        app.find(&format!(
            "{row} [data-testid=occurrence-row] [data-thread-id='{thread_id}']"
        ))
        .await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=view-unread]").await?;
        let unread_row = format!("[data-testid=thread-row][data-thread-id='{thread_id}']");
        app.find(&unread_row).await?;
        app.click(&format!("{unread_row} .thread__main")).await?;
        app.wait_for_value(&feed_has(&[RUN_NOW_PROMPT, ANSWER]), &json!(true))
            .await?;

        // A webhook: made in the editor, its secret shown once, fired with curl.
        open_automations(app).await?;
        fill(app, "webhook-port", &port.to_string()).await?;
        app.find("[data-testid=webhook-port]")
            .await?
            .send_keys(ENTER)
            .await?;
        app.click("[data-testid=new-webhook]").await?;
        app.find("[data-testid=trigger-editor][data-kind=webhook]")
            .await?;
        app.find("[data-testid=trigger-name-input]")
            .await?
            .send_keys(WEBHOOK)
            .await?;
        app.find("[data-testid=trigger-prompt]")
            .await?
            .send_keys("Look at the newest order.")
            .await?;
        app.click("[data-testid=trigger-save]").await?;
        let secret = app.text("[data-testid=webhook-secret]").await?;
        let url = app.text("[data-testid=webhook-url]").await?;
        let curl = app.text("[data-testid=webhook-curl]").await?;
        ensure!(
            secret.len() >= 16,
            "a secret of at least 16 characters: {secret:?}"
        );
        ensure!(
            url.starts_with(&format!("http://127.0.0.1:{port}/")),
            "{url}"
        );
        ensure!(curl.contains(&secret) && curl.contains(&url), "{curl}");
        app.wait_for_value(
            &text_of("[data-testid=webhook-listener]"),
            &json!(format!("Listening on 127.0.0.1:{port}")),
        )
        .await?;
        app.click("[data-testid=webhook-secret-done]").await?;
        ensure!(
            app.eval(&format!(
                "return document.body.textContent.includes({})",
                json!(secret)
            ))
            .await?
                == json!(false),
            "the secret is shown once only"
        );

        let body = json!({ "prompt": WEBHOOK_PROMPT }).to_string();
        let posted = tokio::process::Command::new("curl")
            .args(["-sS", "-X", "POST", "-w", "\n%{http_code}"])
            .args(["-H", &format!("Authorization: Bearer {secret}")])
            .args(["-H", "Content-Type: application/json", "-d", &body, &url])
            .output()
            .await
            .context("running curl")?;
        let answer = String::from_utf8_lossy(&posted.stdout).into_owned();
        let (json_part, status) = answer.rsplit_once('\n').unwrap_or((&answer, ""));
        ensure!(
            status == "202",
            "curl: {answer} {}",
            String::from_utf8_lossy(&posted.stderr)
        );
        let accepted: Value = serde_json::from_str(json_part)?;
        let webhook_thread = accepted["thread_id"]
            .as_str()
            .context("202 names the thread")?
            .to_owned();
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=view-all]").await?;
        let hook_row = format!("[data-testid=thread-row][data-thread-id='{webhook_thread}']");
        app.click(&format!("{hook_row} .thread__main")).await?;
        app.wait_for_value(&feed_has(&[WEBHOOK_PROMPT, ANSWER]), &json!(true))
            .await?;

        // Closed to the tray, the every-minute schedule still fires.
        let fired_before = requests_mentioning(&mock, EVERY_MINUTE_PROMPT);
        let announced_before = notifications
            .notifications()
            .iter()
            .map(|n| n.id)
            .max()
            .unwrap_or(0);
        x11::close_until_hidden("Pizza Bot", &app.processes()).await?;
        wait_for_request(&mock, EVERY_MINUTE_PROMPT, fired_before, FIRE_TIMEOUT).await?;
        tokio::task::block_in_place(|| {
            notifications.wait_for(FIRE_TIMEOUT, |n| {
                n.id > announced_before && n.body.starts_with(EVERY_MINUTE)
            })
        })
        .map_err(|e| anyhow!(e))?;
        Ok(())
    })
    .await
}
