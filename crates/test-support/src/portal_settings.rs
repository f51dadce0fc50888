//! A desktop portal's settings for tests: owns
//! `org.freedesktop.portal.Desktop` on the current session bus (run tests
//! under `dbus-run-session`) and serves `org.freedesktop.portal.Settings`
//! with the one value apps follow, the colour scheme
//! (`org.freedesktop.appearance` `color-scheme`: 0 no preference, 1 dark,
//! 2 light). Changing it emits `SettingChanged`, as GNOME's portal does when
//! the person switches between light and dark.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use zbus::blocking::Connection;
use zbus::zvariant::Value;

const NAME: &str = "org.freedesktop.portal.Desktop";
const PATH: &str = "/org/freedesktop/portal/desktop";
const INTERFACE: &str = "org.freedesktop.portal.Settings";
const NAMESPACE: &str = "org.freedesktop.appearance";
const KEY: &str = "color-scheme";

struct Settings {
    scheme: Arc<AtomicU32>,
}

#[zbus::interface(name = "org.freedesktop.portal.Settings")]
impl Settings {
    /// As portals answer `Read`: the value wrapped in one variant more.
    fn read(&self, namespace: &str, key: &str) -> zbus::fdo::Result<Value<'static>> {
        if namespace == NAMESPACE && key == KEY {
            let scheme = Value::U32(self.scheme.load(Ordering::SeqCst));
            Ok(Value::Value(Box::new(scheme)))
        } else {
            Err(zbus::fdo::Error::Failed(format!(
                "no setting {namespace} {key}"
            )))
        }
    }

    #[zbus(property)]
    fn version(&self) -> u32 {
        1
    }
}

/// The running portal; dropping it releases the bus name.
pub struct PortalSettings {
    connection: Connection,
    scheme: Arc<AtomicU32>,
}

impl std::fmt::Debug for PortalSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PortalSettings")
            .field("scheme", &self.scheme.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

impl PortalSettings {
    /// Serves on the session bus with colour scheme `scheme`. Fails (never
    /// skips) without a session bus or when the name is taken.
    pub fn start(scheme: u32) -> Result<Self, String> {
        let scheme = Arc::new(AtomicU32::new(scheme));
        let settings = Settings {
            scheme: scheme.clone(),
        };
        let connection = crate::serve_on_session_bus("the portal", NAME, PATH, settings)?;
        Ok(Self { connection, scheme })
    }

    /// Changes the colour scheme and emits `SettingChanged`.
    pub fn set_scheme(&self, scheme: u32) -> Result<(), String> {
        self.scheme.store(scheme, Ordering::SeqCst);
        crate::off_runtime(|| {
            self.connection.emit_signal(
                None::<()>,
                PATH,
                INTERFACE,
                "SettingChanged",
                &(NAMESPACE, KEY, Value::U32(scheme)),
            )
        })
        .map_err(|e| format!("emitting SettingChanged: {e}"))
    }
}
