//! The built-in filesystem tools. Argument names follow the DeepAgents tools
//! (`file_path`, `old_string`, ...) that models already know.

mod read;
mod search;
mod write;

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;

use pizza_protocol::ChangePreview;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use read::{Ls, READ_DEFAULT_LIMIT, READ_MAX_CHARS, ReadFile};
pub use search::{Glob, Grep};
pub use write::{EditFile, WriteFile};

use crate::error::{Result, ToolError};
use crate::fs::FileSystem;
use crate::path::normalize_path;
use crate::tool::{Tool, ToolContext, ToolOutput, describe_by_file_path};

/// Where a write asks by default: outside the thread's own files. A write
/// to `/` stays in the thread (and its history); one below these mounts
/// changes the person's folders or the memory every thread reads.
const ASKING_MOUNTS: [&str; 2] = ["/local", "/memories"];

/// Whether a normalized path is below one of [`ASKING_MOUNTS`] (or is one).
pub(crate) fn outside_the_thread(path: &str) -> bool {
    ASKING_MOUNTS.iter().any(|mount| {
        path.strip_prefix(mount)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// A file change a call would make: the file's content before (`None`:
/// it does not exist) and after.
struct Proposed {
    path: String,
    before: Option<String>,
    after: String,
}

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

    /// For a tool that changes files, what the call would write.
    fn propose(
        _fs: &dyn FileSystem,
        _args: Self::Args,
    ) -> impl Future<Output = Result<Option<Proposed>>> + Send {
        async { Ok(None) }
    }
}

/// The path a changing call names, normalized; `None` for a tool that only
/// reads (or a path that will be refused anyway).
fn file_path_arg(args: &Value) -> Option<String> {
    args.get("file_path")
        .and_then(Value::as_str)
        .and_then(|path| normalize_path(path).ok())
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

    fn asks_by_default(&self, args: &Value) -> bool {
        if T::CHANGES.is_none() {
            return false;
        }
        // A path that will be refused asks too: the card shows the mistake.
        file_path_arg(args).is_none_or(|path| outside_the_thread(&path))
    }

    fn change_target(&self, args: &Value) -> Option<String> {
        T::CHANGES.and(file_path_arg(args))
    }

    async fn preview(&self, fs: &dyn FileSystem, args: &Value) -> Option<ChangePreview> {
        T::CHANGES?;
        let args = parse(T::NAME, args.clone()).ok()?;
        let proposed = T::propose(fs, args).await.ok()??;
        Some(crate::change::preview(
            &proposed.path,
            proposed.before.as_deref(),
            &proposed.after,
        ))
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
