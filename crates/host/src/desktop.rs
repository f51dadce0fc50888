//! The quick-ask window and its global shortcut: `quick_ask_hide`,
//! `quick_ask_typed_ahead`, `quick_ask_open_thread`, `shortcut_get`,
//! `shortcut_set`.
//!
//! Windows and OS shortcuts belong to the desktop shell, which the app plugs
//! in once its windows exist ([`Host::set_desktop_shell`]); the host keeps
//! the chosen shortcut in settings and what became of it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use pizza_protocol::{
    ApiError, DEFAULT_QUICK_ASK_SHORTCUT, ErrorCode, LinkOpenParams, QuickAskHideParams,
    QuickAskOpenThreadParams, QuickAskTypedAheadParams, ShortcutGetParams, ShortcutSetParams,
    ShortcutStatus, TypedAhead,
};

use pizza_store::Store;

use crate::settings::keys;
use crate::{Host, HostError};

/// Why a shortcut could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShortcutError {
    /// Not a key combination, e.g. a typo in a key name.
    #[error("“{0}” is not a shortcut; write it like Ctrl+Shift+Space.")]
    Invalid(String),
    /// Another app (or this one) holds it.
    #[error("{0} is already used by another app; choose another shortcut.")]
    Taken(String),
    /// This system has no global shortcuts (no display, Wayland without a portal).
    #[error("{0}")]
    Unsupported(String),
}

/// Window and OS-shortcut operations the app provides.
pub trait DesktopShell: Send + Sync {
    /// Shows the main window on the thread and hides the quick-ask window.
    fn open_thread(&self, thread_id: &str);
    /// Hides the quick-ask window.
    fn hide_quick_ask(&self);
    /// Takes what was typed into a quick-ask window made anew before its
    /// page could take keys; nothing after the first call (or where the
    /// shell keeps no keys). May block a moment (a paste's clipboard being
    /// read): the host calls it off its async threads.
    fn take_typed_ahead(&self) -> TypedAhead {
        TypedAhead::default()
    }
    /// Makes `accelerator` (or nothing) the quick-ask shortcut. On error the
    /// previous shortcut stays registered.
    fn set_quick_ask_shortcut(&self, accelerator: Option<&str>) -> Result<(), ShortcutError>;
    /// Why this system cannot have global shortcuts, if it cannot.
    fn shortcuts_unsupported(&self) -> Option<String>;
    /// Shows the native save dialog and waits for the person's answer
    /// (`None`: cancelled, or no dialog here). Blocks: the host calls it off
    /// its async threads.
    fn choose_save_file(&self, dialog: SaveDialog) -> Option<PathBuf> {
        let _ = dialog;
        None
    }
    /// Shows the native open dialog and waits for the person's answer
    /// (`None`: cancelled, or no dialog here). Blocks like
    /// [`DesktopShell::choose_save_file`].
    fn choose_open_file(&self, dialog: OpenDialog) -> Option<PathBuf> {
        let _ = dialog;
        None
    }
    /// Shows the native open dialog for several files of any type and waits
    /// (empty: cancelled, or no dialog here). Blocks like
    /// [`DesktopShell::choose_save_file`].
    fn choose_files(&self, title: String) -> Vec<PathBuf> {
        let _ = title;
        Vec::new()
    }
    /// Opens a file with the system's default app for its type.
    fn open_file(&self, path: &std::path::Path) -> Result<(), String> {
        Err(format!("this build cannot open {}", path.display()))
    }
    /// Shows the native folder picker and waits (`None`: cancelled, or no
    /// dialog here). Blocks like [`DesktopShell::choose_save_file`].
    fn choose_folder(&self, title: String) -> Option<PathBuf> {
        let _ = title;
        None
    }
    /// Opens `url` (already checked with
    /// [`is_external_link`](pizza_protocol::is_external_link)) in the
    /// system's browser or mail app.
    fn open_link(&self, url: &str) -> Result<(), String> {
        Err(format!("this build cannot open {url}"))
    }
    /// Whether the app starts (in the tray) when the person logs in; `None`
    /// when this system offers no way to.
    fn start_at_login(&self) -> Option<bool> {
        None
    }
    /// Turns starting at login on or off; the error is a sentence.
    fn set_start_at_login(&self, on: bool) -> Result<(), String> {
        let _ = on;
        Err("This system offers no way to start Pizza Bot when you log in.".to_owned())
    }
}

/// What the native save dialog shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveDialog {
    pub title: String,
    /// A file name, no folder.
    pub suggested_name: String,
    /// The file-type filter's name, e.g. "Markdown".
    pub filter_name: String,
    /// Its extension, without the dot.
    pub extension: String,
}

/// What the native open dialog shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenDialog {
    pub title: String,
    /// The file-type filter's name, e.g. "Skill ZIP".
    pub filter_name: String,
    /// Its extension, without the dot; several are separated by commas
    /// (`json,jsonl`).
    pub extension: String,
}

/// The host's side: the shell once plugged in, the shortcut's state, and
/// the store where the chosen shortcut is kept.
pub(crate) struct DesktopService {
    store: Store,
    shell: OnceLock<Arc<dyn DesktopShell>>,
    status: Mutex<ShortcutStatus>,
}

impl std::fmt::Debug for DesktopService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DesktopService")
            .field("shell", &self.shell.get().is_some())
            .finish_non_exhaustive()
    }
}

fn no_shell() -> ApiError {
    ApiError::general("This needs the desktop app's windows, which are not open.")
}

impl DesktopService {
    pub(crate) fn new(store: Store) -> Self {
        Self {
            store,
            shell: OnceLock::new(),
            status: Mutex::default(),
        }
    }

    fn shell(&self) -> Result<Arc<dyn DesktopShell>, ApiError> {
        self.shell.get().cloned().ok_or_else(no_shell)
    }

    /// The shell, once the app plugged it in.
    pub(crate) fn plugged_shell(&self) -> Option<Arc<dyn DesktopShell>> {
        self.shell.get().cloned()
    }

    fn set_status(&self, status: ShortcutStatus) -> ShortcutStatus {
        *self.status.lock().unwrap_or_else(PoisonError::into_inner) = status.clone();
        status
    }

    /// Plugs in the app's windows and registers the saved quick-ask shortcut
    /// (a failure is kept for `shortcut_get`, never fatal). Later calls are ignored.
    pub(crate) async fn set_desktop_shell(&self, shell: Arc<dyn DesktopShell>) -> ShortcutStatus {
        if self.shell.set(Arc::clone(&shell)).is_err() {
            return self.current_status();
        }
        let accelerator = match keys::QUICK_ASK_SHORTCUT.read(&self.store).await {
            Ok(Some(saved)) => (!saved.is_empty()).then_some(saved),
            Ok(None) => Some(DEFAULT_QUICK_ASK_SHORTCUT.to_owned()),
            Err(error) => {
                tracing::warn!(%error, "could not read the quick-ask shortcut; using the default");
                Some(DEFAULT_QUICK_ASK_SHORTCUT.to_owned())
            }
        };
        // Registering waits for the window system's answer: not on a worker.
        let status = tokio::task::spawn_blocking(move || register(shell.as_ref(), accelerator))
            .await
            .unwrap_or_else(|error| ShortcutStatus {
                problem: Some(format!("Could not register the shortcut: {error}")),
                ..ShortcutStatus::default()
            });
        if let Some(problem) = &status.problem {
            tracing::warn!(problem, "the quick-ask shortcut is not active");
        }
        self.set_status(status)
    }

    fn current_status(&self) -> ShortcutStatus {
        self.status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(crate) async fn quick_ask_hide(&self, _params: QuickAskHideParams) -> Result<(), ApiError> {
        self.shell()?.hide_quick_ask();
        Ok(())
    }

    pub(crate) async fn quick_ask_typed_ahead(
        &self,
        _params: QuickAskTypedAheadParams,
    ) -> Result<TypedAhead, ApiError> {
        let shell = self.shell()?;
        // It may wait a moment for a paste's clipboard.
        tokio::task::spawn_blocking(move || shell.take_typed_ahead())
            .await
            .map_err(|e| {
                ApiError::general("The keys typed into quick ask could not be read.")
                    .with_details(e.to_string())
            })
    }

    pub(crate) async fn quick_ask_open_thread(
        &self,
        params: QuickAskOpenThreadParams,
    ) -> Result<(), ApiError> {
        self.store
            .thread(&params.thread_id)
            .await
            .map_err(HostError::from)?;
        self.shell()?.open_thread(&params.thread_id);
        Ok(())
    }

    /// The save dialog's answer, waited for off the async threads.
    pub(crate) async fn choose_save_file(
        &self,
        dialog: SaveDialog,
    ) -> Result<Option<PathBuf>, ApiError> {
        let shell = self.shell()?;
        tokio::task::spawn_blocking(move || shell.choose_save_file(dialog))
            .await
            .map_err(|e| {
                ApiError::general("The save dialog closed unexpectedly.")
                    .with_details(e.to_string())
            })
    }

    /// The open dialog's answer, waited for off the async threads.
    pub(crate) async fn choose_open_file(
        &self,
        dialog: OpenDialog,
    ) -> Result<Option<PathBuf>, ApiError> {
        let shell = self.shell()?;
        tokio::task::spawn_blocking(move || shell.choose_open_file(dialog))
            .await
            .map_err(|e| {
                ApiError::general("The open dialog closed unexpectedly.")
                    .with_details(e.to_string())
            })
    }

    /// The files chosen in the multi-file picker, waited for off the async
    /// threads.
    pub(crate) async fn choose_files(&self, title: String) -> Result<Vec<PathBuf>, ApiError> {
        let shell = self.shell()?;
        tokio::task::spawn_blocking(move || shell.choose_files(title))
            .await
            .map_err(|e| {
                ApiError::general("The file picker closed unexpectedly.")
                    .with_details(e.to_string())
            })
    }

    /// Opens `path` with the system's default app, off the async threads.
    pub(crate) async fn open_file(&self, path: PathBuf) -> Result<(), ApiError> {
        let shell = self.shell()?;
        tokio::task::spawn_blocking(move || shell.open_file(&path))
            .await
            .map_err(|e| ApiError::general("Could not open the file.").with_details(e.to_string()))?
            .map_err(|reason| {
                ApiError::general("Could not open the file with your default app.")
                    .with_details(reason)
            })
    }

    /// The folder picker's answer, waited for off the async threads.
    pub(crate) async fn choose_folder(&self, title: String) -> Result<Option<PathBuf>, ApiError> {
        let shell = self.shell()?;
        tokio::task::spawn_blocking(move || shell.choose_folder(title))
            .await
            .map_err(|e| {
                ApiError::general("The folder dialog closed unexpectedly.")
                    .with_details(e.to_string())
            })
    }

    /// Hands an allowed link to the system; anything else is refused.
    pub(crate) async fn link_open(&self, params: LinkOpenParams) -> Result<(), ApiError> {
        if !pizza_protocol::is_external_link(&params.url) {
            return Err(ApiError::invalid_input(
                "Only web (http, https) and email (mailto) links can be opened.",
            ));
        }
        let shell = self.shell()?;
        let url = params.url;
        tokio::task::spawn_blocking(move || shell.open_link(&url))
            .await
            .map_err(|e| ApiError::general("Could not open the link.").with_details(e.to_string()))?
            .map_err(|reason| {
                ApiError::general("Could not open the link in your browser.").with_details(reason)
            })
    }

    pub(crate) async fn shortcut_get(
        &self,
        _params: ShortcutGetParams,
    ) -> Result<ShortcutStatus, ApiError> {
        Ok(self.current_status())
    }

    /// Registers first and saves only what worked, so a refused shortcut
    /// changes nothing.
    pub(crate) async fn shortcut_set(
        &self,
        params: ShortcutSetParams,
    ) -> Result<ShortcutStatus, ApiError> {
        let shell = self.shell()?;
        let accelerator = params
            .accelerator
            .map(|a| a.trim().to_owned())
            .filter(|a| !a.is_empty());
        if let Some(reason) = shell.shortcuts_unsupported() {
            return Err(ApiError::new(ErrorCode::DependencyDisabled, reason));
        }
        let shell_for_call = Arc::clone(&shell);
        let wanted = accelerator.clone();
        // Registering waits for the window system's answer: not on a worker.
        let result = tokio::task::spawn_blocking(move || {
            shell_for_call.set_quick_ask_shortcut(wanted.as_deref())
        })
        .await
        .map_err(|e| {
            ApiError::general("Could not change the shortcut.").with_details(e.to_string())
        })?;
        if let Err(error) = result {
            let code = match error {
                ShortcutError::Invalid(_) => ErrorCode::InvalidInput,
                ShortcutError::Taken(_) => ErrorCode::ResourceInUse,
                ShortcutError::Unsupported(_) => ErrorCode::DependencyDisabled,
            };
            return Err(ApiError::new(code, error.to_string()));
        }
        keys::QUICK_ASK_SHORTCUT
            .write(&self.store, &accelerator.clone().unwrap_or_default())
            .await
            .map_err(HostError::from)?;
        Ok(self.set_status(ShortcutStatus {
            active: accelerator.is_some(),
            accelerator,
            problem: None,
            supported: true,
        }))
    }
}

/// The desktop commands: thin calls of the service.
impl Host {
    /// Plugs in the app's windows and registers the saved quick-ask shortcut
    /// (a failure is kept for `shortcut_get`, never fatal). Later calls are ignored.
    pub async fn set_desktop_shell(&self, shell: Arc<dyn DesktopShell>) -> ShortcutStatus {
        self.inner.desktop.set_desktop_shell(shell).await
    }

    pub async fn quick_ask_hide(&self, params: QuickAskHideParams) -> Result<(), ApiError> {
        self.inner.desktop.quick_ask_hide(params).await
    }

    /// What was typed into a quick-ask window before its page took keys, once.
    pub async fn quick_ask_typed_ahead(
        &self,
        params: QuickAskTypedAheadParams,
    ) -> Result<TypedAhead, ApiError> {
        self.inner.desktop.quick_ask_typed_ahead(params).await
    }

    /// Opens an `http`, `https` or `mailto` link outside the app.
    pub async fn link_open(&self, params: LinkOpenParams) -> Result<(), ApiError> {
        self.inner.desktop.link_open(params).await
    }

    pub async fn quick_ask_open_thread(
        &self,
        params: QuickAskOpenThreadParams,
    ) -> Result<(), ApiError> {
        self.inner.desktop.quick_ask_open_thread(params).await
    }

    pub async fn shortcut_get(
        &self,
        params: ShortcutGetParams,
    ) -> Result<ShortcutStatus, ApiError> {
        self.inner.desktop.shortcut_get(params).await
    }

    /// Registers first and saves only what worked, so a refused shortcut
    /// changes nothing.
    pub async fn shortcut_set(
        &self,
        params: ShortcutSetParams,
    ) -> Result<ShortcutStatus, ApiError> {
        self.inner.desktop.shortcut_set(params).await
    }
}

/// Registers the startup shortcut and describes the result.
fn register(shell: &dyn DesktopShell, accelerator: Option<String>) -> ShortcutStatus {
    if let Some(reason) = shell.shortcuts_unsupported() {
        return ShortcutStatus {
            accelerator,
            active: false,
            problem: Some(reason),
            supported: false,
        };
    }
    let Some(wanted) = accelerator else {
        return ShortcutStatus {
            supported: true,
            ..ShortcutStatus::default()
        };
    };
    match shell.set_quick_ask_shortcut(Some(&wanted)) {
        Ok(()) => ShortcutStatus {
            accelerator: Some(wanted),
            active: true,
            problem: None,
            supported: true,
        },
        Err(error) => ShortcutStatus {
            accelerator: Some(wanted),
            active: false,
            problem: Some(error.to_string()),
            supported: !matches!(error, ShortcutError::Unsupported(_)),
        },
    }
}

#[cfg(test)]
#[path = "desktop_tests.rs"]
mod tests;
