//! Skills: the catalog the Skills page shows (built-in, plugin and the
//! person's own), one skill's bundle for the editor, and the commands that
//! change them. Bad input is `INVALID_INPUT` whose message starts with the
//! field or file it is about, and nothing is written.

use serde::{Deserialize, Serialize};

/// Largest sibling file whose text `skill_get` includes, in bytes.
pub const SKILL_FILE_TEXT_MAX_BYTES: u64 = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillSourceKind {
    Builtin,
    Plugin,
    User,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillReadinessState {
    Ready,
    Loading,
    Unavailable,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillReadiness {
    pub state: SkillReadinessState,
    #[serde(default)]
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillView {
    pub name: String,
    pub display_name: String,
    pub description: String,
    pub source: SkillSourceKind,
    pub overridden: bool,
    pub enabled: bool,
    pub readiness: SkillReadiness,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillListParams {}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillList {
    pub skills: Vec<SkillView>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillNameParams {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFileView {
    pub path: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillDetail {
    pub skill: SkillView,
    pub skill_md: String,
    /// `SKILL.md` read into the editor's fields; `None` when it does not
    /// parse (the editor then shows the text and the error from `readiness`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<SkillFields>,
    pub files: Vec<SkillFileView>,
}

/// What the editor edits, read from `SKILL.md`. The editor writes the file
/// back from these (`display_name` empty = none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFields {
    pub display_name: String,
    pub description: String,
    /// Tool refs as written (`read_file`, `mcp:server:*`).
    pub tools: Vec<String>,
    /// Tools that ask before running inside the skill, with the decisions allowed.
    pub interrupt_on: Vec<SkillInterrupt>,
    /// The Markdown body: the subagent's instructions.
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillInterrupt {
    pub tool: String,
    pub allowed: Vec<crate::DecisionKind>,
}

/// Asks for a ZIP to import in the native open dialog.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillImportChooseParams {}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillFileText {
    pub path: String,
    pub text: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillSaveParams {
    pub name: String,
    pub skill_md: String,
    #[serde(default)]
    pub files: Option<Vec<SkillFileText>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillSetEnabledParams {
    pub name: String,
    pub enabled: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillImportParams {
    pub path: String,
}
