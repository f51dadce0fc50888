//! Virtual paths: absolute, `/`-separated, no tricks.

use crate::error::{Result, ToolError};

/// The longest path accepted (the store's limit).
const PATH_MAX_CHARS: usize = 1024;

/// Checks a virtual path and returns its canonical spelling: absolute, no
/// trailing slash (except `/` itself). Refuses anything that could mean a
/// different place on another backend: `..`, `.`, empty segments, NUL,
/// backslashes, relative paths.
pub fn normalize_path(path: &str) -> Result<String> {
    let refuse = |reason: &str| {
        Err(ToolError::InvalidPath {
            path: path.to_owned(),
            reason: reason.to_owned(),
        })
    };
    if path.is_empty() {
        return refuse("the path is empty; use an absolute path such as /notes.md");
    }
    if path.chars().count() > PATH_MAX_CHARS {
        return refuse("the path is longer than 1024 characters");
    }
    if path.contains('\0') {
        return refuse("the path contains a NUL character");
    }
    if path.contains('\\') {
        return refuse("backslashes are not allowed; separate folders with /");
    }
    if !path.starts_with('/') {
        return refuse("the path must be absolute and start with / (for example /notes.md)");
    }
    if path == "/" {
        return Ok("/".to_owned());
    }
    let trimmed = path.strip_suffix('/').unwrap_or(path);
    let mut out = String::with_capacity(trimmed.len());
    for segment in trimmed[1..].split('/') {
        match segment {
            "" => return refuse("the path has an empty segment (//)"),
            "." | ".." => return refuse("`.` and `..` segments are not allowed"),
            _ => {
                out.push('/');
                out.push_str(segment);
            }
        }
    }
    Ok(out)
}

/// True if `path` is `dir` or below it (`dir` normalized).
pub(crate) fn is_under(path: &str, dir: &str) -> bool {
    dir == "/" || path == dir || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_and_canonicalizes_absolute_paths() {
        assert_eq!(normalize_path("/").unwrap(), "/");
        assert_eq!(normalize_path("/a/b.md").unwrap(), "/a/b.md");
        assert_eq!(normalize_path("/a/dir/").unwrap(), "/a/dir");
        assert_eq!(normalize_path("/ünï code.txt").unwrap(), "/ünï code.txt");
    }

    #[test]
    fn refuses_tricks_with_a_reason() {
        for bad in [
            "", "notes.md", "./a", "/a/../b", "/a/./b", "/a//b", "/a\\b", "/a\0b", "..",
        ] {
            let err = normalize_path(bad).unwrap_err();
            assert!(
                matches!(err, ToolError::InvalidPath { .. }),
                "{bad:?}: {err}"
            );
        }
        let err = normalize_path("notes.md").unwrap_err().to_string();
        assert!(err.contains("must be absolute"), "{err}");
    }

    #[test]
    fn under_is_segment_aware() {
        assert!(is_under("/a/b", "/a"));
        assert!(is_under("/a", "/a"));
        assert!(!is_under("/ab", "/a"));
        assert!(is_under("/x", "/"));
    }
}
