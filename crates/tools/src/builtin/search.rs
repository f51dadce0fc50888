//! `glob` and `grep`.

use std::fmt::Write as _;

use globset::{GlobBuilder, GlobMatcher};
use regex::RegexBuilder;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Builtin, Call, check_cancel};
use crate::error::{Result, ToolError};
use crate::path::normalize_path;
use crate::tool::ToolOutput;

/// The most paths or lines a search returns; the rest is counted, not shown.
const MAX_RESULTS: usize = 500;

#[derive(Debug, Clone, Copy, Default)]
pub struct Glob;

#[derive(Deserialize)]
pub(super) struct GlobArgs {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
}

/// `pattern` relative to `dir` (or absolute), `*` not crossing `/`.
fn matcher(tool: &str, dir: &str, pattern: &str) -> Result<GlobMatcher> {
    let full = if pattern.starts_with('/') {
        pattern.to_owned()
    } else if dir == "/" {
        format!("/{pattern}")
    } else {
        format!("{dir}/{pattern}")
    };
    GlobBuilder::new(&full)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| ToolError::invalid_arguments(tool, format!("bad glob {pattern:?}: {e}")))
}

impl Builtin for Glob {
    type Args = GlobArgs;
    const NAME: &'static str = "glob";
    const DESCRIPTION: &'static str = "Find files of the thread's files by glob pattern, e.g. `**/*.md` or `/notes/*.txt`. \
         A relative pattern is matched below `path` (default /). `*` stays within one folder; \
         `**` crosses folders.";

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string", "description": "Absolute folder to search; defaults to /."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        })
    }

    async fn run(call: Call<'_, GlobArgs>) -> Result<ToolOutput> {
        let Call { ctx, args, cancel } = call;
        let dir = normalize_path(args.path.as_deref().unwrap_or("/"))?;
        let glob = matcher(Self::NAME, &dir, &args.pattern)?;
        check_cancel(&cancel)?;
        let walked = ctx.fs.walk(&dir).await?;
        let matches: Vec<String> = walked
            .items
            .into_iter()
            .filter(|path| glob.is_match(path))
            .collect();
        if matches.is_empty() {
            let none = format!("No files match {:?} in {dir}.", args.pattern);
            return Ok(with_note(none, walked.truncated).into());
        }
        Ok(with_note(capped(matches), walked.truncated).into())
    }
}

/// `out` followed by the walk's note, if it stopped early.
fn with_note(mut out: String, note: Option<String>) -> String {
    if let Some(note) = note {
        out.push('\n');
        out.push_str(&note);
    }
    out
}

fn capped(lines: Vec<String>) -> String {
    let total = lines.len();
    let mut out = lines
        .into_iter()
        .take(MAX_RESULTS)
        .collect::<Vec<_>>()
        .join("\n");
    if total > MAX_RESULTS {
        let _ = write!(
            out,
            "\n[{} more results not shown; narrow the search.]",
            total - MAX_RESULTS
        );
    }
    out
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Grep;

#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum OutputMode {
    #[default]
    FilesWithMatches,
    Content,
    Count,
}

#[derive(Deserialize)]
pub(super) struct GrepArgs {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    glob: Option<String>,
    #[serde(default)]
    output_mode: OutputMode,
    #[serde(default)]
    case_insensitive: bool,
}

impl Builtin for Grep {
    type Args = GrepArgs;
    const NAME: &'static str = "grep";
    const DESCRIPTION: &'static str = "Search the contents of the thread's files with a regular expression (Rust regex syntax). \
         `output_mode`: `files_with_matches` (default) lists files, `content` shows \
         `path:line: text`, `count` shows matches per file. `glob` filters files, e.g. `*.md`.";

    fn parameters() -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string", "description": "Absolute folder to search; defaults to /."},
                "glob": {"type": "string", "description": "Only files whose path matches, e.g. *.md or **/*.txt"},
                "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"]},
                "case_insensitive": {"type": "boolean"}
            },
            "required": ["pattern"],
            "additionalProperties": false
        })
    }

    async fn run(call: Call<'_, GrepArgs>) -> Result<ToolOutput> {
        let Call { ctx, args, cancel } = call;
        let dir = normalize_path(args.path.as_deref().unwrap_or("/"))?;
        let regex = RegexBuilder::new(&args.pattern)
            .case_insensitive(args.case_insensitive)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| ToolError::invalid_arguments(Self::NAME, format!("bad regex: {e}")))?;
        // A filter without a folder matches the file name anywhere below `dir`.
        let filter = match &args.glob {
            Some(g) if g.contains('/') => Some(matcher(Self::NAME, &dir, g)?),
            Some(g) => Some(matcher(Self::NAME, &dir, &format!("**/{g}"))?),
            None => None,
        };
        let mut results = Vec::new();
        let walked = ctx.fs.walk(&dir).await?;
        let mut unreadable = 0usize;
        for path in walked.items {
            check_cancel(&cancel)?;
            if filter.as_ref().is_some_and(|f| !f.is_match(&path)) {
                continue;
            }
            // A binary, oversized or vanished file in a granted folder does
            // not end the search; it is counted below.
            let content = match ctx.fs.read(&path).await {
                Ok(content) => content,
                Err(ToolError::Cancelled) => return Err(ToolError::Cancelled),
                Err(_) => {
                    unreadable += 1;
                    continue;
                }
            };
            let mut count = 0usize;
            for (index, line) in content.lines().enumerate() {
                if regex.is_match(line) {
                    count += 1;
                    if args.output_mode == OutputMode::Content {
                        results.push(format!("{path}:{}: {line}", index + 1));
                    }
                }
            }
            match args.output_mode {
                OutputMode::FilesWithMatches if count > 0 => results.push(path),
                OutputMode::Count if count > 0 => results.push(format!("{path}: {count}")),
                _ => {}
            }
        }
        let mut note = walked.truncated;
        if unreadable > 0 {
            let skipped =
                format!("[{unreadable} files were skipped: binary, too large or unreadable.]");
            note = Some(match note {
                Some(n) => format!("{n}\n{skipped}"),
                None => skipped,
            });
        }
        if results.is_empty() {
            let none = format!("No matches for {:?} in {dir}.", args.pattern);
            return Ok(with_note(none, note).into());
        }
        Ok(with_note(capped(results), note).into())
    }
}
