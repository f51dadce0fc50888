//! What an activity entry records about a run's outcome: written by run-end
//! maintenance, read by the notifier. The store keeps it opaque; this struct
//! is its one shape, with the field names earlier versions wrote.

use pizza_store as store;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct ActivityDetail {
    /// The thread's title when the run ended.
    pub(crate) title: Option<String>,
    /// The error's sentence when the run failed.
    pub(crate) error: Option<String>,
    /// The error's stable code (a protocol code, or the store's
    /// `INTERRUPTED_BY_RESTART`).
    pub(crate) error_code: Option<String>,
    /// The start of the answer, for a "Run finished" notification.
    pub(crate) answer: Option<String>,
    /// The tools whose calls wait for a decision.
    pub(crate) tools: Vec<String>,
}

impl ActivityDetail {
    pub(crate) fn to_value(&self) -> serde_json::Value {
        // A struct of strings always serializes.
        serde_json::to_value(self).unwrap_or_default()
    }

    /// The detail of `entry`; a damaged one reads as empty (the notification
    /// then says less, but still says it).
    pub(crate) fn of(entry: &store::ActivityEntry) -> Self {
        serde_json::from_value(entry.detail.clone()).unwrap_or_else(|error| {
            tracing::debug!(%error, cursor = entry.cursor, "activity detail does not parse");
            Self::default()
        })
    }
}
