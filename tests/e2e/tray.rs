//! The tray menu end to end: a tray host on the test's session bus (the
//! app's bus too) takes the app's tray item, and its menu entries are
//! clicked over `com.canonical.dbusmenu` as a panel clicks them — Open makes
//! a window closed to the tray (and released) again on the screen it was
//! left on (and a second launch shows the thread it names), Quick ask opens its window, Pause / Resume automations
//! switches automations and follows their state, start at login writes
//! the autostart entry, and Quit
//! during a run asks first, then records the run `cancelled` and exits.

use crate::chat::{ask, configure_provider, openai_mock};
use crate::harness::{App, Launch, Sandbox, launch_again, launcher_binary};
use crate::seed;
use crate::x11;
use anyhow::{Result, anyhow, bail, ensure};
use pizza_store::{RunStatus, Store, ThreadQuery};
use pizza_test_support::mock_provider::{MockResponse, sse};
use pizza_test_support::tray_watcher::{TrayMenu, TrayWatcher};
use serde_json::json;
use std::time::{Duration, Instant};

const MAIN_TITLE: &str = "Pizza Bot";
const QUICK_ASK_TITLE: &str = "Quick ask — Pizza Bot";
const QUIT_TITLE: &str = "Quit Pizza Bot?";
const TIMEOUT: Duration = Duration::from_secs(20);
/// The screen the page was made on.
const MADE_ON: &str = "return new URLSearchParams(location.search).get('screen')";
/// Whether the page showed the last window's look while it started.
const SNAPSHOT_SHOWN: &str = "return typeof window.pizzaSnapshotPainted === 'number' && !document.getElementById('snapshot')";
/// How long quitting may take once confirmed (the app's own deadline).
const QUIT_DEADLINE: Duration = Duration::from_secs(10);

/// The app's tray menu, once its item has registered with `watcher`.
fn tray_menu(watcher: &TrayWatcher) -> Result<TrayMenu> {
    tokio::task::block_in_place(|| {
        let item = watcher.wait_for_item(TIMEOUT)?;
        watcher.menu(&item)
    })
    .map_err(|e| anyhow!(e))
}

/// The labels of the menu's entries (separators left out), with whether
/// each can be clicked.
fn labels(menu: &TrayMenu) -> Result<Vec<(String, bool)>> {
    Ok(menu
        .entries()
        .map_err(|e| anyhow!(e))?
        .into_iter()
        .filter(|entry| !entry.separator)
        .map(|entry| (entry.label, entry.enabled))
        .collect())
}

/// Polls the menu until it has an entry labelled `label`.
async fn wait_for_entry(menu: &TrayMenu, label: &str) -> Result<()> {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let now = labels(menu)?;
        if now.iter().any(|(l, _)| l == label) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("the tray menu never showed {label:?}: {now:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Calls an automations command from the page; its answer's `enabled`.
async fn automations_call(app: &App, command: &str, args: &str) -> Result<serde_json::Value> {
    let script = format!(
        "const done = arguments[arguments.length - 1];
         window.__TAURI_INTERNALS__.invoke('{command}', {args})
           .then((a) => done(a.enabled), (e) => done(JSON.stringify(e)));"
    );
    Ok(app.client.execute_async(&script, vec![]).await?)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tray_menu_brings_the_window_back_and_opens_quick_ask() -> Result<()> {
    let sandbox = Sandbox::new()?;
    let mut kept = String::new();
    seed::data_root(&sandbox.data_root(), async |store| {
        kept = seed::thread(store, "Sourdough starter", 1, None).await?;
        seed::thread(store, "Oven temperatures", 1, None).await?;
        Ok(())
    })
    .await?;
    // Before the app starts: its tray item registers at once.
    let watcher = TrayWatcher::start().map_err(|e| anyhow!(e))?;
    // A short grace before a hidden window is released.
    let release = [("PIZZA_WINDOW_RELEASE_MS", "300".to_owned())];
    let app = App::start_with_env(&sandbox, "tray-menu", Launch::default(), &release).await?;
    app.run(async |app| {
        app.find("[data-testid=rail-inbox]").await?;
        let menu = tray_menu(&watcher)?;
        assert_eq!(
            labels(&menu)?,
            vec![
                ("Open Pizza Bot".to_owned(), true),
                ("Quick ask…".to_owned(), true),
                ("No runs in progress".to_owned(), false),
                ("Resume automations".to_owned(), true),
                ("Quit Pizza Bot".to_owned(), true),
            ]
        );

        // Automations start paused; the item switches them and its label
        // follows, also for a change made elsewhere (here, the page).
        menu.click("Resume automations").map_err(|e| anyhow!(e))?;
        wait_for_entry(&menu, "Pause automations").await?;
        let enabled = automations_call(app, "automations_get", "{}").await?;
        ensure!(enabled == json!(true), "after Resume the host says {enabled}");
        let enabled = automations_call(app, "automations_update", "{enabled: false}").await?;
        ensure!(enabled == json!(false), "the page's pause answered {enabled}");
        wait_for_entry(&menu, "Resume automations").await?;

        // With a tray, closing the window hides it and soon releases its
        // webview; Open makes it again, on the screen it was left on (in
        // its page's address, so it mounts there).
        app.click("[data-testid=rail-settings]").await?;
        app.find("[data-testid=settings-general]").await?;
        x11::close_until_hidden(MAIN_TITLE, &app.processes()).await?;
        app.wait_for_web_processes(0).await?;
        menu.click("Open Pizza Bot").map_err(|e| anyhow!(e))?;
        x11::wait_for_window(MAIN_TITLE, &app.processes()).await?;
        app.switch_to_page(false).await?;
        app.wait_for_value(MADE_ON, &json!("settings")).await?;
        app.find("[data-testid=settings-general]").await?;
        app.wait_for_value(SNAPSHOT_SHOWN, &json!(true)).await?;

        // A second launch naming a thread, through the desktop entry's
        // launcher, hands it to this window, which shows it; the launcher
        // exits.
        let second = launch_again(&sandbox, &launcher_binary()?, &["--thread", &kept]).await?;
        ensure!(second.success(), "the second launch exited with {second}");
        app.wait_for_value(
            "const t = document.querySelector('[data-testid=thread-pane-title]'); return t && t.textContent",
            &json!("Sourdough starter"),
        )
        .await?;

        let main = app.client.window().await?;
        menu.click("Quick ask…").map_err(|e| anyhow!(e))?;
        x11::wait_for_window(QUICK_ASK_TITLE, &app.processes()).await?;
        let quick = app
            .retrying(async || {
                app.client
                    .windows()
                    .await?
                    .into_iter()
                    .find(|w| *w != main)
                    .ok_or_else(|| anyhow!("the driver does not list the quick-ask window"))
            })
            .await?;
        app.client.switch_to_window(quick).await?;
        app.find("[data-testid=quick-ask-input]").await?;
        Ok(())
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn quit_from_the_tray_during_a_run_cancels_it_and_exits() -> Result<()> {
    let mock = openai_mock().await?;
    // An answer that starts and then stalls: the run stays live until stopped.
    let chunk = json!({
        "id": "chatcmpl-quit", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4o",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Preheat the "}, "finish_reason": null}]
    });
    mock.push_for(
        "/v1/chat/completions",
        MockResponse::sse([format!("data: {chunk}\n\n")]).hang(),
    );
    mock.set_default("/v1/chat/completions", sse::openai_chat_text("Oven"));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;
    let watcher = TrayWatcher::start().map_err(|e| anyhow!(e))?;

    let app = App::start(&sandbox, "tray-quit").await?;
    let quitting = async {
        configure_provider(&app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        app.click("[data-testid=new-thread]").await?;
        ask(&app, "How do I preheat a pizza stone?").await?;
        app.wait_for_value(
            "const t = document.querySelector('[data-testid=streaming-text]'); return !!t && t.textContent.includes('Preheat the')",
            &json!(true),
        )
        .await?;
        let menu = tray_menu(&watcher)?;
        wait_for_entry(&menu, "1 run in progress").await?;
        let pid = x11::window_pid(x11::wait_for_window(MAIN_TITLE, &app.processes()).await?)?;

        menu.click("Quit Pizza Bot").map_err(|e| anyhow!(e))?;
        // The native confirmation; its first button, Quit, has the focus.
        let dialog = x11::wait_for_window(QUIT_TITLE, &app.processes()).await?;
        x11::answer_dialog(dialog, "Return").await?;
        let confirmed = Instant::now();
        while alive(pid) {
            if confirmed.elapsed() > QUIT_DEADLINE {
                bail!("the app was still running {QUIT_DEADLINE:?} after Quit was confirmed");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        anyhow::Ok(())
    };
    let outcome = quitting.await;
    if outcome.is_err() {
        app.screenshot("failure").await;
    }
    // The app is gone; this only stops the driver.
    drop(app);
    outcome?;

    let store = Store::open(sandbox.data_root()).await?;
    let threads = store.list_threads(&ThreadQuery::default()).await?;
    let thread = threads
        .threads
        .first()
        .ok_or_else(|| anyhow!("no thread"))?;
    let runs = store.thread_runs(&thread.id, 10).await?;
    store.close().await;
    ensure!(runs.len() == 1, "one run expected: {runs:#?}");
    assert_eq!(runs[0].status, RunStatus::Cancelled, "{runs:#?}");
    ensure!(runs[0].ended_at.is_some(), "{runs:#?}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn start_at_login_writes_and_removes_the_autostart_entry() -> Result<()> {
    let sandbox = Sandbox::new()?;
    // The app's XDG_CONFIG_HOME is the sandbox's home/.config.
    let entry = sandbox
        .path()
        .join("home/.config/autostart/pizza-bot.desktop");
    let app = App::start(&sandbox, "start-at-login").await?;
    app.run(async |app| {
        app.find("[data-testid=rail-inbox]").await?;
        let off = start_at_login_call(app, "automations_get", "{}").await?;
        ensure!(off == json!(false), "before: {off}");

        let on = start_at_login_call(app, "automations_update", "{start_at_login: true}").await?;
        ensure!(on == json!(true), "turning it on answered {on}");
        let contents = std::fs::read_to_string(&entry)?;
        let exec = contents
            .lines()
            .find_map(|line| line.strip_prefix("Exec="))
            .ok_or_else(|| anyhow!("no Exec line in {contents}"))?;
        // This very binary (as the kernel names it), started in the tray.
        let binary = std::fs::canonicalize(
            std::env::var_os("PIZZA_APP_BIN").ok_or_else(|| anyhow!("PIZZA_APP_BIN"))?,
        )?;
        ensure!(
            exec == format!("{} --hidden", binary.display()),
            "Exec={exec}"
        );
        let read_back = start_at_login_call(app, "automations_get", "{}").await?;
        ensure!(read_back == json!(true), "read back: {read_back}");

        let off = start_at_login_call(app, "automations_update", "{start_at_login: false}").await?;
        ensure!(off == json!(false), "turning it off answered {off}");
        ensure!(!entry.exists(), "the entry is still there");
        Ok(())
    })
    .await
}

/// Calls an automations command from the page; its answer's `start_at_login`.
async fn start_at_login_call(app: &App, command: &str, args: &str) -> Result<serde_json::Value> {
    let script = format!(
        "const done = arguments[arguments.length - 1];
         window.__TAURI_INTERNALS__.invoke('{command}', {args})
           .then((a) => done(a.start_at_login), (e) => done(JSON.stringify(e)));"
    );
    Ok(app.client.execute_async(&script, vec![]).await?)
}

/// Whether process `pid` still runs (an exited child its parent has not yet
/// reaped counts as gone).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .map(|state| state != "Z" && state != "X")
        })
        .unwrap_or(false)
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_tray_closing_the_window_asks_whether_to_quit() -> Result<()> {
    // No tray host on the bus: hiding the window would strand it.
    let sandbox = Sandbox::new()?;
    let app = App::start(&sandbox, "tray-none").await?;
    let asking = async {
        app.find("[data-testid=rail-inbox]").await?;
        let window = x11::close_window(MAIN_TITLE, &app.processes())?;
        // "Keep open" (Escape): the window stays and keeps working.
        let dialog = x11::wait_for_window(QUIT_TITLE, &app.processes()).await?;
        x11::answer_dialog(dialog, "Escape").await?;
        app.click("[data-testid=rail-settings]").await?;
        app.find("[data-testid=settings-general]").await?;
        x11::wait_until(window, true).await?;
        let pid = x11::window_pid(window)?;

        // Closing again and choosing Quit ends the app.
        x11::close_window(MAIN_TITLE, &app.processes())?;
        let dialog = x11::wait_for_window(QUIT_TITLE, &app.processes()).await?;
        x11::answer_dialog(dialog, "Return").await?;
        let confirmed = Instant::now();
        while alive(pid) {
            if confirmed.elapsed() > QUIT_DEADLINE {
                bail!("the app was still running {QUIT_DEADLINE:?} after Quit was chosen");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        anyhow::Ok(())
    };
    let outcome = asking.await;
    if let Err(error) = &outcome {
        eprintln!("without a tray: {error:#}");
        app.screenshot("failure").await;
    }
    drop(app);
    outcome
}
