//! `tools.readFile` inside a program: raw lines, paged by line like
//! `read_file`, from a snapshot of the file read once per program. Paging a
//! 50 MB file through `read_file` itself would read the whole file and
//! count its lines again for every page.

use std::sync::{Arc, Mutex, PoisonError};

/// The most one `tools.readFile` page may hold. A program's page never
/// enters the conversation, so it can be far larger than `read_file`'s.
pub const PAGE_MAX_BYTES: usize = 1024 * 1024;

/// One file's content and where each of its lines starts.
#[derive(Debug)]
pub(super) struct PagedFile {
    text: String,
    /// Byte offset of every line's start; a final newline starts no line
    /// (as `str::lines` counts them).
    starts: Vec<usize>,
}

impl PagedFile {
    pub(super) fn new(text: String) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 64 + 1);
        if !text.is_empty() {
            starts.push(0);
        }
        starts.extend(
            text.match_indices('\n')
                .map(|(at, _)| at + 1)
                .filter(|&next| next < text.len()),
        );
        Self { text, starts }
    }

    pub(super) fn lines(&self) -> usize {
        self.starts.len()
    }

    /// Byte offset where line `index` starts (the end for `index == lines`).
    fn start(&self, index: usize) -> usize {
        self.starts.get(index).copied().unwrap_or(self.text.len())
    }

    /// Lines `offset..offset + limit` as they are in the file; '' past the
    /// end. A page over `cap` bytes is refused with the limit that fits.
    pub(super) fn page(
        &self,
        path: &str,
        offset: usize,
        limit: usize,
        cap: usize,
    ) -> Result<&str, String> {
        let total = self.lines();
        if offset >= total {
            return Ok("");
        }
        let end = offset.saturating_add(limit).min(total);
        let (from, to) = (self.start(offset), self.start(end));
        if to - from <= cap {
            return Ok(&self.text[from..to]);
        }
        // Lines whose start is within the cap; the last of them ends past
        // it (the whole page does not fit), so one fewer fits whole.
        let fits = self.starts[offset..end]
            .partition_point(|&start| start - from <= cap)
            .saturating_sub(1);
        if fits == 0 {
            return Err(format!(
                "readFile: line {} of {path} alone is over {} bytes, more than a page may hold; \
                 search it with tools.grep instead",
                offset + 1,
                cap
            ));
        }
        Err(format!(
            "readFile: lines {offset}..{end} of {path} are {} bytes, over the {cap} bytes a page \
             may hold; read from offset {offset} with a limit of {fits} (or less), then continue \
             from offset {}",
            to - from,
            offset + fits
        ))
    }
}

/// The files one program has read, newest first; a few at most, so paging
/// through several files in turn does not reread them.
#[derive(Debug, Default)]
pub(super) struct PageCache {
    files: Mutex<Vec<(String, Arc<PagedFile>)>>,
}

/// Files kept per program.
const CACHED_FILES: usize = 2;

impl PageCache {
    pub(super) fn get(&self, path: &str) -> Option<Arc<PagedFile>> {
        let files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        files
            .iter()
            .find(|(cached, _)| cached == path)
            .map(|(_, file)| Arc::clone(file))
    }

    pub(super) fn put(&self, path: &str, file: Arc<PagedFile>) {
        let mut files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        files.retain(|(cached, _)| cached != path);
        files.insert(0, (path.to_owned(), file));
        files.truncate(CACHED_FILES);
    }

    /// The program changed `path`: later pages read it again.
    pub(super) fn forget(&self, path: &str) {
        let mut files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        files.retain(|(cached, _)| cached != path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_as_str_lines_counts_them() {
        for text in ["", "a", "a\n", "a\nb", "a\r\nb\r\n", "\n\n"] {
            assert_eq!(
                PagedFile::new(text.to_owned()).lines(),
                text.lines().count(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn pages_are_raw_and_end_empty() {
        let file = PagedFile::new("one\r\ntwo\nthree".to_owned());
        assert_eq!(file.page("/f", 0, 2, 100), Ok("one\r\ntwo\n"));
        assert_eq!(file.page("/f", 2, 2, 100), Ok("three"));
        assert_eq!(file.page("/f", 3, 2, 100), Ok(""));
    }

    #[test]
    fn an_over_cap_page_names_a_limit_that_fits() {
        let file = PagedFile::new("aaaa\n".repeat(10));
        // 5 bytes a line: 12 bytes hold 2 lines.
        let refused = file.page("/f", 3, 5, 12).unwrap_err();
        assert!(
            refused.contains("from offset 3 with a limit of 2"),
            "{refused}"
        );
        assert!(refused.contains("continue from offset 5"), "{refused}");
        assert_eq!(file.page("/f", 3, 2, 12), Ok("aaaa\naaaa\n"));
        let long = PagedFile::new(format!("{}\nb\n", "x".repeat(50)));
        assert!(
            long.page("/f", 0, 2, 12)
                .unwrap_err()
                .contains("line 1 of /f alone")
        );
    }
}
