//! Grants: host folders mounted at `/local/<id>/`, their ids, paths and
//! overlap rules, and what is mounted right now.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use unicode_normalization::UnicodeNormalization as _;

use crate::error::Result;

/// The longest grant id.
pub const GRANT_ID_MAX_CHARS: usize = 48;
/// The longest canonical host path a grant may have.
pub const GRANT_PATH_MAX_CHARS: usize = 4_096;

/// What a grant lets the tools do. Read-only unless the person chose otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    #[default]
    ReadOnly,
    ReadWrite,
}

impl Access {
    /// The words shown to the model and the person.
    pub fn label(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::ReadWrite => "read-write",
        }
    }
}

/// A host folder mounted at `/local/<id>/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub id: String,
    /// Canonical (see [`canonical_grant_path`]).
    pub path: PathBuf,
    pub access: Access,
}

/// What is mounted right now; read on every filesystem operation, so a
/// removed or downgraded grant stops working on the next call.
#[derive(Debug, Clone, Default)]
pub struct Mounts {
    pub grants: Vec<Grant>,
    /// `Some(dir)` while memory is on.
    pub memories: Option<PathBuf>,
}

/// Where [`crate::CompositeFs`] reads the current [`Mounts`] from.
#[async_trait::async_trait]
pub trait MountSource: Send + Sync + std::fmt::Debug {
    async fn mounts(&self) -> Result<Mounts>;
}

/// Fixed mounts, for tests and for callers that rebuild the view per turn.
#[async_trait::async_trait]
impl MountSource for Mounts {
    async fn mounts(&self) -> Result<Mounts> {
        Ok(self.clone())
    }
}

/// Why a grant cannot be added or changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrantError {
    /// The id or path itself is unusable (`INVALID_INPUT`).
    #[error("{0}")]
    Invalid(String),
    /// A redundant or misleading overlap with another grant (`CONFLICT`).
    #[error("{0}")]
    Conflict(String),
    /// The folder overlaps the app's data folder; allowed only with an
    /// explicit acknowledgement (`CONFLICT`, the UI offers "grant anyway").
    #[error("{0}")]
    OverlapsDataRoot(String),
}

/// Checks an id: a slug of `[a-z0-9-]`, 1 to 48 characters, not starting or
/// ending with `-`.
pub fn validate_grant_id(id: &str) -> Result<(), GrantError> {
    let invalid = |why: &str| {
        Err(GrantError::Invalid(format!(
            "The folder name {id:?} {why}."
        )))
    };
    if id.is_empty() {
        return invalid("is empty; use lowercase letters, digits and dashes");
    }
    if id.chars().count() > GRANT_ID_MAX_CHARS {
        return invalid("is longer than 48 characters");
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return invalid("may only use lowercase letters, digits and dashes");
    }
    if id.starts_with('-') || id.ends_with('-') {
        return invalid("may not start or end with a dash");
    }
    Ok(())
}

/// A slug id derived from the folder name, unique among `taken`
/// (`notes`, then `notes-2`, ...).
pub fn suggest_grant_id(path: &Path, taken: &[&str]) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut slug = String::new();
    // NFKD splits accents off their letters, so "Café" becomes "cafe".
    for c in name.nfkd() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if c.is_ascii() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let mut base: String = slug
        .trim_matches('-')
        .chars()
        .take(GRANT_ID_MAX_CHARS)
        .collect();
    base = base.trim_end_matches('-').to_owned();
    if base.is_empty() {
        base = "folder".to_owned();
    }
    if !taken.contains(&base.as_str()) {
        return base;
    }
    for n in 2_u32.. {
        let suffix = format!("-{n}");
        let keep = GRANT_ID_MAX_CHARS.saturating_sub(suffix.len());
        let head: String = base.chars().take(keep).collect();
        let candidate = format!("{}{suffix}", head.trim_end_matches('-'));
        if !taken.contains(&candidate.as_str()) {
            return candidate;
        }
    }
    base
}

/// Canonicalizes a host folder for a new grant: absolute, existing, a
/// directory, at most 4,096 characters. Blocking; call it off the runtime.
pub fn canonical_grant_path(path: &Path) -> Result<PathBuf, GrantError> {
    let shown = path.display();
    if !path.is_absolute() {
        return Err(GrantError::Invalid(format!(
            "{shown} is not an absolute path; choose the folder again."
        )));
    }
    if path.as_os_str().len() > GRANT_PATH_MAX_CHARS {
        return Err(GrantError::Invalid(
            "The folder path is longer than 4,096 characters; choose a folder with a shorter path."
                .to_owned(),
        ));
    }
    let canonical = std::fs::canonicalize(path).map_err(|e| {
        GrantError::Invalid(format!(
            "{shown} cannot be opened ({e}); check that the folder exists."
        ))
    })?;
    if !canonical.is_dir() {
        return Err(GrantError::Invalid(format!(
            "{shown} is not a folder; choose a folder to grant."
        )));
    }
    if canonical.as_os_str().len() > GRANT_PATH_MAX_CHARS {
        return Err(GrantError::Invalid(
            "The folder's real path is longer than 4,096 characters; choose a folder with a shorter path."
                .to_owned(),
        ));
    }
    Ok(canonical)
}

/// The overlap rules. Grants are additive: a read-only folder may contain a
/// writable one; the same access twice is redundant and a read-only folder
/// inside a writable one would be misleading (it would still be writable
/// through the outer grant). A folder overlapping `data_root` (either way)
/// needs `acknowledge_data_root`. `existing` excludes the grant being updated.
pub fn check_grant(
    existing: &[Grant],
    candidate: &Grant,
    data_root: &Path,
    acknowledge_data_root: bool,
) -> Result<(), GrantError> {
    validate_grant_id(&candidate.id)?;
    let path = &candidate.path;
    if !path.is_absolute() {
        return Err(GrantError::Invalid(format!(
            "{} is not an absolute path; choose the folder again.",
            path.display()
        )));
    }
    if path.as_os_str().len() > GRANT_PATH_MAX_CHARS {
        return Err(GrantError::Invalid(
            "The folder path is longer than 4,096 characters; choose a folder with a shorter path."
                .to_owned(),
        ));
    }
    for other in existing {
        if other.id == candidate.id {
            return Err(GrantError::Conflict(format!(
                "Another folder is already granted as /local/{}/; choose a different name.",
                other.id
            )));
        }
        let shown = other.path.display();
        if other.path == *path {
            return Err(GrantError::Conflict(format!(
                "{shown} is already granted as /local/{}/ ({}); change that grant instead.",
                other.id,
                other.access.label()
            )));
        }
        let inside = path.starts_with(&other.path);
        let contains = other.path.starts_with(path);
        if !inside && !contains {
            continue;
        }
        let (outer, inner) = if inside {
            (other.access, candidate.access)
        } else {
            (candidate.access, other.access)
        };
        let relation = if inside {
            format!("is inside {shown}, already granted as /local/{}/", other.id)
        } else {
            format!("contains {shown}, already granted as /local/{}/", other.id)
        };
        match (outer, inner) {
            (Access::ReadOnly, Access::ReadWrite) => {}
            (Access::ReadWrite, Access::ReadOnly) => {
                return Err(GrantError::Conflict(format!(
                    "This folder {relation}; a read-only folder inside a read-write one would \
                     still be writable through the outer grant. Make the outer grant read-only \
                     first, or grant this one read-write."
                )));
            }
            (same, _) => {
                return Err(GrantError::Conflict(format!(
                    "This folder {relation} with the same access ({}); the grant would be \
                     redundant. Remove one of them first.",
                    same.label()
                )));
            }
        }
    }
    let root = std::fs::canonicalize(data_root).unwrap_or_else(|_| data_root.to_owned());
    if !acknowledge_data_root && (path.starts_with(&root) || root.starts_with(path)) {
        return Err(GrantError::OverlapsDataRoot(format!(
            "{} overlaps the app's own data folder ({}); granting it lets the model read{} the \
             app's data. Grant it anyway only if you mean to.",
            path.display(),
            root.display(),
            if candidate.access == Access::ReadWrite {
                " and change"
            } else {
                ""
            }
        )));
    }
    Ok(())
}

/// The transient line for each model call mapping host paths to virtual ones;
/// `None` when nothing is granted.
pub fn grants_line(grants: &[Grant]) -> Option<String> {
    if grants.is_empty() {
        return None;
    }
    let mut line = "Granted folders: ".to_owned();
    for (i, grant) in grants.iter().enumerate() {
        if i > 0 {
            line.push_str("; ");
        }
        let _ = write!(
            line,
            "{} → /local/{}/ ({})",
            grant.path.display(),
            grant.id,
            grant.access.label()
        );
    }
    line.push('.');
    Some(line)
}

/// The memory addendum for the system prompt, used only while memory is on.
pub const MEMORY_PROMPT: &str = "\
## Memory

You have a memory folder at /memories/ that persists across threads. At the start of a task, \
check it (ls /memories/) and read the files that look relevant. Keep what is worth remembering \
in concise topic files such as /memories/<topic>.md: update an existing file with edit_file \
rather than creating near-duplicates, and keep entries short and current. Never store secrets \
(passwords, API keys, tokens, private keys) or anything the person asked you not to remember.";

#[cfg(test)]
#[path = "grant_tests.rs"]
mod tests;
