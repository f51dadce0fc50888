//! `automations_get` / `automations_update`: the switch that arms every
//! trigger, starting at login, and the loopback webhook listener.

use serde::{Deserialize, Serialize};

/// The webhook listener's port when none is set.
pub const DEFAULT_WEBHOOK_PORT: u16 = 47_821;

/// What the loopback webhook listener is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum WebhookListener {
    /// Not listening: automations are paused or no webhook trigger exists.
    Off,
    /// Listening on `127.0.0.1:<port>`.
    Listening { port: u16 },
    /// It could not listen, e.g. the port is taken; the sentence says so.
    Failed { message: String },
}

/// The automations as the Automations page and the tray show them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Automations {
    /// Whether triggers fire on their own; off until the person turns it on.
    /// Off disarms every trigger without changing its own switch.
    pub enabled: bool,
    /// Whether Pizza Bot starts (in the tray, without its window) when the
    /// person logs in; `None` when this system offers no way to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at_login: Option<bool>,
    /// The loopback port webhook triggers are posted to.
    pub webhook_port: u16,
    pub webhook_listener: WebhookListener,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutomationsGetParams {}

/// A partial update: absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutomationsPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at_login: Option<bool>,
    /// 1024–65535.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_port: Option<u16>,
}
