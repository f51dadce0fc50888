//! The host side of a program's bridges: `tools.*` through the built-in
//! tools with the run's gate, `task()` through the run's delegation.

use std::sync::Arc;

use pizza_sandbox::{Bridge, BridgeCall};
use serde_json::{Map, Value};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::MAX_PARALLEL_TASKS;
use super::pages::{PAGE_MAX_BYTES, PageCache, PagedFile};
use crate::builtin::READ_DEFAULT_LIMIT;
use crate::nested::{NestedCalls, NestedGate};
use crate::path::normalize_path;
use crate::registry::ToolRegistry;
use crate::tool::ToolContext;

/// `tools.<js name>` → the tool it calls.
pub(super) const BRIDGES: [(&str, &str); 6] = [
    ("ls", "ls"),
    ("readFile", "read_file"),
    ("glob", "glob"),
    ("grep", "grep"),
    ("writeFile", "write_file"),
    ("editFile", "edit_file"),
];

/// The argument a bridge takes when the program passes a bare string.
fn string_argument(tool: &str) -> Option<&'static str> {
    match tool {
        "ls" => Some("path"),
        "read_file" => Some("file_path"),
        "glob" | "grep" => Some("pattern"),
        _ => None,
    }
}

pub(super) struct Bridges<'c> {
    ctx: &'c ToolContext,
    tools: &'c ToolRegistry,
    nested: Arc<dyn NestedCalls>,
    skills: Vec<String>,
    tasks: Semaphore,
    pages: PageCache,
    cancel: &'c CancellationToken,
}

impl<'c> Bridges<'c> {
    pub(super) fn new(
        ctx: &'c ToolContext,
        tools: &'c ToolRegistry,
        nested: Arc<dyn NestedCalls>,
        skills: Vec<String>,
        cancel: &'c CancellationToken,
    ) -> Self {
        Self {
            ctx,
            tools,
            nested,
            skills,
            tasks: Semaphore::new(MAX_PARALLEL_TASKS),
            pages: PageCache::default(),
            cancel,
        }
    }

    async fn tool(&self, js_name: &str, args: Value) -> Result<Value, String> {
        let Some((_, name)) = BRIDGES.iter().find(|(js, _)| *js == js_name) else {
            let names: Vec<_> = BRIDGES
                .iter()
                .map(|(js, _)| format!("tools.{js}"))
                .collect();
            return Err(format!(
                "tools.{js_name} does not exist; the bridges are {}",
                names.join(", ")
            ));
        };
        let args = tool_arguments(js_name, name, args)?;
        let tool = (self.tools)
            .resolve(name, &args)
            .map_err(|e| format!("tools.{js_name}: {e}"))?;
        match self.nested.gate(tool.as_ref(), &args) {
            NestedGate::Run => {}
            NestedGate::Refuse => {
                return Err(format!(
                    "tools.{js_name}: not run: the person does not allow {name} in Settings › \
                     Approvals"
                ));
            }
            NestedGate::Ask => {
                return Err(format!(
                    "tools.{js_name}: not run: this call needs the person's approval ({}), which \
                     a program cannot wait for; make it with the {name} tool directly",
                    tool.describe_call(&args).trim_end_matches('.')
                ));
            }
        }
        if *name == "read_file" {
            return self.read_page(&args).await.map(Value::String);
        }
        let changed = tool.change_target(&args);
        let output = (tool.call(self.ctx, args, self.cancel.child_token()).await)
            .map_err(|e| format!("tools.{js_name}: {e}"))?;
        if let Some(path) = changed {
            self.pages.forget(&path);
        }
        if output.is_error {
            return Err(output.to_text());
        }
        Ok(Value::String(output.to_text()))
    }

    async fn read_page(&self, args: &Value) -> Result<String, String> {
        let raw = args.get("file_path").and_then(Value::as_str).unwrap_or("");
        let path = normalize_path(raw).map_err(|e| format!("tools.readFile: {e}"))?;
        let offset = count(args, "offset").unwrap_or(0);
        let limit = count(args, "limit").unwrap_or(READ_DEFAULT_LIMIT);
        let file = match self.pages.get(&path) {
            Some(file) => file,
            None => {
                let text =
                    (self.ctx.fs.read(&path).await).map_err(|e| format!("tools.readFile: {e}"))?;
                let file = Arc::new(PagedFile::new(text));
                self.pages.put(&path, Arc::clone(&file));
                file
            }
        };
        file.page(&path, offset, limit, PAGE_MAX_BYTES)
            .map(str::to_owned)
    }

    async fn task(&self, skill: &str, ask: &str) -> Result<Value, String> {
        if !self.skills.iter().any(|s| s == skill) {
            return Err(format!(
                "task: no skill named `{skill}`; choose one of: {}",
                self.skills.join(", ")
            ));
        }
        if ask.trim().is_empty() {
            return Err("task: the ask is empty; pass what the skill should do".to_owned());
        }
        let _turn = self
            .tasks
            .acquire()
            .await
            .map_err(|_| "task: cancelled".to_owned())?;
        (self.nested)
            .task(skill, ask, self.cancel.child_token())
            .await
            .map(Value::String)
    }
}

#[async_trait::async_trait]
impl Bridge for Bridges<'_> {
    async fn call(&self, call: BridgeCall) -> Result<Value, String> {
        match call {
            BridgeCall::Tool { name, args } => self.tool(&name, args).await,
            BridgeCall::Task { skill, ask } => self.task(&skill, &ask).await,
        }
    }
}

fn count(args: &Value, key: &str) -> Option<usize> {
    args.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

/// What a program passed, as the tool's arguments: a bare string is the
/// tool's main argument, nothing is `{}`, and camelCase keys
/// (`filePath`, `oldString`) are the tool's snake_case ones.
fn tool_arguments(js_name: &str, tool: &str, args: Value) -> Result<Value, String> {
    match args {
        Value::Null => Ok(Value::Object(Map::new())),
        Value::String(text) => match string_argument(tool) {
            Some(key) => Ok(Value::Object(Map::from_iter([(
                key.to_owned(),
                Value::String(text),
            )]))),
            None => Err(format!(
                "tools.{js_name} takes one object argument, e.g. {{file_path, ...}}"
            )),
        },
        Value::Object(map) => Ok(Value::Object(
            map.into_iter()
                .map(|(key, value)| (snake_case(&key), value))
                .collect(),
        )),
        other => Err(format!(
            "tools.{js_name} takes one object argument, not {}",
            match other {
                Value::Array(_) => "an array",
                Value::Number(_) => "a number",
                _ => "a boolean",
            }
        )),
    }
}

fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 2);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_take_strings_and_camel_case() {
        assert_eq!(
            tool_arguments("readFile", "read_file", json!("/a.md")),
            Ok(json!({"file_path": "/a.md"}))
        );
        assert_eq!(
            tool_arguments(
                "editFile",
                "edit_file",
                json!({"filePath": "/a", "oldString": "x", "new_string": "y", "replaceAll": true})
            ),
            Ok(
                json!({"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": true})
            )
        );
        assert_eq!(tool_arguments("ls", "ls", Value::Null), Ok(json!({})));
        assert!(tool_arguments("writeFile", "write_file", json!("x")).is_err());
        assert!(
            tool_arguments("ls", "ls", json!([1]))
                .unwrap_err()
                .contains("an array")
        );
    }
}
