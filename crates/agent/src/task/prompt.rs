//! What the models read about delegation: the `task` tool's description and
//! schema, the orchestrator's relay paragraph, and the skills it cannot use.

use std::fmt::Write as _;
use std::sync::Arc;

use pizza_llm::ToolSpec;
use serde_json::json;

use super::{Subagent, UnavailableSkill};

/// The one delegation tool's name.
pub const TASK_TOOL: &str = "task";

/// How to route, in the schema the model fills in: pass the person's ask on,
/// do not write a brief around it (the skill owns its procedure and output).
const TASK_USAGE: &str = "Hand the user's request to a skill, which works on it in isolation \
and returns its report. Pick the skill whose description matches the request. In `ask`, pass \
the user's request in their own words with only the details they gave: do not write a brief, \
add steps, or say how to format the result; the skill already knows its procedure and what it \
returns. One call per distinct request; independent requests may be sent in parallel.";

/// The orchestrator's paragraph for the return half, which no tool
/// description can reach: relay the report, do not re-summarize it.
const RELAY: &str = "Some requests are best handled by a skill through the task tool. When a \
task returns, give the user the skill's report itself, with its specifics (names, numbers, \
identifiers, dates) intact: do not re-summarize or shorten it. Add a sentence of your own only \
when the report leaves something the user asked unanswered.";

/// The `task` tool over these skills.
pub fn task_spec(subagents: &[Arc<Subagent>]) -> ToolSpec {
    let mut description = TASK_USAGE.to_owned();
    description.push_str("\n\nSkills:");
    for skill in subagents {
        let _ = write!(
            description,
            "\n- {}: {}",
            skill.name,
            skill.description.trim()
        );
    }
    let names: Vec<&str> = subagents.iter().map(|s| s.name.as_str()).collect();
    ToolSpec {
        name: TASK_TOOL.to_owned(),
        description,
        input_schema: json!({
            "type": "object",
            "properties": {
                "skill": {
                    "type": "string",
                    "enum": names,
                    "description": "The skill to hand the request to."
                },
                "ask": {
                    "type": "string",
                    "description": "The user's request, in their words."
                }
            },
            "required": ["skill", "ask"],
            "additionalProperties": false
        }),
    }
}

/// The orchestrator prompt's delegation paragraph; none without skills.
pub(crate) fn delegation_prompt(subagents: &[Arc<Subagent>]) -> Option<&'static str> {
    (!subagents.is_empty()).then_some(RELAY)
}

/// The skills that cannot be used now, with why, so the model can tell the
/// person instead of guessing; none when every skill is usable.
pub(crate) fn unavailable_prompt(skills: &[UnavailableSkill]) -> Option<String> {
    if skills.is_empty() {
        return None;
    }
    let mut text = "These skills are installed but cannot be used now; if the user asks for one, \
say why:"
        .to_owned();
    for skill in skills {
        let _ = write!(text, "\n- {}: {}", skill.name, skill.reasons.join("; "));
    }
    Some(text)
}
