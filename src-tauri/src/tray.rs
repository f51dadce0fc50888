//! The tray icon and its menu, closing the main window to the tray, and
//! quitting: confirmed while runs are live, then a graceful shutdown with a
//! deadline.

use std::time::Duration;

use pizza_host::Host;
use pizza_protocol::{AppEvent, AutomationsGetParams, AutomationsPatch};
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager, Runtime, Wry};
use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};
use tokio::sync::broadcast::error::RecvError;

/// Menu item ids.
pub(crate) const OPEN: &str = "open";
pub(crate) const QUICK_ASK: &str = "quick_ask";
pub(crate) const LIVE: &str = "live_runs";
pub(crate) const AUTOMATIONS: &str = "automations";
pub(crate) const QUIT: &str = "quit";

/// How long quitting waits for live runs to record their end.
pub(crate) const QUIT_DEADLINE: Duration = Duration::from_secs(10);

/// The well-known name a tray host (StatusNotifierWatcher) owns on the session bus.
const WATCHER: &str = "org.kde.StatusNotifierWatcher";

/// The menu's line about live runs.
pub(crate) fn live_label(count: usize) -> String {
    match count {
        0 => "No runs in progress".to_owned(),
        1 => "1 run in progress".to_owned(),
        n => format!("{n} runs in progress"),
    }
}

/// The automations item's label: what clicking it does.
pub(crate) fn automations_label(enabled: bool) -> &'static str {
    if enabled {
        "Pause automations"
    } else {
        "Resume automations"
    }
}

/// Creates the tray icon and keeps its live-runs and automations lines current.
pub(crate) fn install(app: &AppHandle<Wry>, host: &Host) -> tauri::Result<()> {
    let live = MenuItem::with_id(
        app,
        LIVE,
        live_label(host.live_run_count()),
        false,
        None::<&str>,
    )?;
    // Paused until the host says otherwise, as automations start.
    let automations = MenuItem::with_id(
        app,
        AUTOMATIONS,
        automations_label(false),
        true,
        None::<&str>,
    )?;
    let menu = Menu::with_items(
        app,
        &[
            &MenuItem::with_id(app, OPEN, "Open Pizza Bot", true, None::<&str>)?,
            &MenuItem::with_id(app, QUICK_ASK, "Quick ask…", true, None::<&str>)?,
            &PredefinedMenuItem::separator(app)?,
            &live,
            &automations,
            &PredefinedMenuItem::separator(app)?,
            &MenuItem::with_id(app, QUIT, "Quit Pizza Bot", true, None::<&str>)?,
        ],
    )?;
    // Decoded at build time: no image decoder in the app.
    TrayIconBuilder::with_id("main")
        .tooltip("Pizza Bot")
        .menu(&menu)
        .on_menu_event(|app, event| on_menu(app, event.id().as_ref()))
        .icon(tauri::include_image!("../icons/tray.png"))
        .build(app)?;
    keep_live_line(live, host);
    keep_automations_line(automations, host);
    Ok(())
}

/// Shows the state at start, then follows every `AutomationsChanged`
/// (from this item, the Automations page or anywhere else).
fn keep_automations_line<R: Runtime>(item: MenuItem<R>, host: &Host) {
    // Subscribed before reading, so a change in between is not missed.
    let mut events = host.subscribe();
    let host = host.clone();
    tauri::async_runtime::spawn(async move {
        let show = |enabled: bool| {
            if let Err(error) = item.set_text(automations_label(enabled)) {
                tracing::debug!(%error, "could not update the tray's automations item");
            }
        };
        match host.automations_get(AutomationsGetParams {}).await {
            Ok(automations) => show(automations.enabled),
            Err(error) => tracing::warn!(%error, "could not read whether automations are on"),
        }
        loop {
            match events.recv().await {
                Ok(AppEvent::AutomationsChanged { automations }) => show(automations.enabled),
                Ok(_) => {}
                Err(RecvError::Lagged(_)) => {
                    if let Ok(automations) = host.automations_get(AutomationsGetParams {}).await {
                        show(automations.enabled);
                    }
                }
                Err(RecvError::Closed) => break,
            }
        }
    });
}

/// Pauses automations when they run, resumes them when paused; the label
/// follows from the change's event.
fn toggle_automations<R: Runtime>(app: &AppHandle<R>) {
    let Some(host) = app.try_state::<Host>().map(|host| host.inner().clone()) else {
        return;
    };
    tauri::async_runtime::spawn(async move {
        let toggled = async {
            let now = host.automations_get(AutomationsGetParams {}).await?;
            host.automations_update(AutomationsPatch {
                enabled: Some(!now.enabled),
                ..AutomationsPatch::default()
            })
            .await
        };
        match toggled.await {
            Ok(automations) => tracing::info!(
                enabled = automations.enabled,
                "automations switched from the tray"
            ),
            Err(error) => tracing::warn!(%error, "could not switch automations from the tray"),
        }
    });
}

/// Re-counts live runs on every app event: a run's start and end both send one.
fn keep_live_line<R: Runtime>(item: MenuItem<R>, host: &Host) {
    let mut events = host.subscribe();
    let host = host.clone();
    tauri::async_runtime::spawn(async move {
        let mut shown = usize::MAX;
        loop {
            match events.recv().await {
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => break,
            }
            let count = host.live_run_count();
            if count != shown {
                shown = count;
                if let Err(error) = item.set_text(live_label(count)) {
                    tracing::debug!(%error, "could not update the tray's run count");
                }
            }
        }
    });
}

/// What a tray menu item does.
pub(crate) fn on_menu<R: Runtime>(app: &AppHandle<R>, id: &str) {
    match id {
        OPEN => crate::navigate::show_main_window(app),
        QUICK_ASK => crate::quick_ask::show(app),
        AUTOMATIONS => toggle_automations(app),
        QUIT => request_quit(app),
        other => tracing::debug!(id = other, "unknown tray menu item"),
    }
}

/// Quits, after asking when runs would be cancelled.
pub(crate) fn request_quit<R: Runtime>(app: &AppHandle<R>) {
    let live = app.try_state::<Host>().map_or(0, |h| h.live_run_count());
    if live == 0 {
        quit(app);
        return;
    }
    let message = format!(
        "{} will be stopped and marked cancelled. Quit anyway?",
        match live {
            1 => "A run is in progress. It".to_owned(),
            n => format!("{n} runs are in progress. They"),
        }
    );
    let handle = app.clone();
    app.dialog()
        .message(message)
        .title("Quit Pizza Bot?")
        .kind(MessageDialogKind::Warning)
        .buttons(MessageDialogButtons::OkCancelCustom(
            "Quit".to_owned(),
            "Keep running".to_owned(),
        ))
        .show(move |confirmed| {
            if confirmed {
                quit(&handle);
            }
        });
}

/// Refuses new runs, cancels live ones (recorded `cancelled`) and exits once
/// they have ended or the deadline passed. The database is closed after the
/// event loop returns.
pub(crate) fn quit<R: Runtime>(app: &AppHandle<R>) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Some(host) = app.try_state::<Host>() {
            let report = host.shutdown(QUIT_DEADLINE).await;
            tracing::info!(
                cancelled = report.cancelled,
                in_time = report.finished_in_time,
                "quitting"
            );
        }
        app.exit(0);
    });
}

/// The main window was asked to close. With a tray to bring it back it only
/// hides (runs go on); without one, the user chooses between quitting and
/// keeping the window.
pub(crate) fn on_close_requested<R: Runtime>(app: &AppHandle<R>) {
    // Said before anything can fail or wait, so a log without this line
    // shows the close never reached the app.
    tracing::info!("the main window was asked to close");
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if tray_is_hosted().await {
            tracing::info!("window closed to the tray");
            crate::main_window::hide(&app);
            return;
        }
        tracing::info!("no tray host: asking whether to quit");
        let handle = app.clone();
        app.dialog()
            .message(
                "There is no system tray to bring the window back from, so closing it quits \
                 Pizza Bot. Runs in progress will be stopped.",
            )
            .title("Quit Pizza Bot?")
            .kind(MessageDialogKind::Info)
            .buttons(MessageDialogButtons::OkCancelCustom(
                "Quit".to_owned(),
                "Keep open".to_owned(),
            ))
            .show(move |confirmed| {
                if confirmed {
                    quit(&handle);
                }
            });
    });
}

/// Whether a tray host shows our icon: someone owns the
/// StatusNotifierWatcher name on the session bus (Linux). Elsewhere the tray
/// is always there.
pub(crate) async fn tray_is_hosted() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let check = async {
        let connection = crate::session_bus::connection().await?;
        let proxy = zbus::fdo::DBusProxy::new(connection).await?;
        let name = zbus::names::BusName::try_from(WATCHER)?;
        proxy.name_has_owner(name).await.map_err(zbus::Error::from)
    };
    match tokio::time::timeout(Duration::from_secs(5), check).await {
        Ok(Ok(owned)) => owned,
        Ok(Err(error)) => {
            tracing::warn!(%error, "could not ask the session bus for a tray host");
            false
        }
        Err(_) => {
            tracing::warn!(
                "the session bus did not answer whether a tray host runs; asking instead of hiding"
            );
            false
        }
    }
}
