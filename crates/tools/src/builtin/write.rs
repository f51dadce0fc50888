//! `write_file` and `edit_file`.

use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{check_cancel, parse};
use crate::error::{Result, ToolError};
use crate::path::normalize_path;
use crate::tool::{Tool, ToolContext, ToolOutput};

fn file_path(args: &Value) -> Option<&str> {
    args.get("file_path").and_then(Value::as_str)
}

#[derive(Debug, Clone, Copy, Default)]
pub struct WriteFile;

#[derive(Deserialize)]
struct WriteArgs {
    file_path: String,
    content: String,
}

#[async_trait::async_trait]
impl Tool for WriteFile {
    fn name(&self) -> &str {
        "write_file"
    }

    fn description(&self) -> &str {
        "Create a file in the thread's files, or replace its whole content. Folders are created \
         as needed. To change part of an existing file, use edit_file."
    }

    /// A change the person should see first (a policy may say otherwise).
    fn asks_by_default(&self, _args: &Value) -> bool {
        true
    }

    fn describe_call(&self, args: &Value) -> String {
        match file_path(args) {
            Some(path) => format!("Write the file {path}."),
            None => "Write a file.".to_owned(),
        }
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Absolute path, e.g. /notes.md"},
                "content": {"type": "string"}
            },
            "required": ["file_path", "content"],
            "additionalProperties": false
        })
    }

    async fn call(
        &self,
        ctx: &ToolContext,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput> {
        let args: WriteArgs = parse(self.name(), args)?;
        let path = normalize_path(&args.file_path)?;
        check_cancel(&cancel)?;
        ctx.fs.check_writable(&path).await?;
        let existed = ctx.fs.read(&path).await.is_ok();
        let chars = args.content.chars().count();
        ctx.fs.write(&path, args.content).await?;
        let verb = if existed { "Replaced" } else { "Created" };
        Ok(format!("{verb} {path} ({chars} characters).").into())
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct EditFile;

#[derive(Deserialize)]
struct EditArgs {
    file_path: String,
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

#[async_trait::async_trait]
impl Tool for EditFile {
    fn name(&self) -> &str {
        "edit_file"
    }

    fn description(&self) -> &str {
        "Replace exact text in a file of the thread's files. `old_string` must match exactly \
         (whitespace included) and be unique in the file, unless `replace_all` is true. \
         Read the file first."
    }

    /// A change the person should see first (a policy may say otherwise).
    fn asks_by_default(&self, _args: &Value) -> bool {
        true
    }

    fn describe_call(&self, args: &Value) -> String {
        match file_path(args) {
            Some(path) => format!("Edit the file {path}."),
            None => "Edit a file.".to_owned(),
        }
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Absolute path, e.g. /notes.md"},
                "old_string": {"type": "string"},
                "new_string": {"type": "string"},
                "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)."}
            },
            "required": ["file_path", "old_string", "new_string"],
            "additionalProperties": false
        })
    }

    async fn call(
        &self,
        ctx: &ToolContext,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput> {
        let args: EditArgs = parse(self.name(), args)?;
        let path = normalize_path(&args.file_path)?;
        if args.old_string.is_empty() {
            return Err(ToolError::invalid_arguments(
                self.name(),
                "old_string is empty; to write a whole file use write_file",
            ));
        }
        if args.old_string == args.new_string {
            return Err(ToolError::invalid_arguments(
                self.name(),
                "old_string and new_string are the same; nothing would change",
            ));
        }
        check_cancel(&cancel)?;
        ctx.fs.check_writable(&path).await?;
        let content = ctx.fs.read(&path).await?;
        let count = content.matches(&args.old_string).count();
        let updated = match count {
            0 => {
                return Err(ToolError::failed(format!(
                    "old_string was not found in {path}; read the file and copy the exact text, \
                     whitespace included"
                )));
            }
            1 => content.replacen(&args.old_string, &args.new_string, 1),
            _ if args.replace_all => content.replace(&args.old_string, &args.new_string),
            n => {
                return Err(ToolError::failed(format!(
                    "old_string appears {n} times in {path}; include more surrounding text to \
                     make it unique, or set replace_all to true"
                )));
            }
        };
        ctx.fs.write(&path, updated).await?;
        let noun = if count == 1 {
            "occurrence"
        } else {
            "occurrences"
        };
        Ok(format!("Replaced {count} {noun} in {path}.").into())
    }
}
