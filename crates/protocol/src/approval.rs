//! Approval policies: which tool calls wait for the person, which run
//! without asking and which are never run; and what an approval card shows
//! of the change a call would make.

use serde::{Deserialize, Serialize};

/// The person's explicit choice for one tool. A tool without one follows
/// its default (for the built-in file tools: writes under `/local/` and
/// `/memories/` ask, writes to the thread's own files do not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalPolicy {
    /// Every call waits for a decision.
    Ask,
    /// Calls run without asking.
    Allow,
    /// Calls are not run; the model is told why.
    Never,
}

impl ApprovalPolicy {
    pub const ALL: [ApprovalPolicy; 3] = [Self::Ask, Self::Allow, Self::Never];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ask => "ask",
            Self::Allow => "allow",
            Self::Never => "never",
        }
    }
}

/// What an approval also records when it approves a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RememberScope {
    /// Later calls of this tool in this thread run without asking.
    Thread,
    /// Later calls of this tool run without asking, in every thread
    /// (the tool's policy becomes [`ApprovalPolicy::Allow`]).
    Always,
}

/// What a gated file change will do, computed when the call asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ChangePreview {
    /// The file does not exist yet: this is its whole content.
    NewFile { path: String, content: String },
    /// The file exists: a unified diff of the change with lines of context
    /// (`-` removed, `+` added, ` ` unchanged, `@@` a new hunk).
    Diff { path: String, diff: String },
}

/// One tool as Settings › Approvals lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolApproval {
    pub tool: String,
    pub description: String,
    /// The person's choice; `None` follows the default.
    pub policy: Option<ApprovalPolicy>,
    /// One sentence on what the tool does without a choice.
    pub default: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalListParams {}

/// Every tool a run offers, with its policy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalList {
    pub tools: Vec<ToolApproval>,
}

/// Sets (or with `None` clears) one tool's policy; the next run obeys it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalSetParams {
    pub tool: String,
    #[serde(default)]
    pub policy: Option<ApprovalPolicy>,
}

/// Clears every tool's policy and every thread's allowances.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalResetParams {}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn previews_and_policies_are_tagged_snake_case() {
        let preview = ChangePreview::NewFile {
            path: "/local/a.md".into(),
            content: "hi".into(),
        };
        assert_eq!(
            serde_json::to_value(&preview).unwrap(),
            json!({"type": "new_file", "path": "/local/a.md", "content": "hi"})
        );
        assert_eq!(
            serde_json::to_value(ApprovalPolicy::Never).unwrap(),
            json!("never")
        );
        assert_eq!(
            serde_json::to_value(RememberScope::Thread).unwrap(),
            json!("thread")
        );
    }
}
