//! The built-in filesystem tools. Argument names follow the DeepAgents tools
//! (`file_path`, `old_string`, ...) that models already know.

mod read;
mod search;
mod write;

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use read::{Ls, READ_DEFAULT_LIMIT, READ_MAX_CHARS, ReadFile};
pub use search::{Glob, Grep};
pub use write::{EditFile, WriteFile};

use crate::error::{Result, ToolError};
use crate::tool::{Tool, ToolContext, ToolOutput, describe_by_file_path};

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

/// What sets one built-in tool apart; the [`Tool`] impl below is the same
/// for all of them.
trait Builtin: Send + Sync + Debug {
    type Args: DeserializeOwned + Send;
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    /// For a tool that changes files, the verb for what a call does
    /// ("Write"): such calls wait for approval unless a policy says
    /// otherwise. `None` for a tool that only reads.
    const CHANGES: Option<&'static str> = None;

    /// JSON Schema of the arguments object.
    fn parameters() -> Value;
    fn run(call: Call<'_, Self::Args>) -> impl Future<Output = Result<ToolOutput>> + Send;
}

/// One call of a built-in tool, its arguments already typed.
struct Call<'a, A> {
    ctx: &'a ToolContext,
    args: A,
    cancel: CancellationToken,
}

#[async_trait::async_trait]
impl<T: Builtin> Tool for T {
    fn name(&self) -> &str {
        T::NAME
    }

    fn description(&self) -> &str {
        T::DESCRIPTION
    }

    fn parameters(&self) -> Value {
        T::parameters()
    }

    fn asks_by_default(&self, _args: &Value) -> bool {
        T::CHANGES.is_some()
    }

    fn describe_call(&self, args: &Value) -> String {
        let Some(verb) = T::CHANGES else {
            return describe_by_file_path(T::NAME, args);
        };
        match args.get("file_path").and_then(Value::as_str) {
            Some(path) => format!("{verb} the file {path}."),
            None => format!("{verb} a file."),
        }
    }

    async fn call(
        &self,
        ctx: &ToolContext,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput> {
        let args = parse(T::NAME, args)?;
        T::run(Call { ctx, args, cancel }).await
    }
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
