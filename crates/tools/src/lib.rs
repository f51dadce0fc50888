#![doc = include_str!("../README.md")]

mod atomic;
mod builtin;
mod change;
mod composite;
mod error;
mod eval;
mod fs;
mod grant;
#[cfg(unix)]
mod host_dir;
#[cfg(not(unix))]
#[path = "host_dir_other.rs"]
mod host_dir;
mod host_folder;
mod host_path;
mod mcp_tool;
mod nested;
mod path;
mod registry;
mod schema;
mod thread_files;
mod tool;

pub use atomic::write_atomic;
pub use builtin::{
    EditFile, Glob, Grep, Ls, READ_DEFAULT_LIMIT, READ_MAX_CHARS, ReadFile, WriteFile,
    builtin_tools,
};
pub use change::{FileState, PREVIEW_MAX_CHARS, file_state};
pub use composite::CompositeFs;
pub use error::{Result, ToolError};
pub use eval::{
    DEFAULT_EVAL_TIMEOUT_SECS, EVAL_TOOL, EvalTool, MAX_PARALLEL_TASKS, PAGE_MAX_BYTES,
};
pub use fs::{Bounded, DirEntry, FileSystem};
pub use grant::{
    Access, GRANT_ID_MAX_CHARS, GRANT_PATH_MAX_CHARS, Grant, GrantError, MEMORY_PROMPT,
    MountSource, Mounts, canonical_grant_path, check_grant, grants_line, suggest_grant_id,
    validate_grant_id,
};
pub use host_folder::{EntryKind, FolderFile, HostFolder};
pub use mcp_tool::{McpCallPolicy, McpTool, tool_output};
pub use nested::{NestedCalls, NestedGate, Unattended};
pub use path::normalize_path;
pub use registry::ToolRegistry;
pub use schema::validate as validate_schema;
pub use thread_files::ThreadFiles;
pub use tool::{OutputPart, Tool, ToolContext, ToolOutput};

/// The sandbox `eval` runs in, for the host that makes one.
pub use pizza_sandbox::{Limits as EvalLimits, Sandbox, WorkerCommand};
/// Re-exported so tool implementors need not depend on tokio-util.
pub use tokio_util::sync::CancellationToken;
