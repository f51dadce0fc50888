//! The delegation card: a `task` call ("Asked <skill>: <ask>") with the
//! tool calls its subagent made — live, from the frames under the call's
//! namespace — and the report it returned (the call's result). Open while
//! the subagent works, folded once it has reported.

use super::live::{ToolCard, ToolCardView};
use super::stream::RunState;
use leptos::prelude::*;
use pizza_protocol::{
    DelegationView, MessagePart, MessageView, RunEvent, RunEventFrame, RunStatus,
};

/// The name of the orchestrator's delegation tool.
pub(crate) const TASK_TOOL: &str = "task";

/// What one `task` call's subagent did, as this window saw it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Delegation {
    pub(crate) skill: String,
    pub(crate) ask: String,
    /// The subagent's tool calls, in order.
    pub(crate) tools: Vec<ToolCard>,
    /// How the subagent ended; `None` while it works.
    pub(crate) status: Option<RunStatus>,
}

impl RunState {
    /// A frame from a subagent (`namespace == [task call id]`). Only its
    /// tool calls are shown; its text, messages and its own run start and
    /// end stay out of the thread's answer.
    pub(super) fn handle_subagent(self, frame: RunEventFrame) {
        let Some(task_id) = frame.namespace.first().cloned() else {
            return;
        };
        match frame.event {
            RunEvent::ToolStarted {
                call_id,
                name,
                arguments,
            } => self.delegations.update(|d| {
                ToolCard::started(
                    &mut d.entry(task_id).or_default().tools,
                    call_id,
                    name,
                    arguments,
                );
            }),
            RunEvent::ToolFinished {
                call_id,
                result,
                is_error,
                ..
            } => self.delegations.update(|d| {
                let tools = &mut d.entry(task_id).or_default().tools;
                ToolCard::finished(tools, &call_id, result, is_error);
            }),
            // The thread's own interrupt (which names the skill) replaces
            // this one when it comes; until then the card is shown from it.
            RunEvent::Interrupt { interrupt } if self.interrupt.with_untracked(Option::is_none) => {
                self.interrupt.set(Some(interrupt));
            }
            _ => {}
        }
    }
}

impl RunState {
    /// Delegations read with the thread, for cards of subagents that ran
    /// before this window watched; live frames add to them.
    pub(crate) fn seed_delegations(self, views: Vec<DelegationView>) {
        if views.is_empty() {
            return;
        }
        self.delegations.update(|d| {
            for view in views {
                let delegation = d.entry(view.task_id).or_default();
                if delegation.skill.is_empty() {
                    delegation.skill = view.skill;
                }
                for call in view.tool_calls {
                    let result = call.result.map(|text| (text, call.is_error));
                    match delegation
                        .tools
                        .iter_mut()
                        .find(|c| c.call_id == call.call_id)
                    {
                        Some(card) => {
                            if card.result.is_none() {
                                card.result = result;
                            }
                        }
                        None => delegation.tools.push(ToolCard {
                            call_id: call.call_id,
                            name: call.name,
                            arguments: call.arguments,
                            result,
                        }),
                    }
                }
            }
        });
    }
}

/// Whether a committed message holds the `task` call `call_id`.
pub(crate) fn committed_task_call(messages: &[MessageView], call_id: &str) -> bool {
    messages.iter().any(|m| {
        m.parts.iter().any(|p| {
            matches!(p, MessagePart::ToolCall { id, name, .. } if id == call_id && name == TASK_TOOL)
        })
    })
}

/// The `task` call's result in the committed messages: the report.
fn committed_report(messages: &[MessageView], call_id: &str) -> Option<(String, bool)> {
    messages.iter().find_map(|m| {
        m.parts.iter().find_map(|p| match p {
            MessagePart::ToolResult {
                call_id: id,
                content,
                is_error,
            } if id == call_id => Some((content.clone(), *is_error)),
            _ => None,
        })
    })
}

fn argument(arguments: &serde_json::Value, key: &str) -> String {
    arguments
        .get(key)
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

#[component]
pub(crate) fn DelegationCard(call_id: String, arguments: serde_json::Value) -> impl IntoView {
    let run = use_context::<RunState>();
    let (skill, ask) = (argument(&arguments, "skill"), argument(&arguments, "ask"));
    let live_id = call_id.clone();
    let live =
        Memo::new(move |_| run.and_then(|run| run.delegations.with(|d| d.get(&live_id).cloned())));
    let report_id = call_id.clone();
    let report = Memo::new(move |_| {
        let run = run?;
        run.messages
            .with(|m| committed_report(m, &report_id))
            .or_else(|| {
                run.tools.with(|tools| {
                    tools
                        .iter()
                        .find(|c| c.call_id == report_id)
                        .and_then(|c| c.result.clone())
                })
            })
    });
    let status = move || live.with(|l| l.as_ref().and_then(|l| l.status));
    // A subagent that ended without a report (cancelled, failed) is not
    // working even while the orchestrator's run goes on.
    let ended = move || {
        matches!(
            status(),
            Some(RunStatus::Cancelled | RunStatus::Failed | RunStatus::TimedOut)
        )
    };
    let working =
        move || report.with(Option::is_none) && run.is_some_and(RunState::running) && !ended();
    let waiting = move || {
        report.with(Option::is_none) && !working() && run.is_some_and(RunState::awaiting_decision)
    };
    let state = move || {
        if working() {
            "running"
        } else if waiting() {
            "waiting"
        } else {
            match report.get() {
                Some((_, false)) => "done",
                Some((_, true)) => "failed",
                None => "stopped",
            }
        }
    };
    let status_text = move || match state() {
        "running" => "Working…",
        "waiting" => "Waiting for your decision",
        "done" => "Reported",
        "failed" => "Failed",
        _ => "Stopped without a report",
    };
    let tool_testid = StoredValue::new(format!("delegation-tool-{call_id}"));
    let report_title = format!("{skill}’s report");
    let report_testid = format!("delegation-report-{call_id}");
    let tools = move || live.with(|l| l.as_ref().map(|l| l.tools.clone()).unwrap_or_default());
    view! {
        <details class="delegation" data-testid=format!("delegation-{call_id}") data-state=state
            data-skill=skill.clone() prop:open=move || working() || waiting()>
            <summary>
                <span class="delegation__title">"Asked "<span class="delegation__skill">{skill.clone()}</span>":"</span>
                <span class="delegation__ask" title=ask.clone()>{ask.clone()}</span>
                <span class="delegation__status muted" role="status">{status_text}</span>
            </summary>
            <div class="delegation__body">
                <Show when=move || !tools().is_empty()>
                    <div class="delegation__tools">
                        <For each=tools key=|c| (c.call_id.clone(), c.result.is_some()) let:card>
                            <ToolCardView card testid=tool_testid.get_value() />
                        </For>
                    </div>
                </Show>
                {move || report.get().map(|(text, is_error)| {
                    let body = if is_error {
                        view! { <pre class="tool__body tool__error">{text}</pre> }.into_any()
                    } else {
                        view! { <div class="markdown" inner_html=crate::markdown::to_html(&text)></div> }.into_any()
                    };
                    view! {
                        <div class="delegation__report" data-testid=report_testid.clone()>
                            <p class="delegation__report-title">{report_title.clone()}</p>
                            {body}
                        </div>
                    }
                })}
            </div>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_protocol::Role;
    use pretty_assertions::assert_eq;

    fn message(role: Role, parts: Vec<MessagePart>) -> MessageView {
        MessageView {
            id: format!("{role:?}"),
            seq: 1,
            role,
            parts,
            created_at: 0,
        }
    }

    #[test]
    fn the_report_is_the_task_calls_result() {
        let messages = vec![
            message(
                Role::Assistant,
                vec![
                    MessagePart::ToolCall {
                        id: "t1".into(),
                        name: TASK_TOOL.into(),
                        arguments: serde_json::json!({"skill": "trip-planner", "ask": "Rome"}),
                    },
                    MessagePart::ToolCall {
                        id: "r1".into(),
                        name: "read_file".into(),
                        arguments: serde_json::json!({"path": "/a"}),
                    },
                ],
            ),
            message(
                Role::Tool,
                vec![MessagePart::ToolResult {
                    call_id: "t1".into(),
                    content: "Three days in Rome.".into(),
                    is_error: false,
                }],
            ),
        ];
        assert!(committed_task_call(&messages, "t1"));
        assert!(!committed_task_call(&messages, "r1"));
        assert_eq!(
            committed_report(&messages, "t1"),
            Some(("Three days in Rome.".to_owned(), false))
        );
        assert_eq!(committed_report(&messages, "r1"), None);
    }
}
