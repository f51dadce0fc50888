//! The last lines a stdio server wrote to stderr.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

/// How many stderr lines are kept per server.
pub const STDERR_TAIL_LINES: usize = 50;
/// Longest kept line, in characters (a server printing a huge blob must
/// not grow the app).
const LINE_MAX_CHARS: usize = 2_000;

/// A bounded ring of lines, shared by the reader task and the listing.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tail {
    lines: Arc<Mutex<VecDeque<String>>>,
}

impl Tail {
    pub(crate) fn push(&self, line: &str) {
        let line: String = line.trim_end().chars().take(LINE_MAX_CHARS).collect();
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == STDERR_TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    pub(crate) fn lines(&self) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        lines.iter().cloned().collect()
    }

    /// The last line, for a sentence on why a process exited.
    pub(crate) fn last(&self) -> Option<String> {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        lines.iter().rev().find(|l| !l.trim().is_empty()).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_fifty_lines() {
        let tail = Tail::default();
        for n in 0..60 {
            tail.push(&format!("line {n}\n"));
        }
        let lines = tail.lines();
        assert_eq!(lines.len(), STDERR_TAIL_LINES);
        assert_eq!(lines[0], "line 10");
        assert_eq!(tail.last().as_deref(), Some("line 59"));
    }
}
