//! The tool seam.

use std::fmt::Debug;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::Result;
use crate::fs::FileSystem;

/// What a tool call may use besides its arguments.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub thread_id: String,
    /// The model's id for this call.
    pub call_id: String,
    /// The thread's files (state files now; the composite filesystem later).
    pub fs: Arc<dyn FileSystem>,
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
    async fn call(
        &self,
        ctx: &ToolContext,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<String>;
}
