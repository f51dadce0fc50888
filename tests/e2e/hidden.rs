//! The app closed to the tray, with its webview released (its web process
//! gone) while the host goes on: a run started before the close, in a page
//! whose web process had handed back the pages of code it read once the
//! page settled, finishes (the app's pages of code handed back at the
//! close and again at its end) and its notification's click makes a new
//! window on the thread with the answer; quick-ask opens from the tray
//! with no main webview, a question typed the instant its window shows
//! (before its page can take keys) is sent whole, and the run it starts
//! streams into a main window made afterwards, from the frames the host
//! buffered. Run as a person
//! runs it (no WebDriver, which WebKit ties to its network process),
//! closing to the tray ends every WebKit process and hands back the pages
//! of code the window read, and a launch paints a new window.

use crate::chat::{ask, configure_provider, feed_has, openai_mock};
use crate::desktop::quick_ask_answer_has;
use crate::harness::{App, Launch, Sandbox, app_binary, app_env, launch_again, launcher_binary};
use crate::x11;
use anyhow::{Context, Result, anyhow, bail, ensure};
use pizza_test_support::mock_provider::{Gate, sse};
use pizza_test_support::notification_server::NotificationServer;
use pizza_test_support::procs;
use pizza_test_support::tray_watcher::TrayWatcher;
use serde_json::json;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const MAIN_TITLE: &str = "Pizza Bot";
const QUICK_ASK_TITLE: &str = "Quick ask — Pizza Bot";
const TIMEOUT: Duration = Duration::from_secs(30);
/// A short grace before a hidden window is released, so the test does not
/// wait out the default one.
const RELEASE: [(&str, &str); 1] = [("PIZZA_WINDOW_RELEASE_MS", "300")];

fn env() -> Vec<(&'static str, String)> {
    RELEASE
        .iter()
        .map(|(key, value)| (*key, (*value).to_owned()))
        .collect()
}

/// Does the answer streaming in show `text` yet?
fn streaming_has(text: &str) -> String {
    format!(
        "const s = document.querySelector('[data-testid=streaming-text]');
         return !!s && s.textContent.includes({});",
        json!(text)
    )
}

/// What the app logs when, with no window open, it hands back the pages of
/// code it read.
const HANDED_BACK: &str = "no window open: pages of code handed back";

/// What the app logs when a shown page's web process, once the page
/// settled, handed back the pages of code it read (through the app's
/// WebKit extension), with how many mappings.
const WEB_HANDED_BACK: &str = "web process: pages of code handed back";

/// The mappings the first [`WEB_HANDED_BACK`] line of the log says.
fn web_mappings_handed_back(sandbox: &Sandbox) -> Result<u64> {
    let text = sandbox.log_text();
    let line = text
        .lines()
        .find(|line| line.contains(WEB_HANDED_BACK))
        .with_context(|| format!("no {WEB_HANDED_BACK:?} in the log"))?;
    let figure = line
        .split_whitespace()
        .find_map(|field| field.strip_prefix("mappings="))
        .with_context(|| format!("no mappings in {line:?}"))?;
    Ok(figure.parse()?)
}

/// Waits until the data root's log has `needle` `count` times.
async fn wait_for_log_count(sandbox: &Sandbox, needle: &str, count: usize) -> Result<()> {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let found = sandbox.log_text().matches(needle).count();
        if found >= count {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("the log has {needle:?} {found} times, not {count}, within {TIMEOUT:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Is the run on screen still going (its Stop button shown)?
const LIVE: &str = "return document.querySelector('[data-testid=composer-stop]') !== null";

#[tokio::test(flavor = "multi_thread")]
async fn closed_to_the_tray_a_run_finishes_and_its_notification_makes_a_new_window() -> Result<()> {
    const QUESTION: &str = "Summarise the oven log";
    const FIRST: &str = "The oven held 250 degrees ";
    const REST: &str = "for the whole bake.";
    let mock = openai_mock().await?;
    let completions = "/v1/chat/completions";
    let gate = Gate::new();
    mock.push_for(completions, sse::openai_chat_text_held(FIRST, &gate, REST));
    mock.set_default(completions, sse::openai_chat_text("Oven Log"));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;
    let server = NotificationServer::start().map_err(|e| anyhow!(e))?;
    let _tray = TrayWatcher::start().map_err(|e| anyhow!(e))?;

    let app =
        App::start_with_env(&sandbox, "hidden-notification", Launch::default(), &env()).await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        // Once the page settled, its web process handed back the pages of
        // code showing it read; the page goes on as before.
        wait_for_log_count(&sandbox, WEB_HANDED_BACK, 1).await?;
        let mappings = web_mappings_handed_back(&sandbox)?;
        ensure!(mappings > 0, "the web process handed back no mapping");
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        ask(app, QUESTION).await?;
        app.wait_for_value(&streaming_has(FIRST.trim()), &json!(true))
            .await?;

        x11::close_until_hidden(MAIN_TITLE, &app.processes()).await?;
        app.wait_for_web_processes(0).await?;
        // The pages of code are handed back once the window went (the run
        // still going), and again once the run, which ran code a window
        // does not, ended.
        wait_for_log_count(&sandbox, HANDED_BACK, 1).await?;
        gate.open();
        let shown = tokio::task::block_in_place(|| {
            server.wait_for(TIMEOUT, |n| n.body.contains(REST.trim()))
        })
        .map_err(|e| anyhow!(e))?;
        assert_eq!(shown.summary, "Run finished");
        wait_for_log_count(&sandbox, HANDED_BACK, 2).await?;

        x11::click_until_shown(&server, shown.id, MAIN_TITLE, || app.processes()).await?;
        app.switch_to_page(false).await?;
        app.wait_for_value(
            &feed_has(&[QUESTION, &format!("{FIRST}{REST}")]),
            &json!(true),
        )
        .await?;
        app.wait_for_value(LIVE, &json!(false)).await?;
        Ok(())
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn quick_ask_without_a_main_webview_streams_into_a_window_made_later() -> Result<()> {
    const QUESTION: &str = "Plan tomorrow's fête";
    const FIRST: &str = "Feed the starter at eight, ";
    const REST: &str = "then bake at noon.";
    let mock = openai_mock().await?;
    let completions = "/v1/chat/completions";
    let gate = Gate::new();
    mock.push_for(completions, sse::openai_chat_text_held(FIRST, &gate, REST));
    mock.set_default(completions, sse::openai_chat_text("Bake Plan"));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;
    let watcher = TrayWatcher::start().map_err(|e| anyhow!(e))?;

    let app = App::start_with_env(&sandbox, "hidden-quick-ask", Launch::default(), &env()).await?;
    app.run(async |app| {
        configure_provider(app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        x11::close_until_hidden(MAIN_TITLE, &app.processes()).await?;
        app.wait_for_web_processes(0).await?;

        // Quick-ask from the tray: the only webview now.
        let menu = tokio::task::block_in_place(|| {
            let item = watcher.wait_for_item(TIMEOUT)?;
            watcher.menu(&item)
        })
        .map_err(|e| anyhow!(e))?;
        // The question's start copied beforehand, pasted and the rest
        // typed (ê with a dead key) the instant the window shows, before
        // its page can take keys: the app keeps them for the page, in
        // order, and Enter sends.
        let _clipboard = x11::Clipboard::holding("Plan ").await?;
        menu.click("Quick ask…").map_err(|e| anyhow!(e))?;
        let window = x11::wait_for_window(QUICK_ASK_TITLE, &app.processes()).await?;
        x11::keys_into(
            window,
            &[
                &["key", "ctrl+v"],
                &["type", "--", "tomorrow's f"],
                &["key", "dead_circumflex", "e"],
                &["type", "--", "te"],
            ],
        )?;
        app.switch_to_page(true).await?;
        // It tells the host when its input painted (the desktop bench's
        // figure), and never as an inbox.
        wait_for_log_count(&sandbox, "quick-ask painted", 1).await?;
        app.wait_for_value(&quick_ask_answer_has(FIRST.trim()), &json!(true))
            .await?;

        // "Open in Pizza Bot" while the answer is still coming: a new main
        // window shows what streamed before it existed, then the rest.
        let open = app.find("[data-testid=quick-ask-open]").await?;
        // The click hides this window, and soon releases it: the driver's
        // answer to the click may come from a window already gone, so the
        // main window showing up is what counts.
        if let Err(error) = open.click().await {
            eprintln!("the click on Open answered: {error}");
        }
        x11::wait_for_window(MAIN_TITLE, &app.processes()).await?;
        app.switch_to_page(false).await?;
        app.wait_for_value(&feed_has(&[QUESTION]), &json!(true))
            .await?;
        app.wait_for_value(&streaming_has(FIRST.trim()), &json!(true))
            .await?;
        app.wait_for_value(LIVE, &json!(true)).await?;
        gate.open();
        app.wait_for_value(&feed_has(&[&format!("{FIRST}{REST}")]), &json!(true))
            .await?;
        app.wait_for_value(LIVE, &json!(false)).await?;
        Ok(())
    })
    .await
}

/// The app started as a person starts it, without a WebDriver; killed on
/// drop.
struct Undriven {
    child: Child,
}

impl Drop for Undriven {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The app's WebKit processes, by name.
fn webkit_processes(pid: u32) -> Vec<String> {
    procs::usage(&procs::tree(pid))
        .into_iter()
        .map(|usage| usage.name)
        .filter(|name| name.starts_with("WebKit"))
        .collect()
}

/// Waits until `done` holds of the app's log and its WebKit processes.
async fn wait_until(
    what: &str,
    log: &Path,
    pid: u32,
    done: impl Fn(&str, &[String]) -> bool,
) -> Result<()> {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let processes = webkit_processes(pid);
        if done(&text, &processes) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("{what}: not within {TIMEOUT:?} (WebKit processes: {processes:?})");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn undriven_closed_to_the_tray_every_webkit_process_ends_and_a_launch_paints_again()
-> Result<()> {
    const PAINTED: &str = "inbox painted";
    let sandbox = Sandbox::new()?;
    let _tray = TrayWatcher::start().map_err(|e| anyhow!(e))?;
    let log = sandbox.path().join("undriven.log");
    let file = std::fs::File::create(&log)?;
    // Started as the desktop entry starts it: with no app running on the
    // data root, the launcher becomes the app (same process).
    let child = Command::new(launcher_binary()?)
        .envs(app_env(&sandbox, &sandbox.data_root())?)
        .envs(RELEASE)
        .stdout(file.try_clone()?)
        .stderr(file)
        .spawn()
        .context("starting the app through its launcher")?;
    let app = Undriven { child };
    let pid = app.child.id();

    wait_until("the first paint", &log, pid, |text, _| {
        text.matches(PAINTED).count() == 1
    })
    .await?;
    let program = std::fs::read_link(format!("/proc/{pid}/exe"))?;
    ensure!(
        program == app_binary()?.canonicalize()?,
        "the launcher's process runs {}, not the app",
        program.display()
    );
    x11::close_until_hidden(MAIN_TITLE, &[pid]).await?;
    wait_until("every WebKit process ended", &log, pid, |_, processes| {
        processes.is_empty()
    })
    .await?;
    let text = std::fs::read_to_string(&log)?;
    ensure!(
        text.contains("network process ended"),
        "the app did not say it ended the network process"
    );
    // With no window left, the pages of code the window read are handed
    // back; the window made next runs that code again.
    wait_until("the pages of code handed back", &log, pid, |text, _| {
        text.contains(HANDED_BACK)
    })
    .await?;

    // The app's own binary, as a terminal starts it: it hands over too.
    let status = launch_again(&sandbox, &app_binary()?, &[]).await?;
    ensure!(status.success(), "the second launch ended with {status}");
    wait_until(
        "a new window painted, with a network process",
        &log,
        pid,
        |text, processes| {
            text.matches(PAINTED).count() == 2
                && processes
                    .iter()
                    .any(|name| name.starts_with("WebKitNetwork"))
        },
    )
    .await?;
    // The second launch handed over before opening the data root: only
    // the running app logged a start.
    let logs = sandbox.log_text();
    let starts = logs.matches("starting Pizza Bot").count();
    ensure!(starts == 1, "the data root's log has {starts} starts");
    // Both pages compiled the UI's code from the module the app handed
    // their web process (crates/webext), without fetching it.
    let painted: Vec<&str> = logs.lines().filter(|line| line.contains(PAINTED)).collect();
    ensure!(
        painted.len() == 2
            && painted
                .iter()
                .all(|line| line.contains("module_handed=true")),
        "a page fetched the UI's code: {painted:#?}"
    );
    drop(app);
    Ok(())
}
