//! The built-in filesystem tools. Argument names follow the DeepAgents tools
//! (`file_path`, `old_string`, ...) that models already know.

mod read;
mod search;
mod write;

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use read::{Ls, READ_DEFAULT_LIMIT, READ_MAX_CHARS, ReadFile};
pub use search::{Glob, Grep};
pub use write::{EditFile, WriteFile};

use crate::error::{Result, ToolError};
use crate::tool::Tool;

/// One of each built-in tool.
pub fn builtin_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Ls),
        Arc::new(ReadFile),
        Arc::new(Glob),
        Arc::new(Grep),
        Arc::new(WriteFile),
        Arc::new(EditFile),
    ]
}

/// Typed arguments; the registry has already checked the schema, so a
/// failure here means the schema and the struct disagree.
fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T> {
    serde_json::from_value(args).map_err(|e| ToolError::invalid_arguments(tool, e.to_string()))
}

fn check_cancel(cancel: &tokio_util::sync::CancellationToken) -> Result<()> {
    if cancel.is_cancelled() {
        Err(ToolError::Cancelled)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
