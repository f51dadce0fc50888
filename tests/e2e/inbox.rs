//! The inbox on a seeded data root: search, pin, rename, folders, fork,
//! export, and everything still there after a restart.

use crate::harness::{App, Sandbox};
use crate::seed;
use crate::x11;
use anyhow::{Result, ensure};
use fantoccini::Locator;
use serde_json::json;

const ENTER: &str = "\u{E007}";

fn row(title: &str) -> String {
    format!(
        "//div[@data-testid='thread-row'][.//span[@data-testid='thread-title' and normalize-space()='{title}']]"
    )
}

async fn row_menu(app: &App, title: &str, item: &str) -> Result<()> {
    app.retrying(async || {
        let row = app.client.find(Locator::XPath(&row(title))).await?;
        // The menu button toggles: open it only when the item isn't showing yet.
        if row.find(Locator::Css(item)).await.is_err() {
            row.find(Locator::Css("[data-testid=thread-menu]"))
                .await?
                .click()
                .await?;
        }
        row.find(Locator::Css(item)).await?.click().await?;
        Ok(())
    })
    .await
}

/// Gives the app's window the keyboard focus (`focused`) or takes it from
/// every window, and waits until the page knows: another test's app
/// starting may take it meanwhile, so it is given again until it holds.
async fn window_focused(app: &App, focused: bool) -> Result<()> {
    app.retrying(async || {
        if focused {
            x11::focus_window("Pizza Bot", &app.processes())?;
        } else {
            x11::focus_nothing()?;
        }
        let has_focus = app.eval("return document.hasFocus()").await?;
        ensure!(
            has_focus == json!(focused),
            "the page's focus is {has_focus}"
        );
        Ok(())
    })
    .await
}

async fn count(app: &App, view: &str) -> Result<String> {
    app.text(&format!("[data-testid=count-{view}]")).await
}

async fn wait_count(app: &App, view: &str, expected: &str) -> Result<()> {
    app.wait_for_value(
        &format!("const e = document.querySelector('[data-testid=count-{view}]'); return e && e.textContent"),
        &json!(expected),
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn organise_search_fork_export_and_restart() -> Result<()> {
    let sandbox = Sandbox::new()?;
    seed::data_root(&sandbox.data_root(), async |store| {
        seed::thread(
            store,
            "Pizza dough notes",
            60,
            Some((2, "How long should sourdough proof overnight?")),
        )
        .await?;
        seed::thread(store, "Weekend plans", 2, None).await?;
        Ok(())
    })
    .await?;
    let export_path = sandbox.save_dialog_answer();

    let app = App::start(&sandbox, "inbox").await?;
    app.run(async |app| {
        app.find("[data-testid=thread-row]").await?;
        ensure!(count(app, "all").await? == "2");

        eprintln!("step: search");
        // Search (Ctrl+F) and open the hit at its message, far back in the thread.
        app.eval("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'f', ctrlKey: true, bubbles: true})); return true").await?;
        app.find("[data-testid=search-input]").await?.send_keys("sourdough").await?;
        let hit = app.find("[data-testid=search-hit]").await?;
        ensure!(hit.text().await?.contains("sourdough"), "hit shows the snippet");
        ensure!(app.find("[data-testid=search-hit] mark").await?.text().await?.to_lowercase() == "sourdough");
        hit.click().await?;
        // Turn 2's question is message seq 5.
        app.wait_for_value("const m = document.getElementById('msg-5'); return !!m && m.classList.contains('msg--flash')", &json!(true)).await?;
        let in_dom = app.eval("return document.querySelectorAll('[data-testid=message]').length").await?;
        ensure!(in_dom.as_u64().is_some_and(|n| n <= 60), "the transcript is paged, {in_dom} nodes");

        eprintln!("step: pin");
        // Pin and rename.
        app.eval("document.querySelector('[data-testid=search-input]').value=''; return true").await?;
        app.find("[data-testid=search-input]").await?.send_keys("\u{E00C}").await?;
        row_menu(app, "Weekend plans", "[data-testid=menu-pin]").await?;
        app.find(".threads__heading").await?;
        app.wait_for_value("return document.querySelector('.threads__heading').textContent", &json!("Pinned")).await?;
        eprintln!("step: rename");
        row_menu(app, "Weekend plans", "[data-testid=menu-rename]").await?;
        app.find("[data-testid=rename-input]").await?;
        // Switching to another application and back leaves the edit open.
        window_focused(app, true).await?;
        window_focused(app, false).await?;
        app.find("[data-testid=rename-input]").await?;
        window_focused(app, true).await?;
        // Typing over a selection is not something WebKitWebDriver's
        // send_keys can do; set the value and press Enter as the field sees it.
        app.eval(
            "const i = document.querySelector('[data-testid=rename-input]');
             i.value = 'Road trip';
             i.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
             return true",
        )
        .await?;
        app.client.wait().for_element(Locator::XPath(&row("Road trip"))).await?;

        eprintln!("step: folders");
        // A folder; move a thread in; delete the folder; the thread is back.
        app.click("[data-testid=folder-new]").await?;
        app.find("[data-testid=folder-name-input]").await?.send_keys(&format!("Recipes{ENTER}")).await?;
        app.find("[data-testid=folder-row][data-folder-name=Recipes]").await?;
        row_menu(app, "Pizza dough notes", "[data-testid=move-to][data-folder-name=Recipes]").await?;
        // The folder name toggles the filter: click once, then wait for it.
        app.find("[data-testid=folder-row][data-folder-name=Recipes] .folder__name")
            .await?
            .click()
            .await?;
        app.wait_for_value(
            "return !!document.querySelector('[data-folder-name=Recipes] .list__item--active')",
            &json!(true),
        )
        .await?;
        wait_count(app, "all", "1").await?;
        app.click("[data-testid=folder-row][data-folder-name=Recipes] [data-testid=folder-delete]").await?;
        app.click("[data-testid=confirm-ok]").await?;
        wait_count(app, "all", "2").await?;
        ensure!(app.client.find_all(Locator::Css("[data-testid=folder-row]")).await?.is_empty());

        eprintln!("step: fork");
        // Fork from the last answer of the dough thread.
        app.retrying(async || {
            let row = app.client.find(Locator::XPath(&row("Pizza dough notes"))).await?;
            Ok(row.find(Locator::Css(".thread__main")).await?.click().await?)
        })
        .await?;
        app.wait_for_value("return document.querySelector('[data-testid=thread-pane-title]')?.textContent", &json!("Pizza dough notes")).await?;
        app.eval("const f = document.querySelectorAll('[data-testid=fork-here]'); f[f.length - 1].click(); return true").await?;
        wait_count(app, "all", "3").await?;

        eprintln!("step: export");
        // Export the dough thread as Markdown (the save dialog is native: the
        // sandbox's app answers it with `export_path`; the commands behind it
        // are called as the UI calls them).
        let id = app.eval("return [...document.querySelectorAll('[data-testid=thread-row]')].find(r => r.textContent.includes('Pizza dough notes') && !r.textContent.includes('(fork)'))?.dataset.threadId").await?;
        let script = format!(
            "const done = arguments[arguments.length - 1];
             const invoke = window.__TAURI_INTERNALS__.invoke;
             invoke('export_choose', {{format: 'markdown', suggested_name: 'Pizza dough notes'}})
               .then((target) => invoke('thread_export', {{thread_id: {id}, format: 'markdown', token: target.token}}))
               .then((r) => done(r.bytes), (e) => done(JSON.stringify(e)));"
        );
        let bytes = app.client.execute_async(&script, vec![]).await?;
        ensure!(bytes.as_u64().is_some_and(|b| b > 0), "export answered {bytes}");
        Ok(())
    })
    .await?;

    let markdown = std::fs::read_to_string(&export_path)?;
    ensure!(
        markdown.starts_with("# Pizza dough notes\n"),
        "{}",
        &markdown[..80.min(markdown.len())]
    );
    ensure!(markdown.contains("How long should sourdough proof overnight?"));

    // Everything as left after a restart.
    let app = App::start(&sandbox, "inbox-restart").await?;
    app.run(async |app| {
        app.find("[data-testid=thread-row]").await?;
        wait_count(app, "all", "3").await?;
        app.wait_for_value(
            "return document.querySelector('.threads__heading').textContent",
            &json!("Pinned"),
        )
        .await?;
        app.client.find(Locator::XPath(&row("Road trip"))).await?;
        ensure!(
            app.client
                .find_all(Locator::Css("[data-testid=folder-row]"))
                .await?
                .is_empty()
        );

        // A new thread adds its row and leaves the others as they are: a
        // list made again on every click kept memory in the page each time.
        let road_trip = "[...document.querySelectorAll('[data-testid=thread-row]')].find(r => r.textContent.includes('Road trip'))";
        app.eval(&format!("{road_trip}.dataset.kept = 'yes'; return true")).await?;
        app.click("[data-testid=new-thread]").await?;
        app.find("[data-testid=welcome]").await?;
        wait_count(app, "all", "4").await?;
        let kept = app.eval(&format!("return {road_trip}?.dataset.kept ?? null")).await?;
        ensure!(kept == json!("yes"), "the Road trip row was made again ({kept})");
        Ok(())
    })
    .await
}

/// Opening a 10,000-message thread: prints the time to the first painted
/// message (a figure for the notes, not a pass/fail timing).
#[tokio::test(flavor = "multi_thread")]
async fn a_long_thread_opens_paged() -> Result<()> {
    let sandbox = Sandbox::new()?;
    seed::data_root(&sandbox.data_root(), async |store| {
        seed::thread(store, "Long haul", 5_000, None).await?;
        Ok(())
    })
    .await?;
    let app = App::start(&sandbox, "long-thread").await?;
    app.run(async |app| {
        app.find("[data-testid=thread-row]").await?;
        let id = app.eval("return document.querySelector('[data-testid=thread-row]').dataset.threadId").await?;
        let ipc = format!(
            "const done = arguments[arguments.length - 1];
             const t0 = performance.now();
             window.__TAURI_INTERNALS__.invoke('thread_get', {{thread_id: {id}, limit: 50}})
               .then(() => done(performance.now() - t0), (e) => done(JSON.stringify(e)));"
        );
        let ipc_ms = app.client.execute_async(&ipc, vec![]).await?;
        crate::harness::report(&format!("thread_get of the last 50 of 10,000 messages over IPC: {ipc_ms} ms"));
        let idle_frame = app
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1]; const t0 = performance.now();
                 requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0)));",
                vec![],
            )
            .await?;
        crate::harness::report(&format!("an idle animation frame in this webview: {idle_frame} ms"));
        let script = "const done = arguments[arguments.length - 1];
            const t0 = performance.now();
            let inserted = null;
            const observer = new MutationObserver(() => {
                if (inserted === null && document.querySelector('[data-testid=message]')) {
                    inserted = performance.now() - t0;
                    observer.disconnect();
                    requestAnimationFrame(() => setTimeout(() =>
                        done([inserted, performance.now() - t0, document.querySelectorAll('[data-testid=message]').length])));
                }
            });
            observer.observe(document.body, {childList: true, subtree: true});
            document.querySelector('[data-testid=thread-row] .thread__main').click();";
        let result = app.client.execute_async(script, vec![]).await?;
        crate::harness::report(&format!(
            "open a 10,000-message thread: messages in the DOM after {:.0} ms, painted after {:.0} ms, {} message nodes",
            result[0].as_f64().unwrap_or(-1.0),
            result[1].as_f64().unwrap_or(-1.0),
            result[2]
        ));
        ensure!(result[2].as_u64().is_some_and(|n| n <= 50), "paged: {}", result[2]);
        Ok(())
    })
    .await
}
