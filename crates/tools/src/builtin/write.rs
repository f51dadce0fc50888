//! `write_file` and `edit_file`.

use serde::Deserialize;
use serde_json::{Value, json};

use super::{Builtin, Call, Proposed, check_cancel};
use crate::change::read_if_present;
use crate::error::{Result, ToolError};
use crate::fs::FileSystem;
use crate::path::normalize_path;
use crate::tool::ToolOutput;

#[derive(Debug, Clone, Copy, Default)]
pub struct WriteFile;

#[derive(Deserialize)]
pub(super) struct WriteArgs {
    file_path: String,
    content: String,
}

impl Builtin for WriteFile {
    type Args = WriteArgs;
    const NAME: &'static str = "write_file";
    const DESCRIPTION: &'static str = "Create a file in the thread's files, or replace its whole content. Folders are created \
         as needed. To change part of an existing file, use edit_file.";

    /// A change the person should see first (a policy may say otherwise).
    const CHANGES: Option<&'static str> = Some("Write");

    fn parameters() -> Value {
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

    async fn run(call: Call<'_, WriteArgs>) -> Result<ToolOutput> {
        let Call { ctx, args, cancel } = call;
        let path = normalize_path(&args.file_path)?;
        check_cancel(&cancel)?;
        ctx.fs.check_writable(&path).await?;
        let existed = ctx.fs.read(&path).await.is_ok();
        let chars = args.content.chars().count();
        ctx.fs.write(&path, args.content).await?;
        let verb = if existed { "Replaced" } else { "Created" };
        Ok(format!("{verb} {path} ({chars} characters).").into())
    }

    async fn propose(fs: &dyn FileSystem, args: WriteArgs) -> Result<Option<Proposed>> {
        let path = normalize_path(&args.file_path)?;
        let before = read_if_present(fs, &path).await?;
        Ok(Some(Proposed {
            path,
            before,
            after: args.content,
        }))
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct EditFile;

#[derive(Deserialize)]
pub(super) struct EditArgs {
    file_path: String,
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

impl Builtin for EditFile {
    type Args = EditArgs;
    const NAME: &'static str = "edit_file";
    const DESCRIPTION: &'static str = "Replace exact text in a file of the thread's files. `old_string` must match exactly \
         (whitespace included) and be unique in the file, unless `replace_all` is true. \
         Read the file first.";

    /// A change the person should see first (a policy may say otherwise).
    const CHANGES: Option<&'static str> = Some("Edit");

    fn parameters() -> Value {
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

    async fn run(call: Call<'_, EditArgs>) -> Result<ToolOutput> {
        let Call { ctx, args, cancel } = call;
        let path = normalize_path(&args.file_path)?;
        check_edit(&args)?;
        check_cancel(&cancel)?;
        ctx.fs.check_writable(&path).await?;
        let content = ctx.fs.read(&path).await?;
        let (updated, count) = apply_edit(&path, &content, &args)?;
        ctx.fs.write(&path, updated).await?;
        let noun = if count == 1 {
            "occurrence"
        } else {
            "occurrences"
        };
        Ok(format!("Replaced {count} {noun} in {path}.").into())
    }

    async fn propose(fs: &dyn FileSystem, args: EditArgs) -> Result<Option<Proposed>> {
        let path = normalize_path(&args.file_path)?;
        check_edit(&args)?;
        let before = fs.read(&path).await?;
        let (after, _) = apply_edit(&path, &before, &args)?;
        Ok(Some(Proposed {
            path,
            before: Some(before),
            after,
        }))
    }
}

/// Refuses an edit that could not change anything.
fn check_edit(args: &EditArgs) -> Result<()> {
    if args.old_string.is_empty() {
        return Err(ToolError::invalid_arguments(
            EditFile::NAME,
            "old_string is empty; to write a whole file use write_file",
        ));
    }
    if args.old_string == args.new_string {
        return Err(ToolError::invalid_arguments(
            EditFile::NAME,
            "old_string and new_string are the same; nothing would change",
        ));
    }
    Ok(())
}

/// The file's content after the edit, and how many occurrences it replaced.
fn apply_edit(path: &str, content: &str, args: &EditArgs) -> Result<(String, usize)> {
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
    Ok((updated, count))
}
