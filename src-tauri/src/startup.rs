//! Startup and the event loop.

use crate::ipc::{CommandRegistry, HostSlot};
use crate::logging;
use pizza_host::{DataRoot, Host, HostOptions};
use pizza_launch::TerminalQuestion;
use pizza_protocol::ApiError;
use std::process::ExitCode;
use tauri::{AppHandle, Manager, RunEvent, Runtime, WindowEvent};

/// Exit code when the app could not start (bad data root and the like).
const EXIT_STARTUP_FAILED: u8 = 2;

pub(crate) fn run() -> ExitCode {
    let started = std::time::Instant::now();
    // A second launch hands over to the app running on its data root before
    // it opens anything (the store, its log, GTK's display: work thrown away
    // a moment later while the running app makes its window on the same
    // cores); the plugin below stays the judge. `pizza-bot-open` makes the
    // same call without loading this program's libraries (crates/launch).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if pizza_launch::hand_over_to_running_app(&args) {
        return ExitCode::SUCCESS;
    }
    crate::webview::prepare_process();
    // Asked now, answered while the store opens; applied before the window.
    let theme = crate::desktop_theme::DesktopTheme::ask();
    let mut context = tauri::generate_context!("../tauri.conf.json");
    let read_ahead = crate::ui_assets::install(&mut context);
    let (slot, _log_guard, instance_key) = match open_host(context.package_info()) {
        Ok((host, guard)) => {
            let key = pizza_launch::instance_key(host.data_root().path());
            (HostSlot::Ready(host), guard, Some(key))
        }
        Err(message) => {
            // Said on stderr for terminals and logs, and in the window for people.
            eprintln!("Pizza Bot cannot start: {message}");
            let guard = logging::init_stderr_only();
            (HostSlot::Failed(ApiError::general(message)), guard, None)
        }
    };
    let failed = matches!(slot, HostSlot::Failed(_));
    let host = match &slot {
        HostSlot::Ready(host) => Some(host.clone()),
        HostSlot::Failed(_) => None,
    };

    let mut builder = tauri::Builder::default();
    if let Some(key) = instance_key {
        builder = builder.plugin(
            tauri_plugin_single_instance::Builder::new()
                .dbus_id(key)
                .callback(|app, args, _cwd| on_launch(app, &LaunchArgs::parse(args)))
                .build(),
        );
    }
    let launch = LaunchArgs::parse(std::env::args());
    let setup_host = host.clone();
    builder = crate::attachment_scheme::register(builder, host.clone());
    builder = crate::shortcut::install(builder);
    let app = builder
        .plugin(tauri_plugin_dialog::init())
        .plugin(crate::links::plugin())
        .on_page_load(crate::webview::on_page_load)
        .setup(move |app| {
            // The start-up figures' first step: the store is open and
            // the runtime, plugins and event loop are made.
            tracing::info!(
                ms = started.elapsed().as_millis() as u64,
                "set up, making the window"
            );
            app.manage(read_ahead);
            app.manage(crate::main_window::Releases::default());
            app.manage(crate::web_extension::WebExtension::find(app.package_info()));
            app.manage(crate::outbox::Outboxes::default());
            app.manage(crate::type_ahead::TypeAhead::default());
            app.manage(crate::desktop_font::DesktopFont::follow());
            app.manage(crate::first_paint::DesktopShade::follow());
            theme.follow(app.handle(), !launch.starts_hidden());
            setup_desktop(app.handle(), setup_host.as_ref(), &launch);
            Ok(())
        })
        .invoke_handler(crate::ipc::invoke_handler(CommandRegistry::new(), slot))
        .build(context);
    let app = match app {
        Ok(app) => app,
        Err(error) => {
            eprintln!("Pizza Bot cannot open its window: {error}");
            tracing::error!(%error, "tauri failed to start");
            return ExitCode::FAILURE;
        }
    };
    if let Some(host) = &host {
        crate::events::forward(app.handle().clone(), host);
    }
    let code = app.run_return(on_run_event);
    if let Some(host) = host {
        // Whatever way the app ends, no MCP server process outlives it.
        host.kill_mcp_servers();
        // Checkpoint the WAL and release the database before the process ends.
        tauri::async_runtime::block_on(host.close());
    }
    tracing::info!(code, "exiting");
    if failed {
        ExitCode::from(EXIT_STARTUP_FAILED)
    } else {
        ExitCode::from(u8::try_from(code).unwrap_or(1))
    }
}

/// Resolves and prepares the data root, starts file logging there, and opens
/// the host. The error is a sentence naming the path and the reason.
fn open_host(package_info: &tauri::PackageInfo) -> Result<(Host, logging::LogGuard), String> {
    let path = pizza_launch::data_root()?;
    let data_root = DataRoot::prepare(path).map_err(|e| e.to_string())?;
    let guard = logging::init(&data_root.logs_dir());
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "starting Pizza Bot");
    let mut options = host_options(package_info);
    if let Some(dir) = crate::builtin_skills::resolve(package_info) {
        tracing::info!(dir = %dir.display(), "built-in skills");
        options = options.with_builtin_skills(dir);
    }
    let host = tauri::async_runtime::block_on(Host::open(data_root, options))
        .map_err(|e| e.to_string())?;
    Ok((host, guard))
}

/// The OS services the host gets: provider secrets in the real keychain,
/// run outcomes as native notifications, programs of the eval tool in the
/// worker shipped with the app.
fn host_options(package_info: &tauri::PackageInfo) -> HostOptions {
    let options = HostOptions::default()
        .with_secrets(std::sync::Arc::new(
            crate::keychain::KeychainSecrets::default(),
        ))
        .with_notifier(crate::notifications::app_notifier());
    match crate::eval_worker::resolve(package_info) {
        Some(worker) => options.with_eval_worker(worker),
        None => options,
    }
}

/// What a launch asks for: `--thread <id>` shows that thread, `--quick-ask`
/// opens the quick-ask window (for a desktop's own keyboard shortcut),
/// `--hidden` starts in the tray without the main window (start at login).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct LaunchArgs {
    thread: Option<String>,
    quick_ask: bool,
    hidden: bool,
}

impl LaunchArgs {
    /// Reads the arguments after the program name; unknown ones are ignored.
    pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Self {
        let mut parsed = Self::default();
        let mut args = args.into_iter().skip(1);
        while let Some(arg) = args.next() {
            if arg == "--quick-ask" {
                parsed.quick_ask = true;
            } else if arg == crate::autostart::HIDDEN_FLAG {
                parsed.hidden = true;
            } else if arg == "--thread" {
                parsed.thread = args.next().filter(|id| !id.is_empty());
            } else if let Some(id) = arg.strip_prefix("--thread=") {
                parsed.thread = Some(id.to_owned()).filter(|id| !id.is_empty());
            }
        }
        parsed
    }

    /// Whether this launch starts in the tray without any window (at login).
    fn starts_hidden(&self) -> bool {
        self.hidden && self.thread.is_none() && !self.quick_ask
    }
}

/// What the launch options are, for `--help`.
const USAGE: &str = "\
Usage: pizza-bot [OPTION]

Starts Pizza Bot, or shows the one already running.

Options:
  --thread <id>   open that thread
  --quick-ask     open the quick-ask window
  --hidden        start in the tray without the window (start at login)
  -V, --version   print the version and exit
  -h, --help      print this help and exit

Environment: PIZZA_DATA_ROOT (where the data is kept), RUST_LOG (log level).

pizza-bot-open, installed beside it, takes the same options and reaches
a running app sooner (it does not load the app's libraries first).";

/// `--version` and `--help` (the first such argument wins): the text to
/// print instead of starting the app.
pub(crate) fn terminal_answer(args: impl IntoIterator<Item = String>) -> Option<String> {
    pizza_launch::terminal_question(args).map(|question| match question {
        TerminalQuestion::Version => format!("Pizza Bot {}", env!("CARGO_PKG_VERSION")),
        TerminalQuestion::Help => USAGE.to_owned(),
    })
}

/// A launch (this one or a second one forwarded here): show what it asked
/// for. A second launch with `--hidden` (a login while the app already
/// runs) changes nothing.
pub(crate) fn on_launch<R: Runtime>(app: &AppHandle<R>, args: &LaunchArgs) {
    if let Some(thread_id) = &args.thread {
        crate::navigate::open_thread(app, thread_id);
    } else if args.quick_ask {
        crate::quick_ask::show(app);
    } else if !args.hidden {
        crate::navigate::show_main_window(app);
    }
}

/// Tray, desktop shell and the launch's request, once the windows exist.
fn setup_desktop(app: &AppHandle, host: Option<&Host>, launch: &LaunchArgs) {
    if let Some(host) = host {
        app.manage(host.clone());
        // The window first: its web process starts while the rest is set up.
        if launch.starts_hidden() {
            // Started at login: no window (no web process) until the tray,
            // a notification or a second launch asks for one.
            tracing::info!("started hidden, in the tray");
            crate::mapped_pages::after_settling(app);
        } else if launch.thread.is_some() || launch.quick_ask {
            on_launch(app, launch);
        } else {
            crate::main_window::show(app);
        }
        crate::notifications::install(app, host);
        if let Err(error) = crate::tray::install(app, host) {
            tracing::warn!(%error, "no tray icon");
        }
        crate::mapped_pages::after_runs(app, host);
        crate::sleep::start(std::sync::Arc::new(host.clone()));
        let shell = std::sync::Arc::new(crate::quick_ask::TauriShell::new(app.clone()));
        // Messages queued before the last quit go once models can be resolved.
        let queue_host = host.clone();
        tauri::async_runtime::spawn(async move { queue_host.start_queued_messages().await });
        let host = host.clone();
        tauri::async_runtime::spawn(async move {
            host.set_desktop_shell(shell).await;
            // Triggers arm, and what a crash left relaunches, with the shell
            // plugged in (start at login reads through it).
            if let Err(error) = host.start_automations().await {
                tracing::warn!(code = %error.code, "automations could not start");
            }
            // MCP servers connect in the background; nothing waits for them.
            if let Err(error) = host.start_mcp().await {
                tracing::warn!(code = %error.code, message = %error.message, "MCP servers could not start");
            }
            // Skills edited by hand in the data root show without a restart.
            if let Err(error) = host.start_skill_watch().await {
                tracing::warn!(code = %error.code, message = %error.message, "the skills folder is not watched");
            }
        });
    } else if let Err(error) = crate::main_window::get_or_build(app) {
        // The window explains why the app cannot start.
        tracing::error!(%error, "could not open the main window");
    }
}

fn on_run_event(app: &AppHandle, event: RunEvent) {
    match event {
        // Every window closed (released to the tray): the app goes on, as
        // runs and schedules do. Only `quit` (an exit code) ends it.
        RunEvent::ExitRequested {
            code: None, api, ..
        } if app.try_state::<Host>().is_some() => api.prevent_exit(),
        RunEvent::WindowEvent { label, event, .. } => on_window_event(app, &label, &event),
        _ => {}
    }
}

fn on_window_event(app: &AppHandle, label: &str, event: &WindowEvent) {
    let is_main = label == crate::main_window::LABEL;
    match event {
        WindowEvent::CloseRequested { api, .. } => {
            if is_main && app.try_state::<Host>().is_some() {
                api.prevent_close();
                crate::tray::on_close_requested(app);
            } else if label == crate::quick_ask::LABEL {
                api.prevent_close();
                crate::quick_ask::hide(app);
            }
        }
        WindowEvent::Focused(focused) if is_main => {
            if let Some(host) = app.try_state::<Host>() {
                host.set_window_focused(*focused);
            }
        }
        WindowEvent::DragDrop(drag) => {
            if let (Some(outboxes), Some(message)) = (
                app.try_state::<crate::outbox::Outboxes>(),
                crate::outbox::drag_message(drag),
            ) {
                outboxes.send(label, message);
            }
        }
        WindowEvent::Destroyed => on_window_destroyed(app, label),
        _ => {}
    }
}

/// A webview gone: its page's outbox goes with it. The last one gone
/// (closed to the tray): WebKit's network process goes too, and the pages
/// of code the windows read are handed back. On the event loop's thread, where webviews are made, so a
/// window being opened cannot fall between the check and the end.
fn on_window_destroyed(app: &AppHandle, label: &str) {
    // Tauri forgets the window before this runs, so a webview of that label
    // now would be a new one, whose page's load made it a fresh outbox.
    if let Some(outboxes) = app.try_state::<crate::outbox::Outboxes>()
        && app.get_webview_window(label).is_none()
    {
        outboxes.close(label);
    }
    if app.try_state::<Host>().is_none() {
        return;
    }
    if app.webview_windows().keys().any(|other| other != label) {
        return;
    }
    let ended = crate::network_process::end();
    if ended > 0 {
        tracing::info!(
            ended,
            "no webview open: WebKit's network process ended (another starts with the next window)"
        );
    }
    crate::mapped_pages::after_settling(app);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(args: &[&str]) -> LaunchArgs {
        LaunchArgs::parse(
            std::iter::once("pizza-bot")
                .chain(args.iter().copied())
                .map(str::to_owned),
        )
    }

    #[test]
    fn launch_arguments_name_a_thread_or_quick_ask() {
        assert_eq!(launch(&[]), LaunchArgs::default());
        assert_eq!(launch(&["--thread", "t1"]).thread.as_deref(), Some("t1"));
        assert_eq!(launch(&["--thread=t2"]).thread.as_deref(), Some("t2"));
        assert_eq!(launch(&["--thread"]).thread, None);
        assert!(launch(&["--quick-ask", "--unknown"]).quick_ask);
        assert!(launch(&["--hidden"]).hidden);
        assert!(!launch(&["--thread", "t1"]).hidden);
    }

    #[test]
    fn only_a_hidden_launch_asking_for_nothing_starts_without_a_window() {
        assert!(launch(&["--hidden"]).starts_hidden());
        assert!(!launch(&[]).starts_hidden());
        assert!(!launch(&["--hidden", "--thread", "t1"]).starts_hidden());
        assert!(!launch(&["--hidden", "--quick-ask"]).starts_hidden());
    }

    #[test]
    fn version_and_help_are_answered_without_starting() {
        let answer = |args: &[&str]| {
            terminal_answer(
                std::iter::once("pizza-bot")
                    .chain(args.iter().copied())
                    .map(str::to_owned),
            )
        };
        let version = format!("Pizza Bot {}", env!("CARGO_PKG_VERSION"));
        assert_eq!(answer(&["--version"]), Some(version.clone()));
        assert_eq!(answer(&["--hidden", "-V"]), Some(version));
        let help = answer(&["-h", "--version"]).unwrap_or_default();
        assert!(help.starts_with("Usage: pizza-bot"), "{help}");
        for option in ["--thread", "--quick-ask", crate::autostart::HIDDEN_FLAG] {
            assert!(help.contains(option), "{option} missing from {help}");
        }
        assert_eq!(answer(&[]), None);
        assert_eq!(answer(&["--thread", "t1", "--hidden"]), None);
    }

    #[test]
    fn the_tray_line_counts_live_runs() {
        assert_eq!(crate::tray::live_label(0), "No runs in progress");
        assert_eq!(crate::tray::live_label(1), "1 run in progress");
        assert_eq!(crate::tray::live_label(3), "3 runs in progress");
    }
}
