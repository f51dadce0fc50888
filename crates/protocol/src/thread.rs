//! Threads: the inbox's units of work, their messages and history.

use serde::{Deserialize, Serialize};

pub type ThreadId = String;
pub type MessageId = String;
pub type FolderId = String;

/// The three smart views of the sidebar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThreadView {
    #[default]
    All,
    Unread,
    Action,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThreadSource {
    #[default]
    User,
    Trigger,
    Fork,
}

/// A thread as lists show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadSummary {
    pub id: ThreadId,
    pub title: String,
    pub folder_id: Option<FolderId>,
    pub pinned: bool,
    pub unread: bool,
    pub awaiting_action: bool,
    pub source: ThreadSource,
    pub model: Option<String>,
    pub created_at: i64,
    pub last_activity_at: i64,
    /// The start of the last message, at most 140 characters.
    pub preview: String,
    pub parent_thread_id: Option<ThreadId>,
    /// The seq of the newest message; 0 for an empty thread.
    pub last_seq: i64,
    /// The thread's live run, whoever started it (a window, a schedule).
    #[serde(default)]
    pub live_run_id: Option<crate::RunId>,
    /// The thread's newest run that has ended, for the outcome mark.
    #[serde(default)]
    pub last_run: Option<RunBrief>,
}

/// A run as lists show it: which one, how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunBrief {
    pub run_id: crate::RunId,
    pub status: crate::RunStatus,
    /// The error's stable code when the run failed.
    #[serde(default)]
    pub error_code: Option<crate::ErrorCode>,
}

/// A message the host holds until the thread's live run (or pending
/// decision) is over; it survives closing the window and restarting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedMessage {
    pub id: String,
    pub text: String,
    /// `provider:model` asked for, if any.
    #[serde(default)]
    pub model: Option<String>,
    /// What goes with it.
    #[serde(default)]
    pub attachments: Vec<crate::AttachmentView>,
    pub created_at: i64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewCounts {
    pub all: u64,
    pub unread: u64,
    pub action: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadListParams {
    #[serde(default)]
    pub view: ThreadView,
    /// Only threads in this folder; all threads when absent.
    #[serde(default)]
    pub folder_id: Option<FolderId>,
    #[serde(default)]
    pub cursor: Option<String>,
    /// At most 200; 50 when absent.
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadListResponse {
    pub threads: Vec<ThreadSummary>,
    pub next_cursor: Option<String>,
    /// Counts for each view within the same folder filter.
    pub counts: ViewCounts,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadCreateParams {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub folder_id: Option<FolderId>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadGetParams {
    pub thread_id: ThreadId,
    /// Page backwards from the end: only messages with a smaller seq.
    #[serde(default)]
    pub before_seq: Option<i64>,
    /// At most 200; 50 when absent.
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// What a message is made of, as the feed renders it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MessagePart {
    Text {
        text: String,
    },
    Reasoning {
        text: String,
    },
    ToolCall {
        id: String,
        name: String,
        arguments: serde_json::Value,
    },
    ToolResult {
        call_id: String,
        content: String,
        #[serde(default)]
        is_error: bool,
    },
    /// Something the app says in the thread (a truncated turn, a limit).
    Notice {
        text: String,
    },
    /// A file the person attached; its bytes load through the custom scheme.
    Attachment {
        attachment: crate::AttachmentView,
    },
    /// What the answer cites, each source once, in the order first cited.
    Sources {
        sources: Vec<Source>,
    },
}

/// A source an answer cites: a web page, or (without `url`) a document the
/// person gave the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    /// The passage the answer leans on, when the provider said.
    #[serde(default)]
    pub cited_text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageView {
    pub id: MessageId,
    pub seq: i64,
    pub role: Role,
    pub parts: Vec<MessagePart>,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadDetail {
    pub thread: ThreadSummary,
    /// Oldest first.
    pub messages: Vec<MessageView>,
    pub has_more_before: bool,
    pub pending_interrupt: Option<crate::Interrupt>,
    /// Messages waiting for the live run to end, oldest first.
    #[serde(default)]
    pub queued: Vec<QueuedMessage>,
    /// A run the app's restart interrupted: offer `run_resume` / `run_discard`.
    #[serde(default)]
    pub resumable: bool,
    /// What the subagents of this page's `task` calls did, for their cards.
    #[serde(default)]
    pub delegations: Vec<DelegationView>,
    /// The context as the thread's last model call left it (`None` before
    /// any call, or when the model's window is unknown).
    #[serde(default)]
    pub context: Option<ContextUse>,
}

/// How full the model's context window was at a thread's last model call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextUse {
    /// Input and output tokens of that call.
    pub used_tokens: u64,
    pub context_window: u32,
    /// Older turns were replaced by a summary in that request.
    #[serde(default)]
    pub summarized: bool,
}

/// One `task` call's subagent as stored: its tool calls and their results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DelegationView {
    /// The `task` call's id.
    pub task_id: String,
    pub skill: String,
    /// In the order the subagent made them.
    pub tool_calls: Vec<DelegatedCall>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DelegatedCall {
    pub call_id: String,
    pub name: String,
    pub arguments: serde_json::Value,
    /// `None` while it has no result (it was waiting, or stopped).
    #[serde(default)]
    pub result: Option<String>,
    #[serde(default)]
    pub is_error: bool,
}

/// Moves a thread: into a folder, or back to the inbox with `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FolderMove {
    pub folder_id: Option<FolderId>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadUpdateParams {
    pub thread_id: ThreadId,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub pinned: Option<bool>,
    #[serde(default)]
    pub unread: Option<bool>,
    #[serde(default)]
    pub folder: Option<FolderMove>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadIdParams {
    pub thread_id: ThreadId,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadForkParams {
    pub thread_id: ThreadId,
    pub message_id: MessageId,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadSearchParams {
    pub q: String,
    /// At most 200; 50 when absent.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A run of snippet text; `hit` marks the words that matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnippetPart {
    pub text: String,
    pub hit: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchHit {
    pub thread_id: ThreadId,
    pub thread_title: String,
    pub message_id: MessageId,
    pub seq: i64,
    pub role: Role,
    pub snippet: Vec<SnippetPart>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    Markdown,
    Jsonl,
}

/// Writes a thread to the file the person chose with `export_choose`. The
/// page never names the path: a path it sent alone would let any script in
/// it write anywhere the user can.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadExportParams {
    pub thread_id: ThreadId,
    pub format: ExportFormat,
    /// The one-time token `export_choose` answered.
    pub token: String,
}

/// Asks the person where to save an export, in the native save dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportChooseParams {
    pub format: ExportFormat,
    /// The file name the dialog suggests (without a folder).
    #[serde(default)]
    pub suggested_name: Option<String>,
}

/// The file the person chose: `token` lets one `thread_export` write it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportTarget {
    pub token: String,
    /// The chosen path, to show.
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadExportResponse {
    pub path: String,
    pub bytes: u64,
}
