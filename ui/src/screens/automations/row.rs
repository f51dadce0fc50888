//! One trigger in the list: its schedule in words, next run, last outcome,
//! its switch, Run now, Edit, Delete and (expanded) its history.

use super::history::History;
use super::state::{Editing, use_automations};
use super::{ThreadLink, local_time};
use crate::ipc::invoke;
use crate::screens::inbox::state::{ConfirmRequest, Inbox};
use leptos::prelude::*;
use pizza_protocol::{
    OccurrenceReason, OccurrenceStatus, OccurrenceView, TriggerFired, TriggerIdParams, TriggerKind,
    TriggerSetEnabledParams, TriggerView, cmd,
};

pub(crate) fn status_label(status: OccurrenceStatus) -> &'static str {
    match status {
        OccurrenceStatus::Pending => "Waiting",
        OccurrenceStatus::Running => "Running",
        OccurrenceStatus::Succeeded => "Succeeded",
        OccurrenceStatus::Failed => "Failed",
        OccurrenceStatus::Dead => "Gave up",
        OccurrenceStatus::Skipped => "Skipped",
    }
}

pub(crate) fn status_class(status: OccurrenceStatus) -> &'static str {
    match status {
        OccurrenceStatus::Pending | OccurrenceStatus::Running => "running",
        OccurrenceStatus::Succeeded => "succeeded",
        OccurrenceStatus::Failed | OccurrenceStatus::Dead => "failed",
        OccurrenceStatus::Skipped => "skipped",
    }
}

pub(crate) fn reason_label(reason: OccurrenceReason) -> &'static str {
    match reason {
        OccurrenceReason::Cron => "Scheduled",
        OccurrenceReason::CronRecovery => "Caught up",
        OccurrenceReason::Manual => "Run now",
        OccurrenceReason::Webhook => "Webhook",
    }
}

/// A trigger's newest outcome: its status and sentence, and its thread.
#[component]
fn LastOutcome(outcome: Option<OccurrenceView>) -> impl IntoView {
    match outcome {
        None => view! { <span class="muted" data-testid="trigger-last-outcome">"Not run yet"</span> }.into_any(),
        Some(o) => view! {
            <span class="trigger__outcome" data-testid="trigger-last-outcome" data-status=status_class(o.status)>
                <span class=format!("outcome outcome--{}", status_class(o.status))>{status_label(o.status)}</span>
                " " {move || local_time(o.updated_at)}
                {o.sentence.map(|s| view! { <span class="muted">" — " {s}</span> })}
                {o.thread_id.map(|id| view! { " " <ThreadLink thread_id=id label="Open thread" testid="trigger-last-thread" /> })}
            </span>
        }
        .into_any(),
    }
}

#[component]
pub(crate) fn TriggerRow(id: String) -> impl IntoView {
    let state = use_automations();
    let inbox = expect_context::<Inbox>();
    let row_id = id.clone();
    let (li_id, history_id) = (id.clone(), id.clone());
    let trigger = crate::leaving::memo(move |_| {
        state
            .triggers
            .with(|list| list.iter().find(|t| t.id == row_id).cloned())
    });
    let fired = RwSignal::new(None::<TriggerFired>);
    let row_error = RwSignal::new(None::<String>);
    let history_open = RwSignal::new(false);
    let busy = RwSignal::new(false);

    let run_now = {
        let id = id.clone();
        move || {
            let params = TriggerIdParams { id: id.clone() };
            busy.set(true);
            leptos::task::spawn_local(async move {
                match invoke::<cmd::TriggerRunNow>(&params).await {
                    Ok(answer) => {
                        fired.set(Some(answer));
                        row_error.set(None);
                        state.changed();
                    }
                    Err(e) => row_error.set(Some(e.message)),
                }
                busy.set(false);
            });
        }
    };
    let set_enabled = {
        let id = id.clone();
        move |enabled: bool| {
            let params = TriggerSetEnabledParams {
                id: id.clone(),
                enabled,
            };
            leptos::task::spawn_local(async move {
                match invoke::<cmd::TriggerSetEnabled>(&params).await {
                    Ok(view) => {
                        state.upsert(view);
                        row_error.set(None);
                    }
                    Err(e) => {
                        state.changed();
                        row_error.set(Some(e.message));
                    }
                }
            });
        }
    };
    let delete = {
        let id = id.clone();
        move || {
            let name = trigger.get_untracked().map(|t| t.name).unwrap_or_default();
            let id = id.clone();
            inbox.ask(ConfirmRequest {
                title: "Delete this trigger?".to_owned(),
                body: format!("“{name}” and its history will be deleted. Threads it started stay in the inbox."),
                confirm_label: "Delete",
                on_confirm: std::rc::Rc::new(move || {
                    let params = TriggerIdParams { id: id.clone() };
                    leptos::task::spawn_local(async move {
                        match invoke::<cmd::TriggerDelete>(&params).await {
                            Ok(()) => {
                                state.triggers.update(|l| l.retain(|t| t.id != params.id));
                                let editing_it = matches!(state.editing.get_untracked(),
                                    Some(Editing::Existing(ref e)) if *e == params.id);
                                if editing_it {
                                    state.editing.set(None);
                                }
                                state.changed();
                            }
                            Err(e) => row_error.set(Some(e.message)),
                        }
                    });
                }),
            });
        }
    };
    let rotate = {
        let id = id.clone();
        move || {
            let id = id.clone();
            inbox.ask(ConfirmRequest {
                title: "Rotate this webhook’s secret?".to_owned(),
                body: "A new secret is made and shown once. The old one stops working at once: \
                       update every script that posts to this webhook."
                    .to_owned(),
                confirm_label: "Rotate",
                on_confirm: std::rc::Rc::new(move || {
                    let params = TriggerIdParams { id: id.clone() };
                    leptos::task::spawn_local(async move {
                        match invoke::<cmd::TriggerRotateSecret>(&params).await {
                            Ok(answer) => {
                                state.upsert(answer.trigger.clone());
                                state.editing.set(Some(Editing::Secret {
                                    trigger: Box::new(answer.trigger),
                                    secret: answer.secret,
                                }));
                            }
                            Err(e) => row_error.set(Some(e.message)),
                        }
                    });
                }),
            });
        }
    };

    let body = move |t: TriggerView| {
        let run_now = run_now.clone();
        let set_enabled = set_enabled.clone();
        let delete = delete.clone();
        let rotate = rotate.clone();
        let edit_id = t.id.clone();
        let is_webhook = t.kind == TriggerKind::Webhook;
        let what = match t.kind {
            TriggerKind::Cron => t.schedule.clone().or(t.cron.clone()).unwrap_or_default(),
            TriggerKind::Webhook => t.webhook_url.clone().unwrap_or_default(),
        };
        let next = match (t.kind, t.next_fire_at, t.enabled) {
            (TriggerKind::Webhook, ..) => None,
            (_, Some(at), _) => Some(format!("Next: {}", local_time(at))),
            (_, None, false) => Some("Off".to_owned()),
            (_, None, true) => Some("Never fires again".to_owned()),
        };
        view! {
            <div class="trigger__head">
                <label class="trigger__switch" title="Arm or disarm this trigger">
                    <input type="checkbox" data-testid="trigger-enabled" prop:checked=t.enabled
                        aria-label=format!("{} on", t.name)
                        on:change=move |ev| set_enabled(event_target_checked(&ev)) />
                </label>
                <div class="trigger__main">
                    <span class="trigger__name" data-testid="trigger-name">{t.name.clone()}</span>
                    <span class="trigger__what muted" class:mono=is_webhook data-testid="trigger-schedule">{what}</span>
                </div>
                {next.map(|n| view! { <span class="trigger__next muted" data-testid="trigger-next">{n}</span> })}
            </div>
            <div class="trigger__outcome-line">
                <LastOutcome outcome=t.last_outcome.clone() />
            </div>
            <div class="trigger__actions">
                <button class="button" data-testid="trigger-run-now" disabled=move || busy.get() on:click=move |_| run_now()>"Run now"</button>
                <button class="button" data-testid="trigger-edit" on:click=move |_| state.editing.set(Some(Editing::Existing(edit_id.clone())))>"Edit"</button>
                {is_webhook.then(|| view! {
                    <button class="button" data-testid="trigger-rotate" on:click=move |_| rotate()>"Rotate secret"</button>
                })}
                <button class="button" data-testid="trigger-history-toggle"
                    aria-expanded=move || history_open.get().to_string()
                    on:click=move |_| history_open.update(|o| *o = !*o)>
                    {move || if history_open.get() { "Hide history" } else { "History" }}
                </button>
                <button class="button button--danger" data-testid="trigger-delete" on:click=move |_| delete()>"Delete"</button>
            </div>
        }
    };

    view! {
        <li class="trigger" data-testid="trigger-row" data-trigger-id=li_id
            data-kind=move || trigger.get().map(|t| match t.kind { TriggerKind::Cron => "cron", TriggerKind::Webhook => "webhook" })>
            {move || trigger.get().map(body.clone())}
            {move || fired.get().map(|f| view! { <RunNowResult fired=f on_dismiss=move || fired.set(None) /> })}
            {move || row_error.get().map(|m| view! { <p class="banner banner--error" role="alert" data-testid="trigger-row-error">{m}</p> })}
            <Show when=move || history_open.get()>
                <History trigger_id=history_id.clone() />
            </Show>
        </li>
    }
}

/// What Run now did: a link to the new thread, or why it was skipped.
#[component]
fn RunNowResult(
    fired: TriggerFired,
    on_dismiss: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let started = fired
        .thread_id
        .clone()
        .filter(|_| fired.occurrence.status != OccurrenceStatus::Skipped);
    let sentence = fired.occurrence.sentence.clone();
    view! {
        <div class="trigger__fired" role="status" data-testid="trigger-run-result"
            data-status=status_class(fired.occurrence.status)>
            {match started {
                Some(thread_id) => view! {
                    <span>"Started. "</span>
                    <ThreadLink thread_id label="Open its thread" testid="trigger-run-thread" />
                }.into_any(),
                None => view! {
                    <span>{format!("{}: ", status_label(fired.occurrence.status))}
                        {sentence.unwrap_or_else(|| "it did not start.".to_owned())}</span>
                }.into_any(),
            }}
            <button class="icon-button" aria-label="Dismiss" on:click=move |_| on_dismiss()>"×"</button>
        </div>
    }
}
