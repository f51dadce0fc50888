//! Native notifications over the freedesktop D-Bus service (notify-rust),
//! with click-through: a click ("default" action) calls the handler set with
//! [`DesktopNotifier::on_click`], which shows the window on the thread.
//!
//! An "Action required" notification for a single gated call also offers
//! Approve and Deny when the server supports actions; pressing one calls the
//! handler set with [`DesktopNotifier::on_decision`] (the host's
//! `notification_decide`, the approval card's path).
//!
//! Whether a notification service is there is asked with
//! `GetServerInformation` and remembered for a minute, so a service that
//! starts (or stops) later is noticed without asking per outcome.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use pizza_host::{
    Host, Notification, NotificationDecision, NotificationKind, Notifier, NotifyError,
};
use pizza_protocol::ThreadId;
use tauri::{AppHandle, Runtime};

/// Threads whose last notification is remembered for replacing.
const REMEMBERED_THREADS: usize = 256;
/// How long an answer about the notification service is trusted.
const RECHECK_AFTER: Duration = Duration::from_secs(60);
/// The action a click on the notification's body invokes.
const DEFAULT_ACTION: &str = "default";
/// The Approve and Deny buttons' action keys.
const APPROVE_ACTION: &str = "approve";
const DENY_ACTION: &str = "deny";
const APP_NAME: &str = "Pizza Bot";
/// The icon name the installed package provides.
const ICON: &str = "pizza-bot";

type ClickHandler = Box<dyn Fn(ThreadId) + Send + Sync>;
type DecisionHandler = Box<dyn Fn(NotificationDecision) + Send + Sync>;

/// The app's one notifier: the host gets it at open, the click handler is set
/// once the windows exist.
static APP_NOTIFIER: OnceLock<DesktopNotifier> = OnceLock::new();

/// The notifier the app hands the host.
pub(crate) fn app_notifier() -> Arc<DesktopNotifier> {
    Arc::new(APP_NOTIFIER.get_or_init(DesktopNotifier::new).clone())
}

/// Once the main window exists: a click shows it on the thread, its focus
/// goes to the host (no notification for the thread in front of the user),
/// and outcomes missed while the app was not running are announced.
pub(crate) fn install<R: Runtime>(app: &AppHandle<R>, host: &Host) {
    let handle = app.clone();
    APP_NOTIFIER
        .get_or_init(DesktopNotifier::new)
        .on_click(move |thread_id| {
            let app = handle.clone();
            // Window calls belong on the main thread.
            let opened = handle.run_on_main_thread(move || {
                crate::navigate::open_thread(&app, &thread_id);
            });
            if let Err(error) = opened {
                tracing::warn!(%error, "could not open a clicked notification's thread");
            }
        });
    let decide_host = host.clone();
    APP_NOTIFIER
        .get_or_init(DesktopNotifier::new)
        .on_decision(move |decision| {
            let host = decide_host.clone();
            // The outcome (a started run, or CONFLICT) is logged by the host.
            tauri::async_runtime::spawn(async move {
                let _ = host.notification_decide(decision).await;
            });
        });
    let host = host.clone();
    tauri::async_runtime::spawn(async move { host.announce_missed().await });
}

/// What the last look at the bus found.
#[derive(Debug, Clone, Copy)]
struct Service {
    checked_at: Instant,
    available: bool,
    /// The server renders markup in bodies: text must be escaped.
    markup: bool,
    /// The server shows action buttons (its capabilities list "actions").
    actions: bool,
}

/// The app's [`Notifier`]: blocking D-Bus calls, made by the host off its
/// async threads; each shown notification waits for its click on a thread of
/// its own until the server reports it clicked or closed.
#[derive(Clone, Default)]
pub struct DesktopNotifier {
    service: Arc<Mutex<Option<Service>>>,
    on_click: Arc<OnceLock<ClickHandler>>,
    on_decision: Arc<OnceLock<DecisionHandler>>,
    /// The notification last shown per thread: a newer outcome replaces it
    /// rather than piling up beside it.
    shown: Arc<Mutex<HashMap<ThreadId, u32>>>,
}

impl std::fmt::Debug for DesktopNotifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DesktopNotifier")
            .field("service", &self.service.lock().ok().and_then(|s| *s))
            .field("on_click", &self.on_click.get().is_some())
            .finish()
    }
}

impl DesktopNotifier {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets what a click does (once; later calls are ignored). Clicks before
    /// it is set are dropped, so set it before the first outcome is announced.
    pub fn on_click(&self, handler: impl Fn(ThreadId) + Send + Sync + 'static) {
        if self.on_click.set(Box::new(handler)).is_err() {
            tracing::debug!("notification click handler already set");
        }
    }

    /// Sets what Approve or Deny on a notification does (once; later calls
    /// are ignored). Without it, no notification offers them.
    pub fn on_decision(&self, handler: impl Fn(NotificationDecision) + Send + Sync + 'static) {
        if self.on_decision.set(Box::new(handler)).is_err() {
            tracing::debug!("notification decision handler already set");
        }
    }

    /// The service as last seen, asking the bus again when that is old.
    fn service(&self) -> Service {
        let mut cached = self.service.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(service) = *cached
            && service.checked_at.elapsed() < RECHECK_AFTER
        {
            return service;
        }
        let service = probe();
        // Said once per change, not once a minute.
        if cached.map(|s| s.available) != Some(service.available) {
            if service.available {
                tracing::info!("notification service found");
            } else {
                tracing::info!("no notification service; run outcomes show in the window only");
            }
        }
        *cached = Some(service);
        service
    }

    fn remember_unavailable(&self) {
        *self.service.lock().unwrap_or_else(PoisonError::into_inner) = Some(Service {
            checked_at: Instant::now(),
            available: false,
            markup: false,
            actions: false,
        });
    }
}

fn probe() -> Service {
    let available = match notify_rust::get_server_information() {
        Ok(info) => {
            tracing::debug!(server = info.name, "notification service answered");
            true
        }
        Err(error) => {
            tracing::debug!(%error, "no notification service");
            false
        }
    };
    let capabilities = if available {
        notify_rust::get_capabilities().unwrap_or_default()
    } else {
        Vec::new()
    };
    let has = |wanted: &str| capabilities.iter().any(|c| c == wanted);
    Service {
        checked_at: Instant::now(),
        available,
        markup: has("body-markup"),
        actions: has("actions"),
    }
}

/// Text as a markup-rendering server shows it literally.
fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl Notifier for DesktopNotifier {
    fn show(&self, notification: Notification) -> Result<(), NotifyError> {
        let service = self.service();
        let body = if service.markup {
            escape_markup(&notification.body)
        } else {
            notification.body
        };
        let category = match notification.kind {
            NotificationKind::Failed => "transfer.error",
            _ => "transfer.complete",
        };
        let replaces = self
            .shown
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&notification.thread_id)
            .copied()
            .unwrap_or(0);
        // Approve and Deny only where the server shows buttons and someone
        // handles them; else the notification just opens the thread.
        let decidable = notification
            .approval
            .clone()
            .filter(|_| service.actions && self.on_decision.get().is_some());
        let mut shown = notify_rust::Notification::new();
        shown
            .id(replaces)
            .appname(APP_NAME)
            .icon(ICON)
            .summary(&notification.summary)
            .body(&body)
            .action(DEFAULT_ACTION, "Open");
        if decidable.is_some() {
            shown
                .action(APPROVE_ACTION, "Approve")
                .action(DENY_ACTION, "Deny");
        }
        let handle = shown
            .hint(notify_rust::Hint::Category(category.to_owned()))
            .timeout(notify_rust::Timeout::Default)
            .show()
            .map_err(|error| {
                // Don't try again until the next check says it is back.
                self.remember_unavailable();
                NotifyError::Unavailable {
                    reason: error.to_string(),
                }
            })?;
        {
            let mut shown = self.shown.lock().unwrap_or_else(PoisonError::into_inner);
            if shown.len() >= REMEMBERED_THREADS {
                shown.clear();
            }
            shown.insert(notification.thread_id.clone(), handle.id());
        }
        let on_click = Arc::clone(&self.on_click);
        let on_decision = Arc::clone(&self.on_decision);
        let thread_id = notification.thread_id;
        std::thread::Builder::new()
            .name("notification-click".to_owned())
            .spawn(move || {
                // Ends with the first action or the close: one press decides once.
                handle.wait_for_action(|action| {
                    let approve = match action {
                        DEFAULT_ACTION => {
                            match on_click.get() {
                                Some(handler) => handler(thread_id),
                                None => {
                                    tracing::debug!(
                                        "notification clicked before the app was ready"
                                    );
                                }
                            }
                            return;
                        }
                        APPROVE_ACTION => true,
                        DENY_ACTION => false,
                        _ => return,
                    };
                    match (decidable, on_decision.get()) {
                        (Some(approval), Some(handler)) => handler(NotificationDecision {
                            thread_id,
                            approval,
                            approve,
                        }),
                        _ => tracing::info!(
                            action,
                            "a notification without decisions got one; ignored"
                        ),
                    }
                });
            })
            .map_err(|error| NotifyError::Other {
                reason: format!("could not wait for a click: {error}"),
            })?;
        Ok(())
    }

    fn available(&self) -> bool {
        self.service().available
    }
}

#[cfg(test)]
mod tests {
    use super::escape_markup;

    #[test]
    fn markup_is_shown_literally() {
        assert_eq!(escape_markup("a <b> & c"), "a &lt;b&gt; &amp; c");
    }
}
