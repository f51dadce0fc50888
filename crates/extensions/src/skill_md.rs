//! `SKILL.md`: YAML front matter between `---` lines, then the Markdown body
//! that becomes the subagent's system prompt.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::tool_ref::ToolRef;

/// Longest skill name, in characters.
pub const NAME_MAX_CHARS: usize = 64;
/// Longest description, in characters: the only text the orchestrator sees.
pub const DESCRIPTION_MAX_CHARS: usize = 1_024;
/// Longest `metadata.display-name`, in characters.
pub const DISPLAY_NAME_MAX_CHARS: usize = 128;

/// The front matter keys this crate reads; every other key is kept in
/// [`SkillManifest::extra`] and ignored.
const KNOWN_KEYS: &[&str] = &[
    "name",
    "description",
    "metadata",
    "tools",
    "mcp",
    "interruptOn",
];

#[allow(clippy::expect_used)] // a constant pattern, proven by the tests
static NAME_PATTERN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("^[a-z0-9]+(-[a-z0-9]+)*$").expect("valid pattern"));

/// A decision a person may take on a gated tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Approve,
    Edit,
    Reject,
    Respond,
}

impl Decision {
    pub const ALL: [Self; 4] = [Self::Approve, Self::Edit, Self::Reject, Self::Respond];

    fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.as_str() == text)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Edit => "edit",
            Self::Reject => "reject",
            Self::Respond => "respond",
        }
    }
}

/// One `interruptOn` entry: calls of `tool` inside the skill's subagent
/// wait for one of `allowed_decisions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterruptRule {
    pub tool: ToolRef,
    pub allowed_decisions: Vec<Decision>,
}

/// A parsed, validated `SKILL.md`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillManifest {
    pub name: String,
    pub description: String,
    /// `metadata.display-name`, when given.
    pub display_name: Option<String>,
    /// `tools` (or its alias `mcp`), in the order written, without repeats.
    pub tools: Vec<ToolRef>,
    /// `interruptOn`, by ref; entries set to `false` are left out.
    pub interrupt_on: Vec<InterruptRule>,
    /// The whole `metadata` mapping, `display-name` included.
    pub metadata: Map<String, Value>,
    /// Front matter keys this crate does not read, kept as written.
    pub extra: Map<String, Value>,
    /// The Markdown after the front matter: the subagent's system prompt.
    pub body: String,
}

impl SkillManifest {
    /// The name to show: the display name, or the name.
    pub fn shown_name(&self) -> &str {
        self.display_name.as_deref().unwrap_or(&self.name)
    }
}

/// Checks a skill name: `^[a-z0-9]+(-[a-z0-9]+)*$`, at most 64 characters.
pub fn validate_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::invalid("name", "is required"));
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Err(Error::invalid(
            "name",
            format!("has at most {NAME_MAX_CHARS} characters"),
        ));
    }
    if !NAME_PATTERN.is_match(name) {
        return Err(Error::invalid(
            "name",
            format!(
                "{name:?} must be lower-case letters and digits in words joined by single hyphens, like pdf-report"
            ),
        ));
    }
    Ok(())
}

/// Splits `text` into its front matter and body, or says why it has none.
fn split_front_matter(text: &str) -> Result<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let missing = || {
        Error::invalid(
            "front matter",
            "SKILL.md must start with YAML front matter between two --- lines",
        )
    };
    let first_end = text.find('\n').ok_or_else(missing)?;
    if text[..first_end].trim_end() != "---" {
        return Err(missing());
    }
    let yaml_start = first_end + 1;
    let mut offset = yaml_start;
    for line in text[yaml_start..].split_inclusive('\n') {
        let bare = line.trim_end();
        if bare == "---" || bare == "..." {
            return Ok((&text[yaml_start..offset], &text[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(Error::invalid("front matter", "has no closing --- line"))
}

fn string_field(map: &Map<String, Value>, field: &str) -> Result<Option<String>> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Error::invalid(field, "must be text")),
    }
}

fn parse_front_matter(yaml: &str) -> Result<Map<String, Value>> {
    let parsed: Value =
        serde_saphyr::from_str_with_options(yaml, serde_saphyr::options! { with_snippet: false })
            .map_err(|e| Error::invalid("front matter", format!("malformed YAML: {e}")))?;
    let Value::Object(front) = parsed else {
        return Err(Error::invalid(
            "front matter",
            "must be a YAML mapping of keys such as name and description",
        ));
    };
    Ok(front)
}

fn front_name(front: &Map<String, Value>) -> Result<String> {
    let name = string_field(front, "name")?
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    validate_name(&name)?;
    Ok(name)
}

/// The valid name a `SKILL.md` gives itself, for one with no folder yet
/// (a ZIP with `SKILL.md` at its root).
pub(crate) fn declared_name(text: &str) -> Result<String> {
    let (yaml, _) = split_front_matter(text)?;
    front_name(&parse_front_matter(yaml)?)
}

/// Parses a `SKILL.md` that lives in (or is saved to) the folder `folder`.
pub fn parse_skill_md(text: &str, folder: &str) -> Result<SkillManifest> {
    let (yaml, body) = split_front_matter(text)?;
    let mut front = parse_front_matter(yaml)?;
    let name = front_name(&front)?;
    if name != folder {
        return Err(Error::invalid(
            "name",
            format!("{name} must equal its folder's name, {folder}"),
        ));
    }

    let description = string_field(&front, "description")?
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    if description.is_empty() {
        return Err(Error::invalid(
            "description",
            "is required: say when to pick this skill and what it returns",
        ));
    }
    let len = description.chars().count();
    if len > DESCRIPTION_MAX_CHARS {
        return Err(Error::invalid(
            "description",
            format!("has {len} characters; at most {DESCRIPTION_MAX_CHARS}"),
        ));
    }

    let metadata = match front.remove("metadata") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(Error::invalid("metadata", "must be a mapping")),
    };
    let display_name = match metadata.get("display-name") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => {
            let s = s.trim();
            if s.chars().count() > DISPLAY_NAME_MAX_CHARS {
                return Err(Error::invalid(
                    "metadata.display-name",
                    format!("has at most {DISPLAY_NAME_MAX_CHARS} characters"),
                ));
            }
            Some(s.to_owned())
        }
        Some(_) => return Err(Error::invalid("metadata.display-name", "must be text")),
    };

    let mut tools = Vec::new();
    for key in ["tools", "mcp"] {
        for tool in parse_tool_list(key, front.get(key))? {
            if !tools.contains(&tool) {
                tools.push(tool);
            }
        }
    }
    let interrupt_on = parse_interrupt_on(front.get("interruptOn"))?;

    let body = body.trim().to_owned();
    if body.is_empty() {
        return Err(Error::invalid(
            "body",
            "is empty: write the skill's instructions after the front matter",
        ));
    }

    front.retain(|key, _| !KNOWN_KEYS.contains(&key.as_str()));
    Ok(SkillManifest {
        name,
        description,
        display_name,
        tools,
        interrupt_on,
        metadata,
        extra: front,
        body,
    })
}

/// `tools` as a YAML list or a comma string; an error names `tools[i]`.
fn parse_tool_list(key: &str, value: Option<&Value>) -> Result<Vec<ToolRef>> {
    let items: Vec<Value> = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items.clone(),
        Some(Value::String(s)) => s
            .split(',')
            .map(|s| Value::String(s.trim().to_owned()))
            .filter(|v| v.as_str() != Some(""))
            .collect(),
        Some(_) => {
            return Err(Error::invalid(
                key,
                "must be a list of tool refs or a comma-separated string",
            ));
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let field = format!("{key}[{i}]");
            let Value::String(text) = item else {
                return Err(Error::invalid(field, "must be a tool ref as text"));
            };
            ToolRef::parse(text).map_err(|message| Error::invalid(field, message))
        })
        .collect()
}

/// `interruptOn: {ref: true | {allowedDecisions: [...]}}`.
fn parse_interrupt_on(value: Option<&Value>) -> Result<Vec<InterruptRule>> {
    let map = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(Error::invalid(
                "interruptOn",
                "must map tool refs to true or {allowedDecisions: [...]}",
            ));
        }
    };
    let mut rules = Vec::new();
    for (key, setting) in map {
        let field = format!("interruptOn.{key}");
        let tool = ToolRef::parse(key).map_err(|m| Error::invalid(field.clone(), m))?;
        let allowed_decisions = match setting {
            Value::Bool(false) => continue,
            Value::Bool(true) => Decision::ALL.to_vec(),
            Value::Object(options) => parse_decisions(&field, options)?,
            _ => {
                return Err(Error::invalid(
                    field,
                    "must be true, false or {allowedDecisions: [...]}",
                ));
            }
        };
        rules.push(InterruptRule {
            tool,
            allowed_decisions,
        });
    }
    Ok(rules)
}

fn parse_decisions(field: &str, options: &Map<String, Value>) -> Result<Vec<Decision>> {
    let field = format!("{field}.allowedDecisions");
    let Some(Value::Array(items)) = options.get("allowedDecisions") else {
        return Err(Error::invalid(
            field,
            "must list some of approve, edit, reject, respond",
        ));
    };
    let mut decisions = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let decision = item.as_str().and_then(Decision::parse).ok_or_else(|| {
            Error::invalid(
                format!("{field}[{i}]"),
                "must be approve, edit, reject or respond",
            )
        })?;
        if !decisions.contains(&decision) {
            decisions.push(decision);
        }
    }
    if decisions.is_empty() {
        return Err(Error::invalid(
            field,
            "must list some of approve, edit, reject, respond",
        ));
    }
    Ok(decisions)
}
