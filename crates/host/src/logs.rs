//! Seeing what happened: `log_read` over the rotated log files,
//! `log_open_folder`, and `app_diagnostics` ([`diagnostics`]).
//!
//! The app writes `pizza-bot.log` in the data root's `logs` folder and
//! rotates it to `pizza-bot.log.1` (newest) … `.N` (oldest). The files are
//! already scrubbed of secrets as they are written; this only reads them.

pub(crate) mod diagnostics;

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use pizza_protocol::{
    ApiError, LOG_LINE_MAX_CHARS, LOG_QUERY_MAX_CHARS, LOG_READ_DEFAULT_LINES, LOG_READ_MAX_LINES,
    LogLevel, LogLine, LogOpenFolderParams, LogRead, LogReadParams,
};

use crate::Host;

/// The live log file's name; rotated files append `.1`, `.2`, ….
pub const LOG_FILE_NAME: &str = "pizza-bot.log";

/// What one read keeps of a file: the rotation caps each at a few MB, this
/// only guards against a file someone grew by hand.
const FILE_READ_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The log files in `dir`, newest first: the live file, then `.1`, `.2`, ….
fn log_files(dir: &Path) -> io::Result<Vec<(u32, PathBuf)>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let rank = if name == LOG_FILE_NAME {
            0
        } else if let Some(n) = name
            .strip_prefix(LOG_FILE_NAME)
            .and_then(|rest| rest.strip_prefix('.'))
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|n| *n > 0)
        {
            n
        } else {
            continue;
        };
        files.push((rank, entry.path()));
    }
    files.sort_by_key(|(rank, _)| *rank);
    Ok(files)
}

/// `true` if `line` starts a logged event: an RFC 3339 time, then a level.
fn event_level(line: &str) -> Option<LogLevel> {
    let mut words = line.split_whitespace();
    let time = words.next()?;
    let looks_like_time = time.len() >= 19
        && time.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && time.as_bytes().get(4) == Some(&b'-')
        && time.as_bytes().get(10) == Some(&b'T');
    if !looks_like_time {
        return None;
    }
    LogLevel::from_label(words.next()?)
}

/// The events in `text`, oldest first: each starts at a line that reads as
/// an event, and takes the lines that follow it until the next one.
fn events(text: &str) -> Vec<LogLine> {
    let mut events: Vec<LogLine> = Vec::new();
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        match event_level(line) {
            Some(level) => events.push(LogLine {
                level: Some(level),
                text: line.to_owned(),
            }),
            None => match events.last_mut() {
                Some(last) => {
                    last.text.push('\n');
                    last.text.push_str(line);
                }
                None if line.trim().is_empty() => {}
                None => events.push(LogLine {
                    level: None,
                    text: line.to_owned(),
                }),
            },
        }
    }
    events
}

/// A file's text. The live file may end in a line the writer has not
/// finished: that part is left for the next read, never shown cut.
fn read_file(path: &Path, live: bool) -> io::Result<String> {
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(FILE_READ_MAX_BYTES)
        .read_to_end(&mut bytes)?;
    if live {
        let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        bytes.truncate(complete);
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// What a read asks for, checked.
struct Filter {
    level: Option<LogLevel>,
    /// Lower-cased; `None` matches every line.
    query: Option<String>,
    limit: usize,
}

impl Filter {
    fn new(params: &LogReadParams) -> Result<Self, ApiError> {
        let query = params
            .query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty());
        if let Some(query) = query
            && query.chars().count() > LOG_QUERY_MAX_CHARS
        {
            return Err(ApiError::invalid_input(format!(
                "Search the logs for at most {LOG_QUERY_MAX_CHARS} characters."
            )));
        }
        let limit = params
            .limit
            .unwrap_or(LOG_READ_DEFAULT_LINES)
            .clamp(1, LOG_READ_MAX_LINES);
        Ok(Self {
            level: params.level,
            query: query.map(str::to_lowercase),
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
        })
    }

    fn matches(&self, line: &LogLine) -> bool {
        let level_ok = match (self.level, line.level) {
            (None, _) => true,
            (Some(filter), Some(level)) => level.passes(filter),
            // Text that is not an event shows only when every level does.
            (Some(filter), None) => filter >= LogLevel::Debug,
        };
        level_ok
            && self
                .query
                .as_ref()
                .is_none_or(|q| line.text.to_lowercase().contains(q.as_str()))
    }
}

/// A line shortened to what the viewer shows.
fn capped(mut line: LogLine) -> LogLine {
    if let Some((cut, _)) = line.text.char_indices().nth(LOG_LINE_MAX_CHARS) {
        line.text.truncate(cut);
        line.text.push('…');
    }
    line
}

/// The newest matching events in `dir`, oldest first; older files are
/// read only while the newer ones have not filled the limit.
pub(crate) fn read_logs(dir: &Path, params: &LogReadParams) -> Result<LogRead, ApiError> {
    let filter = Filter::new(params)?;
    let unreadable = |error: io::Error| {
        ApiError::general("Could not read the log files.")
            .with_details(format!("{}: {error}", dir.display()))
    };
    let mut newest_first = Vec::new();
    let mut truncated = false;
    'files: for (rank, path) in log_files(dir).map_err(unreadable)? {
        let text = match read_file(&path, rank == 0) {
            Ok(text) => text,
            // Rotated away between listing and reading: nothing lost to show.
            Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
            Err(error) => return Err(unreadable(error)),
        };
        for line in events(&text).into_iter().rev() {
            if !filter.matches(&line) {
                continue;
            }
            if newest_first.len() == filter.limit {
                truncated = true;
                break 'files;
            }
            newest_first.push(capped(line));
        }
    }
    newest_first.reverse();
    Ok(LogRead {
        lines: newest_first,
        truncated,
        dir: dir.display().to_string(),
    })
}

impl Host {
    /// The newest log lines, newest last, across the rotated files.
    pub async fn log_read(&self, params: LogReadParams) -> Result<LogRead, ApiError> {
        let dir = self.data_root().logs_dir();
        tokio::task::spawn_blocking(move || read_logs(&dir, &params))
            .await
            .map_err(|e| {
                ApiError::general("Could not read the log files.").with_details(e.to_string())
            })?
    }

    /// Shows the log folder in the system's file manager.
    pub async fn log_open_folder(&self, _params: LogOpenFolderParams) -> Result<(), ApiError> {
        let dir = self.data_root().logs_dir();
        if !dir.is_dir() {
            return Err(ApiError::not_found(
                "There is no log folder yet: nothing has been logged to a file.",
            ));
        }
        self.inner.desktop.open_file(dir).await
    }
}

#[cfg(test)]
mod tests;
