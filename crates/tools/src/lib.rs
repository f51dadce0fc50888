#![doc = include_str!("../README.md")]

mod builtin;
mod error;
mod fs;
mod path;
mod registry;
mod schema;
mod thread_files;
mod tool;

pub use builtin::{
    EditFile, Glob, Grep, Ls, READ_DEFAULT_LIMIT, READ_MAX_CHARS, ReadFile, WriteFile,
    builtin_tools,
};
pub use error::{Result, ToolError};
pub use fs::{DirEntry, FileSystem};
pub use path::normalize_path;
pub use registry::ToolRegistry;
pub use schema::validate as validate_schema;
pub use thread_files::ThreadFiles;
pub use tool::{Tool, ToolContext};

/// Re-exported so tool implementors need not depend on tokio-util.
pub use tokio_util::sync::CancellationToken;
