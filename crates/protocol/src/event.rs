//! App-wide, low-rate notices for the windows (they reach a page through its
//! outbox, see [`crate::PageMessage`], as streams' messages do).
//!
//! Every event name the app sends is declared here, so the sender in the
//! desktop binary and the listener in the window name it the same way.

use crate::run::{RunId, RunStatus};
use crate::thread::ThreadId;
use serde::{Deserialize, Serialize};

/// One app event: its name and payload come from here only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AppEvent {
    /// Threads or folders changed; lists and counts should be re-read.
    ThreadsChanged {
        /// The thread concerned, when one is.
        thread_id: Option<ThreadId>,
    },
    /// A run ended; the same entry is kept in the activity log.
    Activity {
        /// The log's cursor of this entry.
        cursor: i64,
        thread_id: ThreadId,
        run_id: Option<RunId>,
        status: RunStatus,
        /// The thread's title when the run ended.
        title: String,
        /// The error's sentence for a failed run.
        message: Option<String>,
        created_at: i64,
    },
    /// Show this thread: a notification for it was clicked. The window takes
    /// the request with `notification_take_pending`, so one that was not
    /// ready when this was sent still gets it.
    Navigate { thread_id: ThreadId },
    /// The thread's host-side queue changed (a message queued, removed, or
    /// taken to start a run); the whole queue, oldest first.
    QueueChanged {
        thread_id: ThreadId,
        queued: Vec<crate::QueuedMessage>,
    },
    /// The automations switch, start at login or the webhook listener
    /// changed (from the Automations page, the tray or the listener itself).
    AutomationsChanged { automations: crate::Automations },
    /// A trigger was saved, deleted, switched or fired; its list and history
    /// should be re-read.
    TriggersChanged {
        /// The trigger concerned, when one is.
        trigger_id: Option<String>,
    },
    /// The skills catalog changed (saved, deleted, switched, imported, or
    /// edited on disk); the Skills page should re-read it.
    SkillsChanged,
    /// An MCP server's status settled (or its configuration changed); the
    /// MCP page and the status bar should re-read the list.
    McpStatus {
        id: String,
        status: crate::McpStatus,
    },
    /// Plugins were installed, removed or switched.
    PluginsChanged,
}

impl AppEvent {
    pub const THREADS_CHANGED: &'static str = "threads_changed";
    pub const ACTIVITY: &'static str = "activity";
    pub const NAVIGATE: &'static str = "navigate";
    pub const QUEUE_CHANGED: &'static str = "queue_changed";
    pub const AUTOMATIONS_CHANGED: &'static str = "automations_changed";
    pub const TRIGGERS_CHANGED: &'static str = "triggers_changed";
    pub const SKILLS_CHANGED: &'static str = "skills_changed";
    pub const MCP_STATUS: &'static str = "mcp_status";
    pub const PLUGINS_CHANGED: &'static str = "plugins_changed";
    /// Every app event name.
    pub const NAMES: &'static [&'static str] = &[
        Self::THREADS_CHANGED,
        Self::ACTIVITY,
        Self::NAVIGATE,
        Self::QUEUE_CHANGED,
        Self::AUTOMATIONS_CHANGED,
        Self::TRIGGERS_CHANGED,
        Self::SKILLS_CHANGED,
        Self::MCP_STATUS,
        Self::PLUGINS_CHANGED,
    ];

    /// The event's name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::ThreadsChanged { .. } => Self::THREADS_CHANGED,
            Self::Activity { .. } => Self::ACTIVITY,
            Self::Navigate { .. } => Self::NAVIGATE,
            Self::QueueChanged { .. } => Self::QUEUE_CHANGED,
            Self::AutomationsChanged { .. } => Self::AUTOMATIONS_CHANGED,
            Self::TriggersChanged { .. } => Self::TRIGGERS_CHANGED,
            Self::SkillsChanged => Self::SKILLS_CHANGED,
            Self::McpStatus { .. } => Self::MCP_STATUS,
            Self::PluginsChanged => Self::PLUGINS_CHANGED,
        }
    }
}

/// A notice for one window that carries no payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowEvent {
    /// The quick-ask window was shown (again), so it focuses its input.
    QuickAskShown,
}

impl WindowEvent {
    pub const QUICK_ASK_SHOWN: &'static str = "quick_ask_shown";
    /// Every window event name.
    pub const NAMES: &'static [&'static str] = &[Self::QUICK_ASK_SHOWN];

    /// The event's name (as it is on the wire).
    pub fn name(self) -> &'static str {
        match self {
            Self::QuickAskShown => Self::QUICK_ASK_SHOWN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn event_names_are_unique_and_snake_case() {
        let all: Vec<&str> = AppEvent::NAMES
            .iter()
            .chain(WindowEvent::NAMES)
            .copied()
            .collect();
        let unique: BTreeSet<&str> = all.iter().copied().collect();
        assert_eq!(unique.len(), all.len(), "an event name is used twice");
        for name in all {
            assert!(
                !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{name} is not snake_case"
            );
        }
    }

    #[test]
    fn each_event_is_sent_under_a_declared_name() {
        let events = [
            AppEvent::ThreadsChanged { thread_id: None },
            AppEvent::Activity {
                cursor: 1,
                thread_id: "t".into(),
                run_id: None,
                status: RunStatus::Succeeded,
                title: String::new(),
                message: None,
                created_at: 0,
            },
            AppEvent::Navigate {
                thread_id: "t".into(),
            },
            AppEvent::QueueChanged {
                thread_id: "t".into(),
                queued: Vec::new(),
            },
            AppEvent::AutomationsChanged {
                automations: crate::Automations {
                    enabled: false,
                    start_at_login: None,
                    webhook_port: crate::DEFAULT_WEBHOOK_PORT,
                    webhook_listener: crate::WebhookListener::Off,
                },
            },
            AppEvent::TriggersChanged { trigger_id: None },
            AppEvent::SkillsChanged,
            AppEvent::McpStatus {
                id: "time".into(),
                status: crate::McpStatus::Connected,
            },
            AppEvent::PluginsChanged,
        ];
        let names: Vec<&str> = events.iter().map(AppEvent::name).collect();
        assert_eq!(names, AppEvent::NAMES);
        assert_eq!(WindowEvent::QuickAskShown.name(), "quick_ask_shown");
    }
}
