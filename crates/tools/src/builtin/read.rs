//! `ls` and `read_file`.

use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{Builtin, Call, check_cancel};
use crate::error::Result;
use crate::path::normalize_path;
use crate::tool::ToolOutput;

/// Lines `read_file` returns when no `limit` is given.
pub const READ_DEFAULT_LIMIT: usize = 2_000;
/// The most characters one `read_file` result holds; a longer page is cut at a
/// line boundary and names the offset to resume from, so a large file never
/// floods the context.
pub const READ_MAX_CHARS: usize = 50_000;
/// A single line longer than this is shortened in the output.
const LINE_MAX_CHARS: usize = 2_000;

#[derive(Debug, Clone, Copy, Default)]
pub struct Ls;

#[derive(Deserialize)]
pub(super) struct LsArgs {
    #[serde(default)]
    path: Option<String>,
}

impl Builtin for Ls {
    type Args = LsArgs;
    const NAME: &'static str = "ls";
    const DESCRIPTION: &'static str = "List the files and folders directly inside a folder of the thread's files. \
         Paths are absolute, e.g. `/` or `/notes`. Folders end with `/`.";

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Absolute folder path; defaults to /."}
            },
            "additionalProperties": false
        })
    }

    async fn run(call: Call<'_, LsArgs>) -> Result<ToolOutput> {
        let Call { ctx, args, cancel } = call;
        let dir = normalize_path(args.path.as_deref().unwrap_or("/"))?;
        check_cancel(&cancel)?;
        let listing = ctx.fs.list_bounded(&dir).await?;
        if listing.items.is_empty() && listing.truncated.is_none() {
            return Ok(format!("{dir} is empty.").into());
        }
        let mut out = String::new();
        for entry in listing.items {
            if entry.is_dir {
                let _ = writeln!(out, "{}/", entry.path);
            } else {
                let _ = writeln!(out, "{} ({} bytes)", entry.path, entry.size);
            }
        }
        if let Some(note) = listing.truncated {
            out.push_str(&note);
        }
        Ok(out.trim_end().to_owned().into())
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct ReadFile;

#[derive(Deserialize)]
pub(super) struct ReadArgs {
    file_path: String,
    #[serde(default)]
    offset: Option<usize>,
    #[serde(default)]
    limit: Option<usize>,
}

impl Builtin for ReadFile {
    type Args = ReadArgs;
    const NAME: &'static str = "read_file";
    const DESCRIPTION: &'static str = "Read a file of the thread's files. Output lines are numbered (`cat -n` style, from 1). \
         `offset` is the 0-based line to start at, `limit` the number of lines (default 2000). \
         A long page is cut at a size cap and says which offset to continue from.";

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Absolute path, e.g. /notes.md"},
                "offset": {"type": "integer", "minimum": 0, "description": "0-based line to start at."},
                "limit": {"type": "integer", "minimum": 1, "description": "Lines to read (default 2000)."}
            },
            "required": ["file_path"],
            "additionalProperties": false
        })
    }

    async fn run(call: Call<'_, ReadArgs>) -> Result<ToolOutput> {
        let Call { ctx, args, cancel } = call;
        let path = normalize_path(&args.file_path)?;
        check_cancel(&cancel)?;
        let content = ctx.fs.read(&path).await?;
        Ok(render_page(
            &path,
            &content,
            args.offset.unwrap_or(0),
            args.limit.unwrap_or(READ_DEFAULT_LIMIT),
        )
        .into())
    }
}

/// Numbered lines `offset..offset+limit`, cut at [`READ_MAX_CHARS`].
fn render_page(path: &str, content: &str, offset: usize, limit: usize) -> String {
    if content.is_empty() {
        return format!("{path} exists but is empty.");
    }
    let lines: Vec<&str> = content.lines().collect();
    let total = lines.len();
    if offset >= total {
        return format!(
            "offset {offset} is past the end of {path}, which has {total} lines; \
             use an offset below {total}."
        );
    }
    let end = offset.saturating_add(limit).min(total);
    let mut out = String::new();
    for (index, line) in lines.iter().enumerate().take(end).skip(offset) {
        let shown = shorten(line);
        let numbered = format!("{:>6}\t{shown}\n", index + 1);
        if !out.is_empty() && out.len() + numbered.len() > READ_MAX_CHARS {
            let shown_lines = index - offset;
            let _ = write!(
                out,
                "[Cut at the {READ_MAX_CHARS}-character cap after line {index} of {total}. \
                 Continue with read_file offset={index} (a limit of about {shown_lines} lines fits).]"
            );
            return out;
        }
        out.push_str(&numbered);
    }
    if end < total {
        let _ = write!(
            out,
            "[Showing lines {}-{end} of {total}. Continue with read_file offset={end}.]",
            offset + 1
        );
    }
    out.trim_end().to_owned()
}

fn shorten(line: &str) -> String {
    match line.char_indices().nth(LINE_MAX_CHARS) {
        Some((cut, _)) => format!("{}… [line shortened]", &line[..cut]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_numbered_and_point_at_the_rest() {
        let text = "a\nb\nc\nd\n";
        assert_eq!(
            render_page("/f", text, 0, 10),
            "     1\ta\n     2\tb\n     3\tc\n     4\td"
        );
        assert_eq!(
            render_page("/f", text, 1, 2),
            "     2\tb\n     3\tc\n[Showing lines 2-3 of 4. Continue with read_file offset=3.]"
        );
        assert!(render_page("/f", text, 9, 2).contains("past the end"));
        assert_eq!(render_page("/f", "", 0, 2), "/f exists but is empty.");
    }

    #[test]
    fn a_page_over_the_cap_names_the_offset_to_resume_from() {
        let line = "x".repeat(1_000);
        let text: String = (0..200).map(|_| format!("{line}\n")).collect();
        let page = render_page("/big", &text, 0, 2_000);
        assert!(page.len() <= READ_MAX_CHARS + 200, "{}", page.len());
        // 1,008 chars per numbered line: 49 lines fit under 50,000.
        assert!(page.ends_with(
            "[Cut at the 50000-character cap after line 49 of 200. Continue with read_file offset=49 (a limit of about 49 lines fits).]"
        ), "{}", &page[page.len() - 200..]);
    }
}
