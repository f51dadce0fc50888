//! The window's frame, Settings › About, the theme and startup failures.

use crate::harness::{App, Launch, Sandbox};
use anyhow::{Result, anyhow, ensure};
use pizza_test_support::portal_settings::PortalSettings;
use serde_json::json;
use std::time::{Duration, Instant};

const THEME: &str = "return document.documentElement.getAttribute('data-theme')";
/// The theme the window was made in (its background, and the page's until
/// the UI has read the settings): the page's address carries it.
const MADE_IN: &str = "return new URLSearchParams(location.search).get('theme')";
/// Whether the page showed the last window's look while it started, and
/// has since taken it away for its own.
const SNAPSHOT_SHOWN: &str = "return typeof window.pizzaSnapshotPainted === 'number' && !document.getElementById('snapshot')";
/// Whether the page sees the desktop as preferring dark.
const DARK: &str = "return matchMedia('(prefers-color-scheme: dark)').matches";

#[tokio::test(flavor = "multi_thread")]
async fn the_shell_renders_and_about_shows_the_version() -> Result<()> {
    let sandbox = Sandbox::new()?;
    // The desktop's interface font, as GNOME or Ubuntu would set it.
    let gtk = sandbox.path().join("home/.config/gtk-3.0");
    std::fs::create_dir_all(&gtk)?;
    std::fs::write(
        gtk.join("settings.ini"),
        "[Settings]\ngtk-font-name=DejaVu Serif 11\n",
    )?;
    // The desktop's opener, as the app finds it on its PATH: it writes down
    // the link and the preload it was started with.
    let opened = sandbox.path().join("opened");
    let path = opener_on_path(&sandbox, &opened)?;
    let app = App::start_with_env(&sandbox, "shell", Launch::default(), &[("PATH", path)]).await?;
    app.run(async |app| {
        app.find(".rail").await?;
        app.find(".sidebar").await?;
        app.find(".statusbar").await?;
        app.find("[data-testid=inbox-empty]").await?;
        let title = app.client.title().await?;
        ensure!(title == "Pizza Bot", "window title {title:?}");
        // The page is in the desktop's font, not a list of its own.
        let font = app
            .eval("return getComputedStyle(document.body).fontFamily")
            .await?;
        ensure!(
            font.as_str()
                .is_some_and(|f| f.starts_with("\"DejaVu Serif\"")),
            "the page's font is {font}"
        );
        // Let startup settle before reading memory.
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        let (rss, pss) = app.app_memory_kib();
        crate::harness::report(&format!(
            "memory idle after start (app + WebKit processes, {} build): RSS {} MiB, PSS {} MiB",
            if std::env::var("PIZZA_APP_BIN").is_ok_and(|p| p.contains("/release/")) {
                "release"
            } else {
                "debug"
            },
            rss / 1024,
            pss / 1024
        ));

        app.click("[data-testid=rail-settings]").await?;
        app.click("[data-testid=settings-about]").await?;
        let version = app.text("[data-testid=about-version]").await?;
        ensure!(
            version == env!("CARGO_PKG_VERSION"),
            "About shows version {version:?}"
        );
        let root = app.text("[data-testid=about-data-root]").await?;
        ensure!(
            root == sandbox.data_root().display().to_string(),
            "About shows data root {root:?}"
        );

        // Unknown commands and malformed params from the page are ApiErrors.
        for (command, args) in [
            ("thread_explode", "{}"),
            ("settings_update", "{\"theme\": 7}"),
        ] {
            let script = format!(
                "const done = arguments[arguments.length - 1];
                 window.__TAURI_INTERNALS__.invoke('{command}', {args})
                   .then(() => done('resolved'), (e) => done(e && e.code));"
            );
            let code = app.client.execute_async(&script, vec![]).await?;
            ensure!(code == json!("INVALID_INPUT"), "{command} answered {code}");
        }

        // A link goes to the desktop's opener, without what the app set
        // for WebKit's processes (LD_PRELOAD: src-tauri/src/web_preload.rs).
        let script = "const done = arguments[arguments.length - 1];
             window.__TAURI_INTERNALS__.invoke('link_open', {url: 'https://example.com/pizza'})
               .then(() => done('opened'), (e) => done(e && e.message));";
        let answer = app.client.execute_async(script, vec![]).await?;
        ensure!(answer == json!("opened"), "link_open answered {answer}");
        let record = written_until(&opened, |text| text.ends_with("end\n")).await?;
        ensure!(
            record == "https://example.com/pizza\npreload=\nend\n",
            "the opener was started with {record:?}"
        );
        Ok(())
    })
    .await
}

/// A folder holding a fake `xdg-open` that writes what it was given to
/// `record`, ahead of the test's own PATH.
fn opener_on_path(sandbox: &Sandbox, record: &std::path::Path) -> Result<String> {
    use std::os::unix::fs::PermissionsExt;
    let bin = sandbox.path().join("bin");
    std::fs::create_dir_all(&bin)?;
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\nprintf '%s\\npreload=%s\\nend\\n' \"$1\" \"$LD_PRELOAD\" > '{}'\n",
            record.display()
        ),
    )?;
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755))?;
    let inherited = std::env::var("PATH").unwrap_or_default();
    Ok(format!("{}:{inherited}", bin.display()))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_theme_changes_and_survives_a_restart() -> Result<()> {
    let sandbox = Sandbox::new()?;
    // The desktop prefers dark (GNOME's switch, through its portal).
    let portal = PortalSettings::start(1).map_err(|e| anyhow!(e))?;
    let app = App::start(&sandbox, "theme").await?;
    app.run(async |app| {
        app.find(".shell").await?;
        app.wait_for_value(THEME, &json!("system")).await?;
        app.wait_for_value(MADE_IN, &json!("system")).await?;
        // "System" follows the desktop's scheme as the app starts (nothing
        // was emitted: only the start's question can make it dark; a busy
        // machine may answer after the first paint), and then live.
        app.wait_for_value(DARK, &json!(true)).await?;
        portal.set_scheme(2).map_err(|e| anyhow!(e))?;
        app.wait_for_value(DARK, &json!(false)).await?;
        app.click("[data-testid=rail-settings]").await?;
        app.click("[data-testid=theme-dark]").await?;
        app.wait_for_value(THEME, &json!("dark")).await?;
        app.find(".saved").await?;
        // The look kept of this page has the choice but not the passing
        // "Saved": the next window's page does not show it, and it would
        // vanish as the look gives way.
        let kept = sandbox.data_root().join("window-snapshot.html");
        let text = written_until(&kept, |text| {
            text.split("<button")
                .any(|b| b.contains("aria-checked=\"true\"") && b.contains(">Dark<"))
        })
        .await?;
        ensure!(
            !text.contains("class=\"saved\""),
            "the kept look shows the passing notice"
        );
        Ok(())
    })
    .await?;

    let app = App::start(&sandbox, "theme-restart").await?;
    app.run(async |app| {
        app.find(".shell").await?;
        app.wait_for_value(THEME, &json!("dark")).await?;
        // Made dark: no light window before the page has read the settings.
        app.wait_for_value(MADE_IN, &json!("dark")).await?;
        // Back to light, through the keyboard shortcut to Settings.
        app.eval(
            "document.dispatchEvent(new KeyboardEvent('keydown', {key: ',', ctrlKey: true, bubbles: true})); return true",
        )
        .await?;
        app.click("[data-testid=theme-light]").await?;
        app.wait_for_value(THEME, &json!("light")).await?;
        Ok(())
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unusable_data_root_is_explained_in_the_window() -> Result<()> {
    let sandbox = Sandbox::new()?;
    // Below a regular file: unusable even for root.
    std::fs::write(sandbox.path().join("not-a-folder"), b"")?;
    let bad_root = sandbox.path().join("not-a-folder").join("data");
    let launch = Launch {
        data_root: Some(bad_root.clone()),
    };
    let app = App::start_with(&sandbox, "bad-root", launch).await?;
    app.run(async |app| {
        let message = app.text("[data-testid=startup-error]").await?;
        ensure!(
            message.contains(&bad_root.display().to_string())
                && message.contains("Not a directory"),
            "startup error names the path and reason: {message:?}"
        );
        Ok(())
    })
    .await
}

/// What `file` holds (empty: nothing yet) once `done` says so: the look
/// the host keeps of the window, which the page sends after a second of
/// stillness, or what the fake opener wrote down.
async fn written_until(file: &std::path::Path, done: impl Fn(&str) -> bool) -> Result<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        if done(&text) {
            return Ok(text);
        }
        ensure!(
            Instant::now() < deadline,
            "{} still holds {text:?}",
            file.display()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restart_lands_where_it_was_left_showing_its_last_look_at_once() -> Result<()> {
    let sandbox = Sandbox::new()?;
    crate::seed::data_root(&sandbox.data_root(), async |store| {
        // Long enough to scroll.
        crate::seed::thread(store, "Sourdough starter", 12, None).await?;
        crate::seed::thread(store, "Oven temperatures", 1, None).await?;
        Ok(())
    })
    .await?;
    let kept = sandbox.data_root().join("window-snapshot.html");
    let row = |title: &str| {
        format!(
            "[...document.querySelectorAll('[data-testid=thread-row]')].find(r => r.textContent.includes('{title}')).querySelector('.thread__main').click(); return true"
        )
    };
    let pane_title =
        "return document.querySelector('[data-testid=thread-pane-title]')?.textContent ?? null";
    let app = App::start(&sandbox, "snapshot").await?;
    let message_id = app.run(async |app| {
        app.find("[data-testid=thread-row]").await?;
        app.eval(&row("Sourdough starter")).await?;
        app.wait_for_value(pane_title, &json!("Sourdough starter"))
            .await?;
        // Still for a moment, the page sends the host its look, without
        // what only the live page has (ids, test ids).
        let with_thread = |text: &str| {
            text.contains("Question 0 about Sourdough starter?")
                && text.contains("Oven temperatures")
        };
        let text = written_until(&kept, with_thread).await?;
        ensure!(!text.contains("data-testid"), "the snapshot keeps test ids");
        // A list filtered on Unread is not how a new window mounts: that
        // look is not kept, and the last one is forgotten. Back on All, the
        // look is kept again.
        app.click("[data-testid=view-unread]").await?;
        written_until(&kept, str::is_empty).await?;
        app.click("[data-testid=view-all]").await?;
        written_until(&kept, with_thread).await?;
        // Shown on a later day, its rows go under that day's headings: the
        // live list's markup, as if its threads had last moved two days
        // earlier, regrouped as the snapshot is shown.
        let headings = app
            .eval(
                "const copy = document.createElement('div');
                 copy.innerHTML = document.querySelector('body > .shell').outerHTML;
                 const rows = copy.querySelectorAll('[data-activity]');
                 for (const row of rows) row.dataset.activity = String(Number(row.dataset.activity) - 2 * 86400000);
                 window.pizzaSnapshot.regroup(copy);
                 const after = [...copy.querySelectorAll('.threads__heading')].map(h => [h.textContent, h.parentElement.querySelectorAll('[role=listitem]').length]);
                 return [rows.length, after];",
            )
            .await?;
        ensure!(
            headings == json!([2, [["Previous 7 days", 2]]]),
            "regrouped: {headings}"
        );
        // Scrolled up to an earlier message: a scroll is part of the look.
        let scrolled = app
            .eval(
                "const pane = document.querySelector('body > .shell .pane');
                 const article = document.querySelectorAll('.feed > article')[4];
                 pane.scrollTop += article.getBoundingClientRect().top - pane.getBoundingClientRect().top - 10;
                 return [article.dataset.messageId, Math.round(pane.scrollTop)];",
            )
            .await?;
        let (Some(message_id), Some(top)) = (scrolled[0].as_str(), scrolled[1].as_i64()) else {
            anyhow::bail!("scrolled: {scrolled}");
        };
        ensure!(top > 0, "the thread does not scroll: {scrolled}");
        written_until(&kept, |text| {
            text.contains(&format!("data-scroll-top=\"{top}\""))
        })
        .await?;
        Ok(message_id.to_owned())
    })
    .await?;

    let app = App::start(&sandbox, "snapshot-restart").await?;
    app.run(async |app| {
        // Made on the thread it was left on, its look shown before the
        // page's own, then gone; the page is live.
        app.wait_for_value(SNAPSHOT_SHOWN, &json!(true)).await?;
        app.wait_for_value(pane_title, &json!("Sourdough starter"))
            .await?;
        // Scrolled as it was left: the message at the top of the pane then
        // is there now, as high as it was (the page alone would show the
        // last message).
        let top = app
            .eval(&format!(
                "const pane = document.querySelector('body > .shell .pane');
                 const article = document.querySelector('[data-message-id=\"{message_id}\"]');
                 return Math.round(article.getBoundingClientRect().top - pane.getBoundingClientRect().top);"
            ))
            .await?;
        ensure!(
            top.as_i64().is_some_and(|top| (8..=12).contains(&top)),
            "the message left at the top of the pane is at {top}"
        );
        app.eval(&row("Oven temperatures")).await?;
        app.wait_for_value(pane_title, &json!("Oven temperatures"))
            .await?;
        Ok(())
    })
    .await?;
    let logs = std::fs::read_dir(sandbox.data_root().join("logs"))?
        .map(|entry| std::fs::read_to_string(entry?.path()))
        .collect::<std::io::Result<Vec<_>>>()?
        .concat();
    ensure!(
        logs.contains("snapshot_ms="),
        "no start logged painting the snapshot"
    );
    Ok(())
}
