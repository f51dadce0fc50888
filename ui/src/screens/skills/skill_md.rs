//! Writes `SKILL.md` from the editor's fields: YAML front matter, then the
//! body. Every string is written as a JSON string, which YAML reads as a
//! double-quoted scalar, so no text the person types can break the file.
//! Keys the editor has no field for (`license`, `metadata.author`, …) are
//! carried over from the file as it was, so editing never drops them.

use pizza_protocol::{DecisionKind, SkillInterrupt};

/// The tools a skill can be given today, in the order the picker lists them.
pub(crate) const BUILTIN_TOOLS: [&str; 6] =
    ["ls", "read_file", "glob", "grep", "write_file", "edit_file"];

/// What the editor holds when it writes the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SkillDraft {
    pub(crate) name: String,
    pub(crate) display_name: String,
    pub(crate) description: String,
    /// Tool refs in the order they are written.
    pub(crate) tools: Vec<String>,
    /// Tools that ask first; `allowed` equal to every decision is written `true`.
    pub(crate) interrupt_on: Vec<SkillInterrupt>,
    pub(crate) body: String,
    /// What the file had that the editor does not edit.
    pub(crate) kept: KeptFrontMatter,
}

/// Front matter the editor carries over untouched: whole top-level entries
/// it has no field for, and the `metadata` entries besides `display-name`
/// (re-indented by two spaces).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KeptFrontMatter {
    top: String,
    metadata: String,
}

/// Top-level keys the editor writes itself.
const EDITED_KEYS: [&str; 6] = [
    "name",
    "description",
    "metadata",
    "tools",
    "mcp",
    "interruptOn",
];

/// The front matter's top-level entries, each with its lines (a line at
/// column 0 that is not a list item or comment starts the next entry).
fn entries(lines: &[&str]) -> Vec<(String, Vec<String>)> {
    let mut entries: Vec<(String, Vec<String>)> = Vec::new();
    for line in lines {
        let starts_entry = !line.trim().is_empty() && !line.starts_with([' ', '\t', '-', '#']);
        if starts_entry {
            let key = line.split(':').next().unwrap_or_default();
            let key = key.trim().trim_matches(['"', '\'']).to_owned();
            entries.push((key, vec![(*line).to_owned()]));
        } else if let Some((_, entry)) = entries.last_mut() {
            entry.push((*line).to_owned());
        }
    }
    entries
}

impl KeptFrontMatter {
    /// Reads what to keep from the file as the host sent it.
    pub(crate) fn of(skill_md: &str) -> Self {
        let text = skill_md.strip_prefix('\u{feff}').unwrap_or(skill_md);
        let mut lines = text.lines();
        if lines.next().map(str::trim_end) != Some("---") {
            return Self::default();
        }
        let front: Vec<&str> = lines
            .take_while(|l| !matches!(l.trim_end(), "---" | "..."))
            .collect();
        let mut kept = Self::default();
        for (key, lines) in entries(&front) {
            if key == "metadata" {
                kept.metadata = kept_metadata(&lines);
            } else if !EDITED_KEYS.contains(&key.as_str()) {
                for line in lines {
                    kept.top.push_str(&line);
                    kept.top.push('\n');
                }
            }
        }
        kept
    }
}

/// `metadata`'s block entries other than `display-name`, indented by two.
fn kept_metadata(lines: &[String]) -> String {
    let children: Vec<&str> = lines.iter().skip(1).map(String::as_str).collect();
    let indent = children
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let dedented: Vec<&str> = children
        .iter()
        .map(|l| {
            l.get(indent.min(l.len() - l.trim_start().len())..)
                .unwrap_or_default()
        })
        .collect();
    let mut kept = String::new();
    for (key, entry) in entries(&dedented) {
        if key != "display-name" {
            for line in entry {
                kept.push_str("  ");
                kept.push_str(&line);
                kept.push('\n');
            }
        }
    }
    kept
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| String::from("\"\""))
}

fn decision_name(kind: DecisionKind) -> &'static str {
    match kind {
        DecisionKind::Approve => "approve",
        DecisionKind::Edit => "edit",
        DecisionKind::Reject => "reject",
        DecisionKind::Respond => "respond",
    }
}

fn interrupt_value(allowed: &[DecisionKind]) -> String {
    let every = DecisionKind::ALL.iter().all(|kind| allowed.contains(kind));
    if every || allowed.is_empty() {
        return String::from("true");
    }
    let names: Vec<&str> = allowed.iter().copied().map(decision_name).collect();
    format!("{{allowedDecisions: [{}]}}", names.join(", "))
}

/// The whole `SKILL.md` for `draft`.
pub(crate) fn compose(draft: &SkillDraft) -> String {
    let mut out = String::from("---\n");
    out.push_str(&format!("name: {}\n", quoted(draft.name.trim())));
    out.push_str(&format!(
        "description: {}\n",
        quoted(draft.description.trim())
    ));
    let display_name = draft.display_name.trim();
    if !display_name.is_empty() || !draft.kept.metadata.is_empty() {
        out.push_str("metadata:\n");
        if !display_name.is_empty() {
            out.push_str(&format!("  display-name: {}\n", quoted(display_name)));
        }
        out.push_str(&draft.kept.metadata);
    }
    if !draft.tools.is_empty() {
        let tools: Vec<String> = draft.tools.iter().map(|t| quoted(t)).collect();
        out.push_str(&format!("tools: [{}]\n", tools.join(", ")));
    }
    if !draft.interrupt_on.is_empty() {
        out.push_str("interruptOn:\n");
        for gate in &draft.interrupt_on {
            out.push_str(&format!(
                "  {}: {}\n",
                quoted(&gate.tool),
                interrupt_value(&gate.allowed)
            ));
        }
    }
    out.push_str(&draft.kept.top);
    out.push_str("---\n");
    out.push_str(draft.body.trim_start_matches('\n'));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `INVALID_INPUT` messages start with the field they are about
/// (`description: …`); this finds which of the editor's fields that is.
pub(crate) fn field_of(message: &str) -> Option<&'static str> {
    let (key, _) = message.split_once(':')?;
    let field = match key.trim() {
        "name" => "name",
        "description" => "description",
        "metadata.display-name" | "display-name" | "display_name" => "display-name",
        "body" => "body",
        "tools" | "mcp" | "interruptOn" => "tools",
        _ if key.trim().starts_with("tools") || key.trim().starts_with("interruptOn") => "tools",
        _ => return None,
    };
    Some(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn writes_front_matter_then_body() {
        let draft = SkillDraft {
            name: "trip-planner".into(),
            display_name: "Trip planner".into(),
            description: "Plans trips: say where. Returns \"an itinerary\".".into(),
            tools: vec!["read_file".into(), "write_file".into()],
            interrupt_on: vec![SkillInterrupt {
                tool: "write_file".into(),
                allowed: DecisionKind::ALL.to_vec(),
            }],
            body: "# Plan\n\nBe brief.".into(),
            kept: KeptFrontMatter::default(),
        };
        assert_eq!(
            compose(&draft),
            "---\n\
             name: \"trip-planner\"\n\
             description: \"Plans trips: say where. Returns \\\"an itinerary\\\".\"\n\
             metadata:\n  display-name: \"Trip planner\"\n\
             tools: [\"read_file\", \"write_file\"]\n\
             interruptOn:\n  \"write_file\": true\n\
             ---\n\
             # Plan\n\nBe brief.\n"
        );
    }

    #[test]
    fn leaves_out_what_is_empty_and_keeps_narrowed_decisions() {
        let draft = SkillDraft {
            name: "a".into(),
            description: "multi\nline: # not a comment".into(),
            interrupt_on: vec![SkillInterrupt {
                tool: "mcp:files:*".into(),
                allowed: vec![DecisionKind::Approve, DecisionKind::Reject],
            }],
            body: "\n\nBody\n".into(),
            ..SkillDraft::default()
        };
        assert_eq!(
            compose(&draft),
            "---\nname: \"a\"\ndescription: \"multi\\nline: # not a comment\"\n\
             interruptOn:\n  \"mcp:files:*\": {allowedDecisions: [approve, reject]}\n---\nBody\n"
        );
    }

    #[test]
    fn keys_without_a_field_are_carried_over() {
        let original = "---\nname: trip-planner\nlicense: MIT\nmetadata:\n    author: Ana\n    display-name: Old\n    tags:\n      - travel\ntools: read_file\nallowed-tools:\n- Bash\n# a note\ndescription: >\n  Plans.\n---\nBody\n";
        let draft = SkillDraft {
            name: "trip-planner".into(),
            display_name: "Trip planner".into(),
            description: "Plans.".into(),
            body: "Body".into(),
            kept: KeptFrontMatter::of(original),
            ..SkillDraft::default()
        };
        assert_eq!(
            compose(&draft),
            "---\nname: \"trip-planner\"\ndescription: \"Plans.\"\n\
             metadata:\n  display-name: \"Trip planner\"\n  author: Ana\n  tags:\n    - travel\n\
             license: MIT\nallowed-tools:\n- Bash\n# a note\n---\nBody\n"
        );
        assert_eq!(
            KeptFrontMatter::of("no front matter"),
            KeptFrontMatter::default()
        );
    }

    #[test]
    fn finds_the_field_an_error_names() {
        assert_eq!(
            field_of("description: over 1024 characters"),
            Some("description")
        );
        assert_eq!(field_of("tools: mcp:x is not a tool ref"), Some("tools"));
        assert_eq!(field_of("body: empty"), Some("body"));
        assert_eq!(field_of("something else went wrong"), None);
    }
}
