//! The editor's tools picker: each built-in tool as a checkbox with whether
//! it runs at once or asks first (`interruptOn`). Refs the picker has no
//! checkbox for (MCP tools) are kept as written and listed.

use super::skill_md::BUILTIN_TOOLS;
use leptos::prelude::*;
use pizza_protocol::{DecisionKind, SkillInterrupt};

/// The tools a skill declares and which of them ask first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolPicks {
    pub(crate) tools: RwSignal<Vec<String>>,
    pub(crate) asks: RwSignal<Vec<SkillInterrupt>>,
}

impl ToolPicks {
    pub(crate) fn new(tools: Vec<String>, asks: Vec<SkillInterrupt>) -> Self {
        Self {
            tools: RwSignal::new(tools),
            asks: RwSignal::new(asks),
        }
    }

    fn uses(self, tool: &str) -> bool {
        self.tools.with(|t| t.iter().any(|x| x == tool))
    }

    fn asks_first(self, tool: &str) -> bool {
        self.asks.with(|a| a.iter().any(|x| x.tool == tool))
    }

    fn set_used(self, tool: &str, used: bool) {
        self.tools.update(|tools| {
            tools.retain(|t| t != tool);
            if used {
                tools.push(tool.to_owned());
            }
        });
        if !used {
            self.set_asks_first(tool, false);
        }
    }

    fn set_asks_first(self, tool: &str, asks: bool) {
        self.asks.update(|list| {
            if !asks {
                list.retain(|a| a.tool != tool);
            } else if !list.iter().any(|a| a.tool == tool) {
                list.push(SkillInterrupt {
                    tool: tool.to_owned(),
                    allowed: DecisionKind::ALL.to_vec(),
                });
            }
        });
    }
}

/// What a built-in tool does, in words.
fn tool_label(tool: &str) -> &'static str {
    match tool {
        "ls" => "List a folder",
        "read_file" => "Read files",
        "glob" => "Find files by name",
        "grep" => "Search in files",
        "write_file" => "Write files",
        "edit_file" => "Edit files",
        _ => "Tool",
    }
}

#[component]
pub(crate) fn ToolsPicker(picks: ToolPicks) -> impl IntoView {
    let others = move || {
        picks.tools.with(|tools| {
            tools
                .iter()
                .filter(|t| !BUILTIN_TOOLS.contains(&t.as_str()))
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    view! {
        <fieldset class="field skill-tools" data-testid="skill-tools">
            <legend>"Tools"</legend>
            <p class="hint muted">"What the skill may use. A tool that asks first waits for your approval each time."</p>
            <ul class="skill-tools__list" role="list">
                {BUILTIN_TOOLS.into_iter().map(|tool| view! {
                    <li class="skill-tools__row">
                        <label class="skill-tools__name">
                            <input type="checkbox" data-testid=format!("skill-tool-{tool}")
                                prop:checked=move || picks.uses(tool)
                                on:change=move |ev| picks.set_used(tool, event_target_checked(&ev)) />
                            {tool_label(tool)}
                            <span class="muted mono">{tool}</span>
                        </label>
                        <select class="input skill-tools__approval" data-testid=format!("skill-tool-approval-{tool}")
                            aria-label=format!("When {} runs", tool_label(tool))
                            disabled=move || !picks.uses(tool)
                            on:change=move |ev| picks.set_asks_first(tool, event_target_value(&ev) == "asks")>
                            <option value="runs" prop:selected=move || !picks.asks_first(tool)>"Runs"</option>
                            <option value="asks" prop:selected=move || picks.asks_first(tool)>"Asks first"</option>
                        </select>
                    </li>
                }).collect_view()}
            </ul>
            <Show when=move || !others().is_empty()>
                <p class="hint muted" data-testid="skill-tools-other">
                    "Also: "<span class="mono">{move || others().join(", ")}</span>
                </p>
            </Show>
        </fieldset>
    }
}
