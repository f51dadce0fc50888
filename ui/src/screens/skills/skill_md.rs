//! Writes `SKILL.md` from the editor's fields: YAML front matter, then the
//! body. Every string is written as a JSON string, which YAML reads as a
//! double-quoted scalar, so no text the person types can break the file.

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
    if !display_name.is_empty() {
        out.push_str(&format!(
            "metadata:\n  display-name: {}\n",
            quoted(display_name)
        ));
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
