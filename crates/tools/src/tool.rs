//! The tool seam.

use std::fmt::Debug;
use std::sync::Arc;

use pizza_protocol::ChangePreview;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::Result;
use crate::fs::FileSystem;
use crate::nested::NestedCalls;

/// What a tool call may use besides its arguments.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub thread_id: String,
    /// The model's id for this call.
    pub call_id: String,
    /// The thread's files (state files now; the composite filesystem later).
    pub fs: Arc<dyn FileSystem>,
    /// The run's gate and delegation, for a tool that calls other tools
    /// (`eval`); `None` outside a run.
    pub nested: Option<Arc<dyn NestedCalls>>,
}

/// One part of what a tool returns. Closed on purpose: the agent stores
/// each kind of part, so a new one is a change it must see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputPart {
    Text(String),
    /// An image the tool made (an MCP server's screenshot or chart): the
    /// agent keeps it as an attachment of the thread, and a vision model
    /// sees it.
    Image {
        /// A file name for it, e.g. `image-1.png`.
        name: String,
        /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
        mime: String,
        data: Vec<u8>,
    },
}

/// What a tool call returns: its content parts, and whether the tool itself
/// reports a failure the model should read (a tool that could not run at all
/// returns a [`crate::ToolError`] instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub parts: Vec<OutputPart>,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            parts: vec![OutputPart::Text(text.into())],
            is_error: false,
        }
    }

    /// The text parts joined: what a reader of the result sees.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                OutputPart::Text(text) => out.push_str(text),
                OutputPart::Image { name, .. } => {
                    if !out.is_empty() && !out.ends_with('\n') {
                        out.push('\n');
                    }
                    out.push_str(&format!("[image {name}]"));
                }
            }
        }
        out
    }
}

impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

/// A tool the model can call. Object-safe: the registry holds `Arc<dyn Tool>`.
///
/// `call` gets arguments already validated against [`Tool::parameters`]. It
/// should return promptly with [`crate::ToolError::Cancelled`] once `cancel`
/// fires; the agent also stops polling it.
#[async_trait::async_trait]
pub trait Tool: Send + Sync + Debug {
    fn name(&self) -> &str;
    fn description(&self) -> &str;
    /// JSON Schema of the arguments object.
    fn parameters(&self) -> Value;
    /// Whether this call waits for the person's approval unless a policy
    /// says otherwise: a tool that changes something outside the thread
    /// asks; one that only reads does not.
    fn asks_by_default(&self, _args: &Value) -> bool {
        false
    }
    /// Whether this call asks whatever the person's policy or an earlier
    /// "allow in this thread" says (only "never" still wins): an MCP tool
    /// whose definition changed since the person reviewed it.
    fn must_ask(&self, _args: &Value) -> bool {
        false
    }
    /// The file the call changes (normalized), for a tool that changes
    /// one: an approved call is checked against the state this file had
    /// when the call asked.
    fn change_target(&self, _args: &Value) -> Option<String> {
        None
    }
    /// What the call would change, for its approval card; `None` when
    /// there is nothing to show (or the call would fail).
    async fn preview(&self, _fs: &dyn FileSystem, _args: &Value) -> Option<ChangePreview> {
        None
    }
    /// The agent invocation `key` (see [`NestedCalls::invocation`]) ended:
    /// drop what the tool kept for it.
    fn end_invocation(&self, _key: &str) {}
    /// One sentence for the approval card: what the call will do.
    fn describe_call(&self, args: &Value) -> String {
        describe_by_file_path(self.name(), args)
    }
    async fn call(
        &self,
        ctx: &ToolContext,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput>;
}

/// The approval card's sentence for a tool that says nothing better: the
/// tool's name and the file the call names, if any.
pub(crate) fn describe_by_file_path(tool: &str, args: &Value) -> String {
    match args.get("file_path").and_then(Value::as_str) {
        Some(path) => format!("Run {tool} on {path}."),
        None => format!("Run the tool {tool}."),
    }
}
