//! Folder grants: host folders the agent may use under `/local/<id>/`.

use serde::{Deserialize, Serialize};

/// Longest grant id, in characters (a slug: `a-z`, `0-9`, `-`).
pub const GRANT_ID_MAX: usize = 48;
/// Longest granted path, in characters.
pub const GRANT_PATH_MAX: usize = 4_096;

/// What the agent may do in a granted folder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantAccess {
    #[default]
    ReadOnly,
    /// Create and change files too; each change still needs the user's approval.
    ReadWrite,
}

/// One granted folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantView {
    /// The folder's name under `/local/`.
    pub id: String,
    /// The canonical host path.
    pub path: String,
    pub access: GrantAccess,
    pub created_at: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantListParams {}

/// Every grant, by id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantList {
    pub grants: Vec<GrantView>,
}

/// Grants a folder. A folder overlapping the app's data folder is refused
/// with `CONFLICT` and reason `overlaps_data_root` until
/// `acknowledge_data_root` is set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantAddParams {
    pub path: String,
    /// Read-only when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<GrantAccess>,
    /// Suggested from the folder's name when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default)]
    pub acknowledge_data_root: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantUpdateParams {
    pub id: String,
    pub access: GrantAccess,
    #[serde(default)]
    pub acknowledge_data_root: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantRemoveParams {
    pub id: String,
}
