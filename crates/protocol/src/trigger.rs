//! Automations: triggers that start work on their own (a cron schedule or a
//! webhook on loopback) and the history of their fires. A refused field is `INVALID_INPUT`
//! whose message starts with the field's name (`cron: …`, `timezone: …`,
//! `name: …`, `model: …`), so an editor can place it beside that field.

use serde::{Deserialize, Serialize};

/// Fire times a `trigger_preview` answers.
pub const TRIGGER_PREVIEW_FIRES: usize = 5;
/// Longest trigger name, in characters.
pub const TRIGGER_NAME_MAX_CHARS: usize = 200;
/// Longest trigger prompt, in characters.
pub const TRIGGER_PROMPT_MAX_CHARS: usize = 100_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerKind {
    Cron,
    Webhook,
}

/// Where an occurrence is in its life: `pending → running → succeeded |
/// failed | dead`, or `pending → skipped`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OccurrenceStatus {
    Pending,
    Running,
    Succeeded,
    Failed,
    /// Given up after its attempts ran out.
    Dead,
    /// Not run: the previous occurrence was still running.
    Skipped,
}

/// Why an occurrence fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OccurrenceReason {
    Cron,
    /// A tick missed while the app was not running, caught up once.
    CronRecovery,
    /// Run now.
    Manual,
    Webhook,
}

/// One fire of a trigger, for its history and its last outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OccurrenceView {
    pub id: String,
    pub trigger_id: String,
    /// The tick's time (ms) for cron fires; when it was asked for otherwise.
    pub scheduled_at: i64,
    pub reason: OccurrenceReason,
    pub status: OccurrenceStatus,
    pub attempts: u32,
    /// The thread its run was given (it may have been deleted since).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    /// Why it ended as it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentence: Option<String>,
    pub updated_at: i64,
}

/// A trigger as the Automations page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerView {
    pub id: String,
    pub name: String,
    pub kind: TriggerKind,
    pub prompt: String,
    /// `provider:model`; `None` uses the default model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub enabled: bool,
    /// The stored expression, for cron triggers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cron: Option<String>,
    /// An IANA zone; `None` means the machine's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// The schedule in plain words ("Every weekday at 09:00, Europe/Paris").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// The next fire (ms) while enabled; `None` when disabled or it never fires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_fire_at: Option<i64>,
    /// The newest occurrence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_outcome: Option<OccurrenceView>,
    /// For webhook triggers: the URL to `POST` to (on loopback, at the port
    /// set in [`Automations`](crate::Automations)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggerListParams {}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerList {
    /// Oldest first.
    pub triggers: Vec<TriggerView>,
    /// The machine's zone, which a trigger without one follows.
    pub default_timezone: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggerPreviewParams {
    pub cron: String,
    /// `None` or blank: the machine's zone.
    #[serde(default)]
    pub timezone: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerPreview {
    /// The next [`TRIGGER_PREVIEW_FIRES`] fire times (ms), soonest first.
    pub next_fires: Vec<i64>,
    /// The schedule in plain words.
    pub description: String,
    /// The zone the fires are computed in.
    pub timezone: String,
}

/// Creates a trigger (no `id`) or replaces an existing one's fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggerSaveParams {
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    /// A trigger's kind never changes.
    pub kind: TriggerKind,
    #[serde(default)]
    pub prompt: String,
    #[serde(default)]
    pub model: Option<String>,
    pub enabled: bool,
    /// Required for cron triggers; ignored for webhooks.
    #[serde(default)]
    pub cron: String,
    /// Cron triggers only.
    #[serde(default)]
    pub timezone: Option<String>,
}

/// What `trigger_save` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerSaved {
    pub trigger: TriggerView,
    /// A new webhook trigger's secret: shown this once, stored only as a
    /// salted hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// What `trigger_rotate_secret` answers: the new secret, shown this once.
/// The old one stops working at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerSecret {
    pub trigger: TriggerView,
    pub secret: String,
}

/// What `trigger_run_now` answers: the occurrence it recorded. Its run's
/// thread and id are set when it started; a fire while the previous one
/// still runs is recorded as skipped, with its sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerFired {
    pub occurrence: OccurrenceView,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggerIdParams {
    pub id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggerSetEnabledParams {
    pub id: String,
    pub enabled: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OccurrenceListParams {
    pub trigger_id: String,
    /// `next_cursor` of the previous page; `None` for the first.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OccurrenceList {
    /// Newest scheduled first.
    pub occurrences: Vec<OccurrenceView>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_params_default_the_optional_fields() {
        let params: TriggerSaveParams = serde_json::from_value(serde_json::json!({
            "name": "Standup", "kind": "cron", "enabled": true, "cron": "0 9 * * 1-5"
        }))
        .unwrap();
        assert_eq!(params.id, None);
        assert_eq!(params.prompt, "");
        assert_eq!(params.timezone, None);
    }

    #[test]
    fn preview_params_refuse_unknown_fields() {
        let refused = serde_json::from_value::<TriggerPreviewParams>(
            serde_json::json!({"cron": "@daily", "zone": "Europe/Paris"}),
        );
        assert!(refused.is_err());
    }
}
