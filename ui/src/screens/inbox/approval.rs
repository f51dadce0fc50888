//! The approval card, inline in the feed: each gated call of an interrupt
//! with its humanized name, what it will change (a diff or a new file's
//! content) or else its typed arguments, and Approve (also for this thread,
//! or always) / Edit / Reject / Respond. The decisions go to `run_respond`
//! once every call has one.

use super::approval_edit::EditArguments;
use super::approval_preview::PreviewView;
use super::message::humanize;
use super::stream::RunState;
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{
    ApprovalRequest, Decision, DecisionKind, Interrupt, RememberScope, RunRespondParams, cmd,
};
use std::collections::BTreeMap;

const PREVIEW_LINES: usize = 8;

#[component]
pub(crate) fn ApprovalCard(run: RunState, interrupt: Interrupt) -> impl IntoView {
    let decisions = RwSignal::new(BTreeMap::<String, Decision>::new());
    let sending = RwSignal::new(false);
    let total = interrupt.requests.len();
    let interrupt_id = StoredValue::new(interrupt.interrupt_id.clone());
    let submit = move || {
        let decided = decisions.get_untracked();
        if decided.len() < total || sending.get_untracked() {
            return;
        }
        sending.set(true);
        let params = RunRespondParams {
            thread_id: run.thread_id.get_value(),
            interrupt_id: interrupt_id.get_value(),
            decisions: decided,
        };
        leptos::task::spawn_local(async move {
            match invoke::<cmd::RunRespond>(&params).await {
                Ok(started) => {
                    run.interrupt.set(None);
                    // Through `started`: the run may already have finished
                    // (its frames can arrive before this answer does).
                    run.started(started.run_id);
                }
                Err(error) => {
                    sending.set(false);
                    run.error.set(Some(error));
                }
            }
        });
    };
    let decide = move |call_id: String, decision: Decision| {
        decisions.update(|d| {
            d.insert(call_id, decision);
        });
        submit();
    };
    let all_ids: Vec<String> = interrupt
        .requests
        .iter()
        .map(|r| r.call_id.clone())
        .collect();
    let approve_all = (total > 1).then(|| {
        view! {
            <button class="button button--primary" data-testid="approve-all" on:click=move |_| {
                for id in &all_ids {
                    decisions.update(|d| { d.entry(id.clone()).or_insert(Decision::APPROVE); });
                }
                submit();
            }>{format!("Approve all {total}")}</button>
        }
    });
    // A decision is waiting: bring the whole card into view, clear of the
    // sticky composer (the pane's scroll padding).
    let card = NodeRef::<leptos::html::Section>::new();
    card.on_load(move |section| {
        request_animation_frame(move || {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            section.scroll_into_view_with_scroll_into_view_options(&options);
        });
    });
    view! {
        <section class="approval" role="group" aria-label="Approval needed" data-testid="approval-card" node_ref=card>
            {interrupt.requests.into_iter().map(|request| {
                let call_id = request.call_id.clone();
                let decided = move || decisions.with(|d| d.get(&call_id).map(decided_label));
                view! { <RequestView request decided=Signal::derive(decided) decide sending /> }
            }).collect_view()}
            {approve_all}
        </section>
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Buttons,
    Edit,
    Respond,
}

#[component]
fn RequestView(
    request: ApprovalRequest,
    decided: Signal<Option<&'static str>>,
    decide: impl Fn(String, Decision) + Clone + Send + Sync + 'static,
    sending: RwSignal<bool>,
) -> impl IntoView {
    let mode = RwSignal::new(Mode::Buttons);
    let original = request.arguments.clone();
    let reply = RwSignal::new(String::new());
    let allowed = StoredValue::new(request.allowed.clone());
    let can = move |kind| allowed.with_value(|a| a.contains(&kind));
    let call_id = request.call_id.clone();
    let button = {
        let decide = decide.clone();
        let call_id = call_id.clone();
        move |kind: DecisionKind, label: &'static str, testid: &'static str| {
            let decide = decide.clone();
            let call_id = call_id.clone();
            can(kind).then(|| view! {
                <button class="button" class:button--primary=kind == DecisionKind::Approve data-testid=testid
                    disabled=move || sending.get()
                    on:click=move |_| match kind {
                        DecisionKind::Approve => decide(call_id.clone(), Decision::APPROVE),
                        DecisionKind::Reject => decide(call_id.clone(), Decision::Reject { message: None }),
                        DecisionKind::Edit => mode.set(Mode::Edit),
                        DecisionKind::Respond => mode.set(Mode::Respond),
                    }>{label}</button>
            })
        }
    };
    let remember = {
        let decide = decide.clone();
        let call_id = call_id.clone();
        move |scope: RememberScope,
              label: &'static str,
              testid: &'static str,
              title: &'static str| {
            let decide = decide.clone();
            let call_id = call_id.clone();
            can(DecisionKind::Approve).then(|| view! {
                <button class="button" data-testid=testid title=title disabled=move || sending.get()
                    on:click=move |_| decide(call_id.clone(), Decision::Approve { remember: Some(scope) })>{label}</button>
            })
        }
    };
    let buttons = move || {
        view! {
            <div class="approval__buttons">
                {button(DecisionKind::Approve, "Approve", "approve")}
                {remember(RememberScope::Thread, "Allow for this thread", "approve-thread",
                    "Approve, and let this tool run without asking in this thread.")}
                {remember(RememberScope::Always, "Always allow", "approve-always",
                    "Approve, and let this tool run without asking everywhere (Settings › Approvals).")}
                {button(DecisionKind::Edit, "Edit", "edit")}
                {button(DecisionKind::Reject, "Reject", "reject")}
                {button(DecisionKind::Respond, "Respond", "respond")}
            </div>
        }
    };
    let save_edit = {
        let decide = decide.clone();
        let call_id = call_id.clone();
        move |arguments| decide(call_id.clone(), Decision::Edit { arguments })
    };
    let send_reply = move |_| {
        let text = reply.get_untracked();
        if !text.trim().is_empty() {
            decide(call_id.clone(), Decision::Respond { text });
        }
    };
    view! {
        <div class="approval__request" data-testid="approval-request">
            {request.skill.clone().map(|skill| view! {
                <p class="approval__skill" data-testid="approval-skill">{format!("{skill} asks")}</p>
            })}
            <h3 class="approval__title">{format!("{}?", humanize(&request.tool))}</h3>
            <p class="muted">{request.description.clone()}</p>
            {request.changed_since_request.then(|| view! {
                <p class="banner banner--warning" role="status" data-testid="approval-changed">
                    "The file changed since this was asked, so nothing was written. "
                    "This is the change as it would be now."
                </p>
            })}
            {match request.preview.clone() {
                Some(preview) => view! {
                    <PreviewView preview />
                    <details class="approval__more">
                        <summary>"Arguments"</summary>
                        <ArgumentsView arguments=request.arguments.clone() />
                    </details>
                }.into_any(),
                None => view! { <ArgumentsView arguments=request.arguments.clone() /> }.into_any(),
            }}
            {move || match decided.get() {
                Some(label) => view! { <p class="approval__decided" data-testid="approval-decided">{label}</p> }.into_any(),
                None => match mode.get() {
                    Mode::Buttons => buttons().into_any(),
                    Mode::Edit => view! {
                        <EditArguments original=original.clone() save=save_edit.clone() cancel=move || mode.set(Mode::Buttons) />
                    }.into_any(),
                    Mode::Respond => {
                        let send_reply = send_reply.clone();
                        view! {
                            <textarea class="approval__json" rows="3" aria-label="Your answer instead of running the tool" data-testid="respond-text"
                                prop:value=move || reply.get() on:input=move |ev| reply.set(event_target_value(&ev))></textarea>
                            <div class="approval__buttons">
                                <button class="button button--primary" data-testid="respond-send" on:click=send_reply>"Send answer"</button>
                                <button class="button" on:click=move |_| mode.set(Mode::Buttons)>"Cancel"</button>
                            </div>
                        }.into_any()
                    }
                },
            }}
        </div>
    }
}

fn decided_label(decision: &Decision) -> &'static str {
    match decision {
        Decision::Approve { remember: None } => "✓ Approved",
        Decision::Approve {
            remember: Some(RememberScope::Thread),
        } => "✓ Approved, and allowed for this thread",
        Decision::Approve {
            remember: Some(RememberScope::Always),
        } => "✓ Approved, and always allowed",
        Decision::Edit { .. } => "✓ Approved with edits",
        Decision::Reject { .. } => "✗ Rejected",
        Decision::Respond { .. } => "↩ Answered instead",
    }
}

/// The arguments as a list of fields: text shows its first lines, other
/// values as compact JSON.
#[component]
fn ArgumentsView(arguments: serde_json::Value) -> impl IntoView {
    let fields: Vec<(String, serde_json::Value)> = match arguments {
        serde_json::Value::Object(map) => map.into_iter().collect(),
        other => vec![(String::from("arguments"), other)],
    };
    view! {
        <dl class="approval__args">
            {fields.into_iter().map(|(name, value)| {
                let shown = match &value {
                    serde_json::Value::String(text) => {
                        let lines: Vec<&str> = text.lines().collect();
                        let mut shown = lines.iter().take(PREVIEW_LINES).copied().collect::<Vec<_>>().join("\n");
                        if lines.len() > PREVIEW_LINES {
                            shown.push_str(&format!("\n… {} more lines", lines.len() - PREVIEW_LINES));
                        }
                        shown
                    }
                    other => other.to_string(),
                };
                view! {
                    <dt class="approval__name">{name}</dt>
                    <dd><pre class="approval__value mono">{shown}</pre></dd>
                }
            }).collect_view()}
        </dl>
    }
}
