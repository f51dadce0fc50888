//! `eval`: a short JavaScript program, run in the sandbox, that reaches the
//! thread's files through the same tools the model calls (and the skills
//! through `task()`), so bulk data is processed where it lies and only the
//! distillate the program returns enters the conversation.
//!
//! MCP tools are never bridged: a skill's approval gate would be bypassed.
//! A bridged call that the run's policy would ask about is refused with a
//! sentence that says to make the call directly, where the person can
//! approve it: a program cannot wait hours for a decision, and re-running
//! it after one would repeat its other work.

mod bridge;
mod pages;

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use pizza_sandbox::{EvalError, EvalFailure, EvalOutcome, EvalRequest, Sandbox};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::error::{Result, ToolError};
use crate::nested::{NestedCalls, Unattended};
use crate::registry::ToolRegistry;
use crate::tool::{Tool, ToolContext, ToolOutput};

pub use pages::PAGE_MAX_BYTES;

/// The tool's name.
pub const EVAL_TOOL: &str = "eval";
/// Seconds one program may run, bridge work included (setting
/// `agent.eval_timeout_secs`).
pub const DEFAULT_EVAL_TIMEOUT_SECS: u64 = 120;
/// `task()` calls one program runs at once; more wait their turn.
pub const MAX_PARALLEL_TASKS: usize = 32;

const DESCRIPTION: &str = "Run a short JavaScript program in a sandbox to work through \
files without reading them into the conversation: page through large files, filter, count \
and aggregate, and return only the result. Modern JavaScript (async/await, JSON, Map/Set, \
RegExp); no network, no timers, nothing of the computer but the bridges below. The program's \
`return` value (or its last expression) comes back as text or JSON, cut at 8,000 characters; \
console.log output comes back too. Bridges (all async, one object argument each, same paths \
and permissions as the tools): `await tools.readFile({file_path, offset, limit})` returns the \
raw lines offset..offset+limit (default 2000) as one string, '' past the end; a page over \
1 MiB throws, naming a limit that fits. `tools.ls({path})`, `tools.glob({pattern, path})`, \
`tools.grep({pattern, path, glob, output_mode})`, `tools.writeFile({file_path, content})` and \
`tools.editFile({file_path, old_string, new_string, replace_all})` return what those tools \
return and throw their errors. When skills are available, `await task(skill, ask)` runs one \
and returns its report (run several with Promise.all). A write that needs the person's \
approval throws: make that call with the tool itself. Each call starts with fresh globals.";

/// The `eval` tool: one sandbox, the built-in file tools as its bridges.
#[derive(Debug)]
pub struct EvalTool {
    sandbox: Sandbox,
    /// What `tools.*` reaches: the six built-in file tools, never MCP.
    tools: ToolRegistry,
    timeout_secs: AtomicU64,
}

impl EvalTool {
    pub fn new(sandbox: Sandbox) -> Self {
        Self {
            sandbox,
            tools: ToolRegistry::with_builtins(),
            timeout_secs: AtomicU64::new(DEFAULT_EVAL_TIMEOUT_SECS),
        }
    }

    /// The wall-clock limit of later calls (at least one second).
    pub fn set_timeout_secs(&self, secs: u64) {
        self.timeout_secs.store(secs.max(1), Ordering::Relaxed);
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs.load(Ordering::Relaxed))
    }

    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }
}

#[async_trait::async_trait]
impl Tool for EvalTool {
    fn name(&self) -> &str {
        EVAL_TOOL
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "description": "The JavaScript program. Use `await` freely; end with `return <result>` or an expression."
                }
            },
            "required": ["code"],
            "additionalProperties": false
        })
    }

    fn describe_call(&self, _args: &Value) -> String {
        "Run a JavaScript program over the thread's files.".to_owned()
    }

    fn end_invocation(&self, key: &str) {
        self.sandbox.release(key);
    }

    async fn call(
        &self,
        ctx: &ToolContext,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput> {
        let code = args.get("code").and_then(Value::as_str).unwrap_or_default();
        if code.trim().is_empty() {
            return Err(ToolError::invalid_arguments(
                EVAL_TOOL,
                "`code` is empty; pass the program",
            ));
        }
        let nested: Arc<dyn NestedCalls> = match &ctx.nested {
            Some(nested) => Arc::clone(nested),
            None => Arc::new(Unattended::new(ctx.thread_id.clone())),
        };
        let skills = nested.skills();
        let request = EvalRequest {
            code: code.to_owned(),
            bridges: bridge::BRIDGES
                .iter()
                .map(|(js, _)| (*js).to_owned())
                .collect(),
            task: !skills.is_empty(),
            timeout: Some(self.timeout()),
        };
        let bridges = bridge::Bridges::new(ctx, &self.tools, Arc::clone(&nested), skills, &cancel);
        let ended = (self.sandbox)
            .eval(nested.invocation(), request, &bridges, cancel.clone())
            .await;
        match ended {
            Ok(outcome) => Ok(ToolOutput::text(render_outcome(
                &outcome,
                self.sandbox.limits().max_result_chars,
            ))),
            Err(EvalFailure {
                error: EvalError::Cancelled,
                ..
            }) => Err(ToolError::Cancelled),
            Err(failure) => Ok(ToolOutput {
                is_error: true,
                ..ToolOutput::text(render_failure(&failure))
            }),
        }
    }
}

/// The result, a note when it was cut, then what the program logged.
fn render_outcome(outcome: &EvalOutcome, max_chars: usize) -> String {
    let mut out = outcome.result.clone();
    if let Some(total) = outcome.result_chars_total {
        let _ = write!(
            out,
            "\n[The result was cut at {max_chars} of {total} characters: return less, such as \
             counts or the first matches.]"
        );
    }
    append_console(&mut out, &outcome.logs);
    out
}

fn render_failure(failure: &EvalFailure) -> String {
    let mut out = format!("Error: eval: {}", failure.error);
    append_console(&mut out, &failure.logs);
    out
}

fn append_console(out: &mut String, logs: &str) {
    let logs = logs.trim_end();
    if !logs.is_empty() {
        out.push_str("\n\nConsole output:\n");
        out.push_str(logs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_result_says_so_and_logs_follow() {
        let outcome = EvalOutcome {
            result: "x".repeat(10),
            result_chars_total: Some(12_345),
            logs: "seen 3\n".to_owned(),
            bridge_calls: 0,
        };
        let text = render_outcome(&outcome, 10);
        assert!(text.starts_with("xxxxxxxxxx\n[The result was cut at 10 of 12345"));
        assert!(text.ends_with("Console output:\nseen 3"), "{text}");
        let plain = EvalOutcome {
            logs: String::new(),
            result_chars_total: None,
            ..outcome
        };
        assert_eq!(render_outcome(&plain, 10), "xxxxxxxxxx");
    }
}
