//! A thread's history and its state files: the checkpoints a thread went
//! through, the state at one of them (read-only), forking from one, and the
//! files the agent wrote, with a preview and "Save as…".

use serde::{Deserialize, Serialize};

use crate::{MessageView, ThreadId};

/// The largest state file `thread_file_get` previews; a larger one shows
/// its size and type, and can still be saved.
pub const FILE_PREVIEW_MAX_BYTES: u64 = 512 * 1024;

/// What made a checkpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckpointSource {
    /// A step of a run (the person's message, the agent's answer, a tool result).
    #[default]
    Run,
    /// An edit of the state outside a run.
    Edit,
    /// The first checkpoint of a fork: the copy it started from.
    Fork,
}

/// One checkpoint of a thread, with what its step changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointView {
    pub id: String,
    pub parent_id: Option<String>,
    /// 1 for the thread's first checkpoint, then +1 per step.
    #[serde(default)]
    pub step: i64,
    /// Messages up to and including this seq belong to the checkpoint.
    pub message_seq: i64,
    pub files_version: i64,
    pub has_interrupt: bool,
    pub created_at: i64,
    #[serde(default)]
    pub source: CheckpointSource,
    /// How many messages the step added (a fork's first checkpoint: all it copied).
    #[serde(default)]
    pub messages_added: u64,
    /// The state files the step wrote or deleted, by path.
    #[serde(default)]
    pub files_changed: Vec<String>,
    /// The start of the newest message from the person or the agent the
    /// step added, if any.
    #[serde(default)]
    pub preview: Option<String>,
}

/// The state at one checkpoint: a page of its messages (paged from its end
/// like `thread_get`) and its files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointGetParams {
    pub thread_id: ThreadId,
    pub checkpoint_id: String,
    /// Page backwards: only messages with a smaller seq.
    #[serde(default)]
    pub before_seq: Option<i64>,
    /// At most 200; 50 when absent.
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckpointState {
    pub checkpoint: CheckpointView,
    /// Oldest first; none newer than the checkpoint.
    pub messages: Vec<MessageView>,
    pub has_more_before: bool,
    /// The state files as they were at the checkpoint, by path.
    pub files: Vec<ThreadFileView>,
}

/// A new thread that starts as the thread was at a checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointForkParams {
    pub thread_id: ThreadId,
    pub checkpoint_id: String,
}

/// The thread's state files, now or at a checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadFileListParams {
    pub thread_id: ThreadId,
    /// The latest files when absent.
    #[serde(default)]
    pub checkpoint_id: Option<String>,
}

/// One state file, as the files panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadFileView {
    /// The path the agent wrote, e.g. `/report.md`.
    pub path: String,
    pub size: u64,
    /// The type its name suggests, e.g. `text/markdown`.
    pub mime: String,
    pub modified_at: i64,
}

/// One state file, now or at a checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadFileParams {
    pub thread_id: ThreadId,
    pub path: String,
    /// The latest version when absent.
    #[serde(default)]
    pub checkpoint_id: Option<String>,
}

/// A state file with what the panel can show of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadFileContent {
    pub file: ThreadFileView,
    pub preview: FilePreview,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FilePreview {
    Text {
        text: String,
    },
    /// An image the panel shows as is: a `data:` URL, never a path.
    Image {
        src: String,
    },
    /// Too large, or a type the panel cannot show: size and type only.
    None,
}

/// Where `thread_file_save` wrote the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadFileSaved {
    pub path: String,
    pub bytes: u64,
}
