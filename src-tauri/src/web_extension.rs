//! The app's WebKit web process extension (`crates/webext`): where it is,
//! the windows that load it, and asking their pages to hand back the pages
//! of code their web processes read.
//!
//! WebKitGTK loads every shared object in the web context's extensions
//! folder into each web process; the folder is the one holding
//! [`LIBRARY`]: beside the app's binary (a build's target folder, where
//! `cargo xtask run` and the tests build it) or the bundle's resources
//! (the `.deb` installs it in `/usr/lib/Pizza Bot/`). Neither holds another
//! shared object. Without it the app runs as before and its web processes
//! keep their pages (said once in the log).

use std::path::PathBuf;

use tauri::{AppHandle, Manager, Runtime, WebviewWindowBuilder};

/// The extension's file name.
pub(crate) const LIBRARY: &str = "libpizza_webext.so";

/// The folder WebKit loads the extension from, when it was found.
#[derive(Debug, Clone, Default)]
pub(crate) struct WebExtension {
    folder: Option<PathBuf>,
}

impl WebExtension {
    /// Looks beside the binary, then in the bundle's resources.
    pub(crate) fn find(package_info: &tauri::PackageInfo) -> Self {
        let folder = find_in(crate::eval_worker::shipped_folders(package_info));
        match &folder {
            Some(folder) => tracing::info!(folder = %folder.display(), "web process extension"),
            None => tracing::info!(
                "no {LIBRARY} beside the app or in its resources: web processes keep the pages they read"
            ),
        }
        Self { folder }
    }
}

/// The first of `folders` holding the extension.
fn find_in(folders: impl IntoIterator<Item = PathBuf>) -> Option<PathBuf> {
    folders
        .into_iter()
        .find(|folder| folder.join(LIBRARY).is_file())
}

/// `builder` with the extension's folder, when there is one.
pub(crate) fn load_in<'a, R: Runtime, M: Manager<R>>(
    app: &AppHandle<R>,
    builder: WebviewWindowBuilder<'a, R, M>,
) -> WebviewWindowBuilder<'a, R, M> {
    match app
        .try_state::<WebExtension>()
        .and_then(|found| found.folder.clone())
    {
        Some(folder) => builder.extensions_path(folder),
        None => builder,
    }
}

/// Asks each window's page to hand back the pages of code its web process
/// read; each answer is logged.
#[cfg(target_os = "linux")]
pub(crate) fn ask_pages_to_hand_back<R: Runtime>(app: &AppHandle<R>) {
    use webkit2gtk::{UserMessage, UserMessageExt, WebViewExt};

    if app
        .try_state::<WebExtension>()
        .is_none_or(|found| found.folder.is_none())
    {
        return;
    }
    for (label, window) in app.webview_windows() {
        let asked = window.with_webview(move |platform| {
            let message = UserMessage::new(pizza_pages::HAND_BACK_MESSAGE, None);
            platform.inner().send_message_to_page(
                &message,
                None::<&webkit2gtk::gio::Cancellable>,
                move |reply| {
                    let figures = reply.map(|reply| {
                        reply
                            .parameters()
                            .and_then(|figures| figures.get::<(u64, u64, u64)>())
                    });
                    match figures {
                        Ok(Some((mappings, kib, micros))) => tracing::info!(
                            label,
                            mappings,
                            mib = kib / 1024,
                            ms = micros / 1000,
                            "web process: pages of code handed back to the page cache"
                        ),
                        Ok(None) => tracing::debug!(label, "web process: no figures in its answer"),
                        Err(error) => tracing::debug!(%error, label, "web process: no hand-back"),
                    }
                },
            );
        });
        if let Err(error) = asked {
            tracing::debug!(%error, "could not ask a page to hand back its pages");
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn ask_pages_to_hand_back<R: Runtime>(_app: &AppHandle<R>) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_folder_holding_the_extension_is_used() {
        let empty = tempfile::tempdir().unwrap();
        let holding = tempfile::tempdir().unwrap();
        std::fs::write(holding.path().join(LIBRARY), b"").unwrap();
        let also = tempfile::tempdir().unwrap();
        std::fs::write(also.path().join(LIBRARY), b"").unwrap();
        let found = find_in([
            empty.path().to_path_buf(),
            holding.path().to_path_buf(),
            also.path().to_path_buf(),
        ]);
        assert_eq!(found.as_deref(), Some(holding.path()));
        assert_eq!(find_in([empty.path().to_path_buf()]), None);
    }
}
