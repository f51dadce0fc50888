//! Memories: the person's own Markdown notes the agent may read and write
//! under `/memories/` while memory is on.

use serde::{Deserialize, Serialize};

/// Longest memory file name, in bytes.
pub const MEMORY_NAME_MAX: usize = 255;
/// Largest memory file, in bytes.
pub const MEMORY_CONTENT_MAX: usize = 1_000_000;
/// Characters of content in a list preview.
pub const MEMORY_PREVIEW_CHARS: usize = 200;

/// One memory file in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryEntry {
    /// A plain file name, `<topic>.md`.
    pub name: String,
    pub size: u64,
    pub modified_at: i64,
    /// The first characters of the content.
    pub preview: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryListParams {}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryList {
    /// By name.
    pub memories: Vec<MemoryEntry>,
    /// Whether the agent can see them now (the memory setting).
    pub enabled: bool,
    /// The folder on disk.
    pub folder: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryNameParams {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryFile {
    pub name: String,
    pub content: String,
    pub modified_at: i64,
}

/// Creates or replaces a memory file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryWriteParams {
    pub name: String,
    pub content: String,
}
