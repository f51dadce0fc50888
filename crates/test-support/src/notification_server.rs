//! A recording notification server for tests: owns
//! `org.freedesktop.Notifications` on the current session bus (run tests
//! under `dbus-run-session`), records every `Notify` call and can click a
//! notification by emitting `ActionInvoked(id, "default")`.
//!
//! One server per bus name: a second `start` on the same bus fails until the
//! first is dropped. Nothing is faked on the client side: the app talks real
//! D-Bus to it.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use zbus::blocking::Connection;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::OwnedValue;

const NAME: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
const INTERFACE: &str = "org.freedesktop.Notifications";

/// One `Notify` call as the server received it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The id the server answered.
    pub id: u32,
    pub app_name: String,
    pub replaces_id: u32,
    pub icon: String,
    pub summary: String,
    pub body: String,
    /// Pairs of action key and label, flattened as on the wire.
    pub actions: Vec<String>,
    /// Hint names with their values in `Debug` form.
    pub hints: BTreeMap<String, String>,
    pub timeout: i32,
}

#[derive(Debug, Default)]
struct Log {
    notifications: Mutex<Vec<Recorded>>,
    closed: Mutex<Vec<u32>>,
    changed: Condvar,
}

impl Log {
    fn notifications(&self) -> std::sync::MutexGuard<'_, Vec<Recorded>> {
        self.notifications
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

struct Server {
    log: Arc<Log>,
    /// What `GetCapabilities` answers.
    capabilities: Vec<String>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Server {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        app_name: String,
        replaces_id: u32,
        app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        hints: std::collections::HashMap<String, OwnedValue>,
        expire_timeout: i32,
    ) -> u32 {
        let mut notifications = self.log.notifications();
        let id = if replaces_id != 0 {
            replaces_id
        } else {
            u32::try_from(notifications.len() + 1).unwrap_or(u32::MAX)
        };
        notifications.push(Recorded {
            id,
            app_name,
            replaces_id,
            icon: app_icon,
            summary,
            body,
            actions,
            hints: hints
                .into_iter()
                .map(|(k, v)| (k, format!("{v:?}")))
                .collect(),
            timeout: expire_timeout,
        });
        self.log.changed.notify_all();
        id
    }

    async fn close_notification(
        &self,
        id: u32,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> zbus::fdo::Result<()> {
        self.log
            .closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(id);
        // Reason 3: closed by a call to CloseNotification.
        Self::notification_closed(&emitter, id, 3).await?;
        Ok(())
    }

    fn get_capabilities(&self) -> Vec<String> {
        self.capabilities.clone()
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "pizza-recording-server".to_owned(),
            "pizza-bot tests".to_owned(),
            "1.0".to_owned(),
            "1.2".to_owned(),
        )
    }

    #[zbus(signal)]
    async fn action_invoked(
        emitter: &SignalEmitter<'_>,
        id: u32,
        action_key: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn notification_closed(
        emitter: &SignalEmitter<'_>,
        id: u32,
        reason: u32,
    ) -> zbus::Result<()>;
}

/// The running server; dropping it releases the bus name.
pub struct NotificationServer {
    connection: Connection,
    log: Arc<Log>,
}

impl std::fmt::Debug for NotificationServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NotificationServer")
            .field("notifications", &self.log.notifications().len())
            .finish_non_exhaustive()
    }
}

impl NotificationServer {
    /// Serves on the session bus and owns the notifications name, with
    /// action buttons (`actions`) and plain bodies (`body`). Fails (never
    /// skips) without a session bus or when the name is taken.
    pub fn start() -> Result<Self, String> {
        Self::start_with_capabilities(&["actions", "body"])
    }

    /// [`start`](Self::start) for a server whose `GetCapabilities` answers
    /// `capabilities`, e.g. one without `actions` that shows no buttons.
    pub fn start_with_capabilities(capabilities: &[&str]) -> Result<Self, String> {
        let log = Arc::new(Log::default());
        let server = Server {
            log: log.clone(),
            capabilities: capabilities.iter().map(|&c| c.to_owned()).collect(),
        };
        let connection =
            crate::serve_on_session_bus("the notification server", NAME, PATH, server)?;
        Ok(Self { connection, log })
    }

    /// Every notification received so far, oldest first.
    pub fn notifications(&self) -> Vec<Recorded> {
        self.log.notifications().clone()
    }

    /// The ids `CloseNotification` was called with.
    pub fn closed(&self) -> Vec<u32> {
        self.log
            .closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until a notification matching `wanted` arrives (or is already
    /// there) and returns it; `Err` with what was received after `timeout`.
    pub fn wait_for(
        &self,
        timeout: Duration,
        wanted: impl Fn(&Recorded) -> bool,
    ) -> Result<Recorded, String> {
        let deadline = Instant::now() + timeout;
        let mut notifications = self.log.notifications();
        loop {
            if let Some(found) = notifications.iter().find(|n| wanted(n)) {
                return Ok(found.clone());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "no matching notification within {timeout:?}; received: {:#?}",
                    *notifications
                ));
            }
            notifications = self
                .log
                .changed
                .wait_timeout(notifications, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Clicks notification `id`: emits `ActionInvoked(id, "default")`.
    pub fn click(&self, id: u32) -> Result<(), String> {
        self.invoke(id, "default")
    }

    /// Emits `ActionInvoked(id, action_key)`.
    pub fn invoke(&self, id: u32, action_key: &str) -> Result<(), String> {
        crate::off_runtime(|| {
            self.connection.emit_signal(
                None::<()>,
                PATH,
                INTERFACE,
                "ActionInvoked",
                &(id, action_key),
            )
        })
        .map_err(|e| format!("emitting ActionInvoked: {e}"))
    }
}
