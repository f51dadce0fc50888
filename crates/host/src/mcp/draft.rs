//! Make a skill: a user skill drafted from a connected server — every tool
//! of it (`mcp:<id>:*`), a description from its instructions and tools —
//! opened in the editor, saved only when the person saves it.

use pizza_extensions::{DESCRIPTION_MAX_CHARS, NAME_MAX_CHARS};
use pizza_protocol::{ApiError, McpSkillDraft, SkillFields};

use super::McpService;

/// Tools named in the drafted description before "and N more".
const DESCRIBED_TOOLS: usize = 8;

/// A skill name from a server id: lowercase letters, digits and hyphens.
fn base_name(id: &str) -> String {
    let mut name = String::new();
    for c in id.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else if !name.ends_with('-') {
            name.push('-');
        }
    }
    let name: String = name
        .trim_matches('-')
        .chars()
        .take(NAME_MAX_CHARS - 4)
        .collect();
    if name.is_empty() {
        "mcp-tools".to_owned()
    } else {
        name
    }
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

impl McpService {
    pub(crate) fn skill_draft(
        &self,
        id: &str,
        taken: &[String],
    ) -> Result<McpSkillDraft, ApiError> {
        let snapshot = self
            .pool()
            .server(id)
            .ok_or_else(|| ApiError::not_found(format!("There is no MCP server named {id}.")))?;
        if !snapshot.status.is_connected() {
            return Err(ApiError::new(
                pizza_protocol::ErrorCode::DependencyDisabled,
                format!("MCP server {id} is not connected; a skill is drafted from its tools."),
            ));
        }
        let base = base_name(id);
        let mut name = base.clone();
        let mut n = 2;
        while taken.contains(&name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        let tool_names: Vec<&str> = snapshot.tools.iter().map(|t| t.name.as_str()).collect();
        let mut listed = tool_names
            .iter()
            .take(DESCRIBED_TOOLS)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if tool_names.len() > DESCRIBED_TOOLS {
            listed.push_str(&format!(" and {} more", tool_names.len() - DESCRIBED_TOOLS));
        }
        let about = snapshot
            .instructions
            .as_deref()
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .map(|i| format!("{} ", i.lines().next().unwrap_or(i).trim()))
            .unwrap_or_default();
        let description = clip(
            &format!("Uses the MCP server {id}. {about}Tools: {listed}."),
            DESCRIPTION_MAX_CHARS,
        );
        let mut body = format!(
            "You do what you are asked with the tools of the MCP server {id}. \
             Call them as needed, then report what you found or did, briefly.\n\n## Tools\n\n"
        );
        for tool in snapshot.tools.iter() {
            body.push_str(&format!(
                "- `{}`: {}\n",
                tool.name,
                tool.description.lines().next().unwrap_or_default()
            ));
        }
        Ok(McpSkillDraft {
            name,
            fields: SkillFields {
                display_name: format!("{id} tools"),
                description,
                tools: vec![format!("mcp:{id}:*")],
                interrupt_on: Vec::new(),
                body,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_server_id() {
        assert_eq!(base_name("Everything_Server"), "everything-server");
        assert_eq!(base_name("__"), "mcp-tools");
        assert_eq!(clip("abcdef", 4), "abc…");
    }
}
