//! The quick-ask window: a small floating window, opened from the tray or the
//! global shortcut, where a question starts a new thread. The same UI renders
//! it, told by the `view=quick-ask` query.

use std::path::PathBuf;

use pizza_host::{DesktopShell, OpenDialog, SaveDialog, ShortcutError};
use pizza_protocol::{PageMessage, TypedAhead, WindowEvent};
use tauri::{AppHandle, Manager, Runtime, WebviewUrl, WebviewWindowBuilder};

/// The window's label (its capability in `capabilities/quick-ask.json` and
/// its command scope in the protocol name it).
pub(crate) const LABEL: &str = pizza_protocol::WindowScope::QuickAsk.label();
const URL: &str = "index.html?view=quick-ask";
const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 360.0;

/// Shows the quick-ask window, creating it the first time.
pub(crate) fn show<R: Runtime>(app: &AppHandle<R>) {
    crate::main_window::keep(app, LABEL);
    if let Some(window) = app.get_webview_window(LABEL) {
        let _ = window.show();
        let _ = window.unminimize();
        let _ = window.set_focus();
        if let Some(outboxes) = app.try_state::<crate::outbox::Outboxes>() {
            outboxes.send(
                LABEL,
                PageMessage::Window {
                    event: WindowEvent::QuickAskShown,
                },
            );
        }
        return;
    }
    crate::ui_assets::prepare(app);
    let page = crate::first_paint::page(app, URL);
    let builder = WebviewWindowBuilder::new(app, LABEL, WebviewUrl::App(page.into()));
    let built = crate::web_extension::load_in(app, builder)
        .background_color(crate::first_paint::background(app))
        // A page never opens windows of its own; links go to the browser.
        .on_new_window(|url, _features| {
            crate::links::open_instead(&url);
            tauri::webview::NewWindowResponse::Deny
        })
        .title("Quick ask — Pizza Bot")
        .inner_size(WIDTH, HEIGHT)
        .resizable(false)
        .decorations(false)
        .always_on_top(true)
        .skip_taskbar(true)
        .center()
        .focused(true)
        .build();
    match built {
        Ok(window) => {
            crate::ui_assets::hand_module_to(app, &window);
            crate::type_ahead::watch(app, &window);
        }
        Err(error) => tracing::warn!(%error, "could not open the quick-ask window"),
    }
}

/// Hides the quick-ask window, released after a grace like the main
/// window; its run goes on and lands in the inbox.
pub(crate) fn hide<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(LABEL) {
        let _ = window.hide();
    }
    crate::main_window::release_later(app, LABEL);
}

/// Set by whoever starts the app (end-to-end tests): the save dialog is not
/// shown and this path is its answer.
const SAVE_DIALOG_ANSWER: &str = "PIZZA_SAVE_DIALOG_ANSWER";
/// Likewise for the open dialog (a skill ZIP to import).
const OPEN_DIALOG_ANSWER: &str = "PIZZA_OPEN_DIALOG_ANSWER";
/// Likewise for the attach dialog: the paths it answers, one per line.
const ATTACH_DIALOG_ANSWER: &str = "PIZZA_ATTACH_DIALOG_ANSWER";

/// The host's window and shortcut operations, on this app's windows.
pub(crate) struct TauriShell<R: Runtime> {
    app: AppHandle<R>,
    shortcut: crate::shortcut::QuickAskShortcut<R>,
}

impl<R: Runtime> TauriShell<R> {
    pub(crate) fn new(app: AppHandle<R>) -> Self {
        Self {
            shortcut: crate::shortcut::QuickAskShortcut::new(app.clone()),
            app,
        }
    }
}

impl<R: Runtime> DesktopShell for TauriShell<R> {
    fn open_thread(&self, thread_id: &str) {
        hide(&self.app);
        crate::navigate::open_thread(&self.app, thread_id);
    }

    fn hide_quick_ask(&self) {
        hide(&self.app);
    }

    fn take_typed_ahead(&self) -> TypedAhead {
        self.app
            .try_state::<crate::type_ahead::TypeAhead>()
            .map(|type_ahead| type_ahead.take())
            .unwrap_or_default()
    }

    fn set_quick_ask_shortcut(&self, accelerator: Option<&str>) -> Result<(), ShortcutError> {
        self.shortcut.set(accelerator)
    }

    fn shortcuts_unsupported(&self) -> Option<String> {
        crate::shortcut::unsupported_reason()
    }

    fn choose_save_file(&self, dialog: SaveDialog) -> Option<PathBuf> {
        if let Some(answer) = answered(SAVE_DIALOG_ANSWER, "save") {
            return Some(answer);
        }
        let chosen = self
            .file_dialog(dialog.title, dialog.filter_name, &dialog.extension)
            .set_file_name(dialog.suggested_name)
            .blocking_save_file()?;
        chosen_path(chosen, "save")
    }

    fn choose_open_file(&self, dialog: OpenDialog) -> Option<PathBuf> {
        if let Some(answer) = answered(OPEN_DIALOG_ANSWER, "open") {
            return Some(answer);
        }
        let chosen = self
            .file_dialog(dialog.title, dialog.filter_name, &dialog.extension)
            .blocking_pick_file()?;
        chosen_path(chosen, "open")
    }

    fn choose_files(&self, title: String) -> Vec<PathBuf> {
        if let Some(answer) = std::env::var_os(ATTACH_DIALOG_ANSWER) {
            tracing::info!(paths = ?answer, "attach dialog answered by {ATTACH_DIALOG_ANSWER}");
            return answer
                .to_string_lossy()
                .lines()
                .filter(|line| !line.is_empty())
                .map(PathBuf::from)
                .collect();
        }
        use tauri_plugin_dialog::DialogExt;
        let mut builder = self.app.dialog().file().set_title(title).add_filter(
            "Images, PDFs and text",
            &[
                "png", "jpg", "jpeg", "gif", "webp", "pdf", "txt", "md", "csv", "json", "html",
                "log", "yaml", "yml", "toml", "xml", "rs", "py", "js", "ts", "go", "java", "c",
                "cpp", "h", "sh", "sql",
            ],
        );
        builder = builder.add_filter("All files", &["*"]);
        if let Some(window) = self.app.get_webview_window(crate::main_window::LABEL) {
            builder = builder.set_parent(&window);
        }
        builder
            .blocking_pick_files()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|chosen| chosen_path(chosen, "attach"))
            .collect()
    }

    fn open_file(&self, path: &std::path::Path) -> Result<(), String> {
        crate::opener::open_detached(path).map_err(|error| error.to_string())
    }

    fn choose_folder(&self, title: String) -> Option<PathBuf> {
        if let Some(answer) = answered(OPEN_DIALOG_ANSWER, "folder") {
            return Some(answer);
        }
        use tauri_plugin_dialog::DialogExt;
        let mut builder = self.app.dialog().file().set_title(title);
        if let Some(window) = self.app.get_webview_window(crate::main_window::LABEL) {
            builder = builder.set_parent(&window);
        }
        chosen_path(builder.blocking_pick_folder()?, "folder")
    }

    fn open_link(&self, url: &str) -> Result<(), String> {
        crate::links::open_external(url)
    }

    fn start_at_login(&self) -> Option<bool> {
        crate::autostart::start_at_login()
    }

    fn set_start_at_login(&self, on: bool) -> Result<(), String> {
        crate::autostart::set_start_at_login(on)
    }
}

impl<R: Runtime> TauriShell<R> {
    /// A native file dialog over the main window, filtered to the
    /// extensions `extension` lists (separated by commas).
    fn file_dialog(
        &self,
        title: String,
        filter_name: String,
        extension: &str,
    ) -> tauri_plugin_dialog::FileDialogBuilder<R> {
        use tauri_plugin_dialog::DialogExt;
        let extensions: Vec<&str> = extension.split(',').map(str::trim).collect();
        let mut builder = self
            .app
            .dialog()
            .file()
            .set_title(title)
            .add_filter(filter_name, &extensions);
        if let Some(window) = self.app.get_webview_window(crate::main_window::LABEL) {
            builder = builder.set_parent(&window);
        }
        builder
    }
}

/// Automated runs have no one to click a dialog: whoever starts the app may
/// answer it in advance through `env` (the page never can).
fn answered(env: &str, kind: &str) -> Option<PathBuf> {
    let answer = std::env::var_os(env)?;
    tracing::info!(path = ?answer, "{kind} dialog answered by {env}");
    Some(PathBuf::from(answer))
}

fn chosen_path(chosen: tauri_plugin_dialog::FilePath, kind: &str) -> Option<PathBuf> {
    match chosen.into_path() {
        Ok(path) => Some(path),
        Err(error) => {
            tracing::warn!(%error, "the {kind} dialog answered something that is not a file");
            None
        }
    }
}
