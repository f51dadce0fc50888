//! Settings › General › Agent: the person's addendum to the agent's
//! instructions, its tool-call limits (per run, and per skill it delegates
//! to), how long an MCP tool call may take, and which tools ask before
//! running (set in Settings › Approvals).
//! Saved with the Save button (or Ctrl+Enter in the persona); a refusal
//! names its field and keeps what was typed.

use crate::app_state::AppState;
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{
    ApprovalListParams, ApprovalPolicy, EVAL_TIMEOUT_MAX_SECS, MAX_TOOL_CALLS_LIMIT,
    MCP_TOOL_TIMEOUT_MAX_SECS, PERSONA_MAX_CHARS, SettingsPatch, ToolApproval, cmd,
};

/// The limit as typed: `-1` or a whole number in range, else why not.
pub(crate) fn parse_limit(text: &str) -> Result<i64, String> {
    match text.trim().parse::<i64>() {
        Ok(-1) => Ok(-1),
        Ok(n) if (1..=MAX_TOOL_CALLS_LIMIT).contains(&n) => Ok(n),
        _ => Err(format!(
            "Enter 1 to {MAX_TOOL_CALLS_LIMIT}, or -1 for no limit."
        )),
    }
}

/// The MCP tool timeout as typed: whole seconds in range, else why not.
pub(crate) fn parse_timeout(text: &str) -> Result<i64, String> {
    match text.trim().parse::<i64>() {
        Ok(n) if (1..=MCP_TOOL_TIMEOUT_MAX_SECS).contains(&n) => Ok(n),
        _ => Err(format!("Enter 1 to {MCP_TOOL_TIMEOUT_MAX_SECS} seconds.")),
    }
}

/// The tools the person set to ask every time, by name.
pub(crate) fn asking_tools(tools: &[ToolApproval]) -> Vec<String> {
    tools
        .iter()
        .filter(|t| t.policy == Some(ApprovalPolicy::Ask))
        .map(|t| t.tool.clone())
        .collect()
}

#[component]
pub(crate) fn AgentSettings() -> impl IntoView {
    let state = expect_context::<AppState>();
    let current = state.settings.get_untracked().agent;
    let persona = RwSignal::new(current.persona);
    let limit = RwSignal::new(current.max_tool_calls.to_string());
    let subagent_limit = RwSignal::new(current.max_subagent_tool_calls.to_string());
    let mcp_timeout = RwSignal::new(current.mcp_tool_timeout_secs.to_string());
    let eval_timeout = RwSignal::new(current.eval_timeout_secs.to_string());
    let asking = RwSignal::new(None::<Vec<String>>);
    leptos::task::spawn_local(async move {
        // Only a pointer to Approvals: if the list cannot be read, the
        // sentence without it still says where to look.
        if let Ok(list) = invoke::<cmd::ApprovalList>(&ApprovalListParams {}).await {
            asking.set(Some(asking_tools(&list.tools)));
        }
    });
    let error = RwSignal::new(None::<String>);
    let saved = RwSignal::new(false);
    // The stored values arrive after the page: take them until the person types.
    let touched = RwSignal::new(false);
    Effect::new(move |_| {
        let agent = state.settings.get().agent;
        if !touched.get_untracked() {
            persona.set(agent.persona);
            limit.set(agent.max_tool_calls.to_string());
            subagent_limit.set(agent.max_subagent_tool_calls.to_string());
            mcp_timeout.set(agent.mcp_tool_timeout_secs.to_string());
            eval_timeout.set(agent.eval_timeout_secs.to_string());
        }
    });
    let save = move || {
        let max_tool_calls = match parse_limit(&limit.get_untracked()) {
            Ok(n) => n,
            Err(message) => {
                error.set(Some(format!("Tool calls per run: {message}")));
                return;
            }
        };
        let max_subagent_tool_calls = match parse_limit(&subagent_limit.get_untracked()) {
            Ok(n) => n,
            Err(message) => {
                error.set(Some(format!("Tool calls per skill: {message}")));
                return;
            }
        };
        let mcp_tool_timeout_secs = match parse_timeout(&mcp_timeout.get_untracked()) {
            Ok(n) => n,
            Err(message) => {
                error.set(Some(format!("MCP tool timeout: {message}")));
                return;
            }
        };
        let eval_timeout_secs = match parse_timeout(&eval_timeout.get_untracked()) {
            Ok(n) => n,
            Err(message) => {
                error.set(Some(format!("Program time limit: {message}")));
                return;
            }
        };
        let patch = SettingsPatch {
            persona: Some(persona.get_untracked()),
            max_tool_calls: Some(max_tool_calls),
            max_subagent_tool_calls: Some(max_subagent_tool_calls),
            mcp_tool_timeout_secs: Some(mcp_tool_timeout_secs),
            eval_timeout_secs: Some(eval_timeout_secs),
            ..SettingsPatch::default()
        };
        leptos::task::spawn_local(async move {
            match invoke::<cmd::SettingsUpdate>(&patch).await {
                Ok(settings) => {
                    state.settings.set(settings);
                    touched.set(false);
                    error.set(None);
                    saved.set(true);
                }
                Err(e) => {
                    saved.set(false);
                    error.set(Some(e.message));
                }
            }
        });
    };
    let count = move || persona.with(|p| p.chars().count());
    let count_class = move || {
        if count() > PERSONA_MAX_CHARS {
            "hint error"
        } else {
            "hint muted"
        }
    };
    view! {
        <fieldset class="field" data-testid="agent-settings">
            <legend>"Agent"</legend>
            <label class="field__label" for="agent-persona">"Instructions for every run"</label>
            <textarea
                id="agent-persona"
                class="input input--multiline"
                data-testid="agent-persona"
                rows="4"
                placeholder="For example: answer in French; keep reports short."
                prop:value=move || persona.get()
                on:input=move |ev| {
                    touched.set(true);
                    saved.set(false);
                    persona.set(event_target_value(&ev));
                }
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && ev.ctrl_key() {
                        ev.prevent_default();
                        save();
                    }
                }
            />
            <p
                class=count_class
                data-testid="agent-persona-count"
            >
                {move || format!("{} / {PERSONA_MAX_CHARS} characters", count())}
            </p>
            <label class="field__label" for="agent-max-tool-calls">"Tool calls per run"</label>
            <div class="field__row">
                <input
                    id="agent-max-tool-calls"
                    class="input input--narrow"
                    data-testid="agent-max-tool-calls"
                    inputmode="numeric"
                    prop:value=move || limit.get()
                    on:input=move |ev| {
                        touched.set(true);
                        saved.set(false);
                        limit.set(event_target_value(&ev));
                    }
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" {
                            ev.prevent_default();
                            save();
                        }
                    }
                />
            </div>
            <p class="hint muted">
                "How many tools the agent may call in one run before it stops and says what is left; -1 means no limit (a run still ends after 40 model calls)."
            </p>
            <label class="field__label" for="agent-max-subagent-tool-calls">"Tool calls per skill"</label>
            <div class="field__row">
                <input
                    id="agent-max-subagent-tool-calls"
                    class="input input--narrow"
                    data-testid="agent-max-subagent-tool-calls"
                    inputmode="numeric"
                    prop:value=move || subagent_limit.get()
                    on:input=move |ev| {
                        touched.set(true);
                        saved.set(false);
                        subagent_limit.set(event_target_value(&ev));
                    }
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" {
                            ev.prevent_default();
                            save();
                        }
                    }
                />
            </div>
            <p class="hint muted">
                "How many tools a skill may call each time the agent hands it a task; -1 means no limit (it still stops after 40 model calls and reports what it verified)."
            </p>
            <label class="field__label" for="agent-mcp-tool-timeout">"MCP tool timeout (seconds)"</label>
            <div class="field__row">
                <input
                    id="agent-mcp-tool-timeout"
                    class="input input--narrow"
                    data-testid="agent-mcp-tool-timeout"
                    inputmode="numeric"
                    prop:value=move || mcp_timeout.get()
                    on:input=move |ev| {
                        touched.set(true);
                        saved.set(false);
                        mcp_timeout.set(event_target_value(&ev));
                    }
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" {
                            ev.prevent_default();
                            save();
                        }
                    }
                />
            </div>
            <p class="hint muted">
                {format!("How long one MCP tool call may take before it is cancelled and the agent is told it timed out: 1 to {MCP_TOOL_TIMEOUT_MAX_SECS} seconds.")}
            </p>
            <label class="field__label" for="agent-eval-timeout">"Program time limit (seconds)"</label>
            <div class="field__row">
                <input
                    id="agent-eval-timeout"
                    class="input input--narrow"
                    data-testid="agent-eval-timeout"
                    inputmode="numeric"
                    prop:value=move || eval_timeout.get()
                    on:input=move |ev| {
                        touched.set(true);
                        saved.set(false);
                        eval_timeout.set(event_target_value(&ev));
                    }
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" {
                            ev.prevent_default();
                            save();
                        }
                    }
                />
                <button class="button" data-testid="agent-save" on:click=move |_| save()>
                    "Save"
                </button>
            </div>
            <p class="hint muted">
                {format!("How long a program the agent writes to go through files (its file reads and skills included) may run before it is stopped: 1 to {EVAL_TIMEOUT_MAX_SECS} seconds.")}
            </p>
            <p class="hint muted" data-testid="agent-asking-tools">
                {move || match asking.get() {
                    Some(tools) if tools.is_empty() => "No tool is set to ask every time; by default, changes in granted folders (/local/) and memories (/memories/) ask before they run. ".to_owned(),
                    Some(tools) => format!("Tools that ask before running: {}. ", tools.join(", ")),
                    None => String::new(),
                }}
                "Choose which tools ask before running in "
                <button
                    class="link"
                    data-testid="agent-open-approvals"
                    on:click=move |_| super::section().set(super::Section::Approvals)
                >
                    "Settings › Approvals"
                </button>
                "."
            </p>
            <Show when=move || saved.get()>
                <p class="saved" role="status">"Saved"</p>
            </Show>
            {move || error.get().map(|message| view! { <p class="banner banner--error" role="alert">{message}</p> })}
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::{asking_tools, parse_limit, parse_timeout};
    use pizza_protocol::{ApprovalPolicy, ToolApproval};

    #[test]
    fn a_limit_is_minus_one_or_in_range() {
        assert_eq!(parse_limit("-1"), Ok(-1));
        assert_eq!(parse_limit(" 100 "), Ok(100));
        assert_eq!(parse_limit("10000"), Ok(10_000));
        for bad in ["0", "-2", "10001", "", "ten", "1.5"] {
            assert!(parse_limit(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_timeout_is_whole_seconds_in_range() {
        assert_eq!(parse_timeout(" 60 "), Ok(60));
        assert_eq!(parse_timeout("3600"), Ok(3_600));
        for bad in ["0", "-1", "3601", "", "1.5", "a minute"] {
            assert!(parse_timeout(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_tools_set_to_ask_are_listed() {
        let tool = |name: &str, policy| ToolApproval {
            tool: name.to_owned(),
            description: String::new(),
            policy,
            default: String::new(),
        };
        let tools = [
            tool("write_file", Some(ApprovalPolicy::Ask)),
            tool("read_file", None),
            tool("edit_file", Some(ApprovalPolicy::Allow)),
            tool("grep", Some(ApprovalPolicy::Ask)),
        ];
        assert_eq!(asking_tools(&tools), vec!["write_file", "grep"]);
    }
}
