//! Seeing what happened: `log_read`, `log_open_folder`, `app_diagnostics`.

use serde::{Deserialize, Serialize};

/// The most lines one `log_read` answers; asking for more reads this many.
pub const LOG_READ_MAX_LINES: u32 = 2_000;
/// What `log_read` answers when no limit is given.
pub const LOG_READ_DEFAULT_LINES: u32 = 500;
/// Characters of one log line shown; longer lines end in `…`.
pub const LOG_LINE_MAX_CHARS: usize = 4_000;
/// The longest search text `log_read` accepts.
pub const LOG_QUERY_MAX_CHARS: usize = 200;

/// A log line's level, most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

impl LogLevel {
    /// The levels a person filters by, most severe first (`debug` includes `trace`).
    pub const FILTERS: [LogLevel; 4] = [Self::Error, Self::Warn, Self::Info, Self::Debug];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warn => "warn",
            Self::Info => "info",
            Self::Debug => "debug",
            Self::Trace => "trace",
        }
    }

    /// The level as the log files write it (`ERROR`, ` WARN`, …, trimmed).
    pub fn from_label(label: &str) -> Option<Self> {
        match label.trim() {
            "ERROR" | "error" => Some(Self::Error),
            "WARN" | "warn" => Some(Self::Warn),
            "INFO" | "info" => Some(Self::Info),
            "DEBUG" | "debug" => Some(Self::Debug),
            "TRACE" | "trace" => Some(Self::Trace),
            _ => None,
        }
    }

    /// Whether a line at this level shows under the filter `at_least`.
    /// `debug`, the most detailed filter, shows `trace` lines too.
    pub fn passes(self, at_least: LogLevel) -> bool {
        self <= at_least || at_least >= Self::Debug
    }
}

/// Reads the newest log lines, across the rotated files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogReadParams {
    /// Only lines at least this severe (`None`: every line).
    #[serde(default)]
    pub level: Option<LogLevel>,
    /// Only lines containing this text, ignoring case (empty: every line).
    #[serde(default)]
    pub query: Option<String>,
    /// How many of the newest matching lines (default
    /// [`LOG_READ_DEFAULT_LINES`], at most [`LOG_READ_MAX_LINES`]).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One logged event: its first line and any lines it continued on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// `None` for text that did not start like a log line (e.g. the tail
    /// of a file older than its first event).
    #[serde(default)]
    pub level: Option<LogLevel>,
    pub text: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogRead {
    /// Oldest first, newest last.
    pub lines: Vec<LogLine>,
    /// More lines matched than the limit let through (the oldest were left out).
    pub truncated: bool,
    /// The folder holding the log files.
    pub dir: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogOpenFolderParams {}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppDiagnosticsParams {}

/// What a bug report needs to know about this installation, as text to
/// paste: versions, the system, providers' and MCP servers' states. Never
/// a secret, a message or a file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppDiagnostics {
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_filter_by_severity() {
        assert!(LogLevel::Error.passes(LogLevel::Warn));
        assert!(LogLevel::Warn.passes(LogLevel::Warn));
        assert!(!LogLevel::Info.passes(LogLevel::Warn));
        assert!(LogLevel::Trace.passes(LogLevel::Trace));
        assert!(LogLevel::Trace.passes(LogLevel::Debug));
        assert!(!LogLevel::Debug.passes(LogLevel::Info));
        assert_eq!(LogLevel::from_label(" WARN"), Some(LogLevel::Warn));
        assert_eq!(LogLevel::from_label("nope"), None);
        let params: LogReadParams =
            serde_json::from_str(r#"{"level":"warn","query":"x","limit":3}"#).unwrap();
        assert_eq!(params.level, Some(LogLevel::Warn));
    }
}
