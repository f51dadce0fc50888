//! Settings › Approvals: each tool a run offers with its approval policy
//! (its default, ask every time, always allow, never), and a reset. A
//! change applies from the next run on.

use super::confirm::{Asking, ConfirmDialog, Question, ask};
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{
    ApiError, ApprovalList, ApprovalListParams, ApprovalPolicy, ApprovalResetParams,
    ApprovalSetParams, ToolApproval, cmd,
};

/// The select's value for a policy; `""` follows the default.
fn value_of(policy: Option<ApprovalPolicy>) -> &'static str {
    policy.map_or("", ApprovalPolicy::as_str)
}

fn policy_of(value: &str) -> Option<ApprovalPolicy> {
    ApprovalPolicy::ALL
        .into_iter()
        .find(|p| p.as_str() == value)
}

fn label(policy: ApprovalPolicy) -> &'static str {
    match policy {
        ApprovalPolicy::Ask => "Ask every time",
        ApprovalPolicy::Allow => "Always allow",
        ApprovalPolicy::Never => "Never",
    }
}

#[derive(Clone, Copy)]
struct ApprovalsState {
    tools: RwSignal<Vec<ToolApproval>>,
    error: RwSignal<Option<ApiError>>,
    saved: RwSignal<Option<String>>,
    asking: Asking,
}

impl ApprovalsState {
    fn show(self, answer: Result<ApprovalList, ApiError>, saved: String) {
        match answer {
            Ok(list) => {
                self.tools.set(list.tools);
                self.error.set(None);
                self.saved.set(Some(saved));
            }
            Err(e) => {
                // Nothing changed: re-render from what is stored.
                self.tools.update(|_| {});
                self.error.set(Some(e));
            }
        }
    }
}

fn set(state: ApprovalsState, tool: String, policy: Option<ApprovalPolicy>) {
    state.saved.set(None);
    leptos::task::spawn_local(async move {
        let params = ApprovalSetParams {
            tool: tool.clone(),
            policy,
        };
        let answer = invoke::<cmd::ApprovalSet>(&params).await;
        state.show(answer, format!("Saved {tool}; the next run follows it."));
    });
}

fn reset(state: ApprovalsState) {
    ask(
        state.asking,
        Question {
            title: "Reset approvals?".to_owned(),
            body: "Every tool goes back to its default, and every \"Allow for this thread\" \
                   is forgotten. Writes in granted folders and memories will ask again."
                .to_owned(),
            confirm_label: "Reset",
            danger: true,
            on_confirm: Callback::new(move |()| {
                leptos::task::spawn_local(async move {
                    let answer = invoke::<cmd::ApprovalReset>(&ApprovalResetParams {}).await;
                    state.show(answer, "Approvals are back to their defaults.".to_owned());
                });
            }),
        },
    );
}

#[component]
pub(super) fn Approvals() -> impl IntoView {
    let state = ApprovalsState {
        tools: RwSignal::new(Vec::new()),
        error: RwSignal::new(None),
        saved: RwSignal::new(None),
        asking: RwSignal::new(None),
    };
    leptos::task::spawn_local(async move {
        match invoke::<cmd::ApprovalList>(&ApprovalListParams {}).await {
            Ok(list) => state.tools.set(list.tools),
            Err(e) => state.error.set(Some(e)),
        }
    });
    view! {
        <section class="form" aria-labelledby="approvals-title">
            <h1 id="approvals-title">"Approvals"</h1>
            <p class="muted">
                "Which tool calls wait for your decision. By default, changes in granted folders "
                "(/local/) and memories (/memories/) ask; changes to a thread’s own files do not. "
                "A change here applies from the next run on."
            </p>
            <ul class="approval-list" role="list" data-testid="approvals-list">
                <For each=move || state.tools.get() key=|t| (t.tool.clone(), t.policy) let:tool>
                    <ToolRow tool state />
                </For>
            </ul>
            <p class="hint muted">
                "“Allow for this thread” on an approval card lets a tool run without asking in "
                "that thread only; Reset forgets those too."
            </p>
            <div class="approval-list__actions">
                <button class="button" data-testid="approvals-reset" on:click=move |_| reset(state)>"Reset to defaults"</button>
            </div>
            {move || state.saved.get().map(|s| view! { <p class="saved" role="status" data-testid="approvals-saved">{s}</p> })}
            {move || state.error.get().map(|e| view! { <p class="banner banner--error" role="alert">{e.message}</p> })}
            <ConfirmDialog asking=state.asking />
        </section>
    }
}

#[component]
fn ToolRow(tool: ToolApproval, state: ApprovalsState) -> impl IntoView {
    let name = tool.tool.clone();
    let current = value_of(tool.policy);
    let select_id = format!("approval-{name}");
    let row_id = format!("approval-row-{name}");
    let select_testid = format!("approval-policy-{name}");
    view! {
        <li class="approval-row" data-testid=row_id data-policy=current>
            <div class="approval-row__text">
                <label class="approval-row__name mono" for=select_id.clone()>{name.clone()}</label>
                <p class="hint muted">{tool.default.clone()}</p>
            </div>
            <select
                id=select_id
                class="input"
                data-testid=select_testid
                on:change=move |ev| set(state, name.clone(), policy_of(&event_target_value(&ev)))
            >
                <option value="" selected=current.is_empty()>"Default"</option>
                {ApprovalPolicy::ALL
                    .into_iter()
                    .map(|p| view! { <option value=p.as_str() selected=current == p.as_str()>{label(p)}</option> })
                    .collect_view()}
            </select>
        </li>
    }
}
