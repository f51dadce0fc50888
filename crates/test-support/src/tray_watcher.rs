//! A tray host for tests: owns `org.kde.StatusNotifierWatcher` on the current
//! session bus (run tests under `dbus-run-session`), says a host is
//! registered, and records each tray item that registers. [`TrayMenu`] then
//! reads the item's menu over `com.canonical.dbusmenu` and clicks its
//! entries, as a panel does when the person picks one.
//!
//! libayatana-appindicator exports the menu only while a watcher owns the
//! name, and an app that sees one closes its window to the tray.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use zbus::blocking::{Connection, Proxy};
use zbus::message::Header;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

const NAME: &str = "org.kde.StatusNotifierWatcher";
const PATH: &str = "/StatusNotifierWatcher";
const ITEM_INTERFACE: &str = "org.kde.StatusNotifierItem";
/// Where an item that registers by service name serves its object.
const DEFAULT_ITEM_PATH: &str = "/StatusNotifierItem";
const MENU_INTERFACE: &str = "com.canonical.dbusmenu";

/// A registered tray item: the bus name and object path it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrayItem {
    pub service: String,
    pub path: String,
}

#[derive(Debug, Default)]
struct Registry {
    items: Mutex<Vec<TrayItem>>,
    changed: Condvar,
}

impl Registry {
    fn items(&self) -> std::sync::MutexGuard<'_, Vec<TrayItem>> {
        self.items.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

struct Watcher {
    registry: Arc<Registry>,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    /// Items pass either their object path (the caller's unique name is the
    /// service) or a bus name (served at the default path).
    // zbus hands the header over by value.
    #[allow(clippy::needless_pass_by_value)]
    fn register_status_notifier_item(&self, service: &str, #[zbus(header)] header: Header<'_>) {
        let sender = header.sender().map(ToString::to_string).unwrap_or_default();
        let item = if service.starts_with('/') {
            TrayItem {
                service: sender,
                path: service.to_owned(),
            }
        } else {
            TrayItem {
                service: service.to_owned(),
                path: DEFAULT_ITEM_PATH.to_owned(),
            }
        };
        self.registry.items().push(item);
        self.registry.changed.notify_all();
    }

    fn register_status_notifier_host(&self, _service: &str) {}

    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        self.registry
            .items()
            .iter()
            .map(|item| format!("{}{}", item.service, item.path))
            .collect()
    }
}

/// The running watcher; dropping it releases the bus name (the tray is gone).
pub struct TrayWatcher {
    connection: Connection,
    registry: Arc<Registry>,
}

impl std::fmt::Debug for TrayWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrayWatcher")
            .field("items", &*self.registry.items())
            .finish_non_exhaustive()
    }
}

impl TrayWatcher {
    /// Serves on the session bus and owns the watcher name. Fails (never
    /// skips) without a session bus or when the name is taken.
    pub fn start() -> Result<Self, String> {
        let registry = Arc::new(Registry::default());
        let watcher = Watcher {
            registry: registry.clone(),
        };
        let connection = crate::serve_on_session_bus("the tray watcher", NAME, PATH, watcher)?;
        Ok(Self {
            connection,
            registry,
        })
    }

    /// Waits until an item has registered (or one already has) and returns
    /// the latest.
    pub fn wait_for_item(&self, timeout: Duration) -> Result<TrayItem, String> {
        let deadline = Instant::now() + timeout;
        let mut items = self.registry.items();
        loop {
            if let Some(item) = items.last() {
                return Ok(item.clone());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!("no tray item registered within {timeout:?}"));
            }
            items = self
                .registry
                .changed
                .wait_timeout(items, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// The menu `item` exports, read through this watcher's connection.
    pub fn menu(&self, item: &TrayItem) -> Result<TrayMenu, String> {
        crate::off_runtime(|| {
            let proxy = Proxy::new(
                &self.connection,
                item.service.clone(),
                item.path.clone(),
                ITEM_INTERFACE,
            )
            .map_err(|e| format!("reaching tray item {item:?}: {e}"))?;
            let path: OwnedObjectPath = proxy
                .get_property("Menu")
                .map_err(|e| format!("reading the Menu of tray item {item:?}: {e}"))?;
            let menu = Proxy::new(
                &self.connection,
                item.service.clone(),
                path.to_string(),
                MENU_INTERFACE,
            )
            .map_err(|e| format!("reaching the tray menu at {path}: {e}"))?;
            Ok(TrayMenu { proxy: Some(menu) })
        })
    }
}

/// One entry of a tray menu, as a panel would render it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuEntry {
    pub id: i32,
    /// The label without mnemonic underscores; empty for separators.
    pub label: String,
    pub enabled: bool,
    pub separator: bool,
}

/// A tray item's exported menu (`com.canonical.dbusmenu`).
pub struct TrayMenu {
    /// Always there until the menu is dropped (a blocking proxy's drop is
    /// a blocking call too).
    proxy: Option<Proxy<'static>>,
}

impl std::fmt::Debug for TrayMenu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrayMenu")
            .field("path", &self.proxy.as_ref().map(|p| p.path().to_string()))
            .finish_non_exhaustive()
    }
}

impl Drop for TrayMenu {
    fn drop(&mut self) {
        if let Some(proxy) = self.proxy.take() {
            crate::off_runtime(move || drop(proxy));
        }
    }
}

/// One node of a `GetLayout` answer: `(id, properties, children)`.
type Node = (i32, HashMap<String, OwnedValue>, Vec<OwnedValue>);

impl TrayMenu {
    /// The top-level entries, in order, as the menu is now.
    pub fn entries(&self) -> Result<Vec<MenuEntry>, String> {
        let proxy = self.proxy()?;
        let (_revision, (_root, _props, children)): (u32, Node) =
            crate::off_runtime(|| proxy.call("GetLayout", &(0_i32, 1_i32, Vec::<&str>::new())))
                .map_err(|e| format!("reading the tray menu (GetLayout): {e}"))?;
        children
            .into_iter()
            .map(|child| {
                let (id, props, _children) = Node::try_from(child)
                    .map_err(|e| format!("a tray menu entry is not a layout node: {e}"))?;
                let text = |key: &str| {
                    props
                        .get(key)
                        .and_then(|v| String::try_from(v.try_clone().ok()?).ok())
                };
                Ok(MenuEntry {
                    id,
                    label: text("label").unwrap_or_default().replace('_', ""),
                    enabled: props
                        .get("enabled")
                        .and_then(|v| bool::try_from(v).ok())
                        .unwrap_or(true),
                    separator: text("type").as_deref() == Some("separator"),
                })
            })
            .collect()
    }

    /// The entry labelled `label` (underscores ignored).
    pub fn entry(&self, label: &str) -> Result<MenuEntry, String> {
        let entries = self.entries()?;
        entries
            .iter()
            .find(|entry| entry.label == label)
            .cloned()
            .ok_or_else(|| format!("no tray menu entry {label:?} in {entries:#?}"))
    }

    /// Clicks the entry labelled `label`, as a panel does
    /// (`Event(id, "clicked", …)`).
    pub fn click(&self, label: &str) -> Result<(), String> {
        let entry = self.entry(label)?;
        let timestamp = u32::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        )
        .unwrap_or(0);
        let proxy = self.proxy()?;
        crate::off_runtime(|| {
            proxy.call_method(
                "Event",
                &(entry.id, "clicked", Value::from(0_i32), timestamp),
            )
        })
        .map_err(|e| format!("clicking tray menu entry {label:?}: {e}"))?;
        Ok(())
    }

    fn proxy(&self) -> Result<&Proxy<'static>, String> {
        self.proxy
            .as_ref()
            .ok_or_else(|| "the tray menu was dropped".to_owned())
    }
}
