//! Automations: triggers that start work on their own — Schedules (cron)
//! and Webhooks — with the switch that arms them all, each trigger's row
//! and history, and the editor on the right.

mod editor;
mod history;
mod master;
mod row;
pub(crate) mod schedule;
pub(crate) mod state;
mod webhook;

pub(crate) use master::StartAtLoginSetting;

use crate::screen::Screen;
use crate::screens::inbox::state::Inbox;
use leptos::prelude::*;
use pizza_protocol::{AppEvent, TriggerKind};
use state::{AutomationsState, Editing, use_automations};

/// Makes the page's state and keeps it told of the host's changes, for the
/// window's lifetime.
pub(crate) fn provide_state() {
    let state = AutomationsState::new();
    provide_context(state);
    crate::events::listen(AppEvent::TRIGGERS_CHANGED, move |_| state.changed());
    crate::events::listen(AppEvent::THREADS_CHANGED, move |_| state.changed());
    crate::events::listen(AppEvent::AUTOMATIONS_CHANGED, move |event| {
        if let AppEvent::AutomationsChanged { automations } = event {
            state.automations.set(Some(automations));
        }
        state.changed();
    });
}

#[component]
pub(crate) fn AutomationsSidebar() -> impl IntoView {
    let state = use_automations();
    let open = move |editing: Editing| state.editing.set(Some(editing));
    let group = move |kind: TriggerKind, title: &'static str| {
        let triggers = move || {
            state
                .triggers
                .get()
                .into_iter()
                .filter(|t| t.kind == kind)
                .collect::<Vec<_>>()
        };
        view! {
            <h3 class="threads__heading">{title}</h3>
            <ul class="list" role="list">
                {move || triggers()
                    .into_iter()
                    .map(|t| {
                        let id = t.id.clone();
                        let active_id = t.id.clone();
                        let active = move || matches!(state.editing.get(), Some(Editing::Existing(ref e)) if *e == active_id);
                        view! {
                            <li>
                                <button class="list__item" class:list__item--active=active
                                    class:muted=!t.enabled
                                    on:click=move |_| open(Editing::Existing(id.clone()))>
                                    {t.name}
                                </button>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
    };
    view! {
        <div class="sidebar__header">
            <h2 class="sidebar__title">"Automations"</h2>
        </div>
        <div class="automations-sidebar__new">
            <button class="button button--primary" data-testid="new-schedule"
                on:click=move |_| open(Editing::New(TriggerKind::Cron))>"+ Schedule"</button>
            <button class="button" data-testid="new-webhook"
                on:click=move |_| open(Editing::New(TriggerKind::Webhook))>"+ Webhook"</button>
        </div>
        {group(TriggerKind::Cron, "Schedules")}
        {group(TriggerKind::Webhook, "Webhooks")}
    }
}

#[component]
pub(crate) fn AutomationsPane() -> impl IntoView {
    let state = use_automations();
    state.sync();
    let section = move |kind: TriggerKind| {
        let (title, empty, new_label, testid) = match kind {
            TriggerKind::Cron => (
                "Schedules",
                "No schedules yet. Make one to run a prompt at set times.",
                "New schedule",
                "schedules",
            ),
            TriggerKind::Webhook => (
                "Webhooks",
                "No webhooks yet. Make one to start a run from a script with curl.",
                "New webhook",
                "webhooks",
            ),
        };
        let triggers = move || {
            state
                .triggers
                .get()
                .into_iter()
                .filter(|t| t.kind == kind)
                .collect::<Vec<_>>()
        };
        view! {
            <section class="automations__section" aria-label=title data-testid=testid>
                <h2 class="automations__heading">{title}</h2>
                <Show
                    when=move || !triggers().is_empty()
                    fallback=move || view! {
                        <div class="empty automations__empty">
                            <p class="muted">{empty}</p>
                            <button class="button" on:click=move |_| state.editing.set(Some(Editing::New(kind)))>
                                {new_label}
                            </button>
                        </div>
                    }
                >
                    <ul class="trigger-list" role="list">
                        // Keyed by id: a row keeps its open history and Run now
                        // result while the host re-sends the trigger.
                        <For each=triggers key=|t| t.id.clone() let:trigger>
                            <row::TriggerRow id=trigger.id />
                        </For>
                    </ul>
                </Show>
            </section>
        }
    };
    view! {
        <div class="automations" class:automations--editing=move || state.editing.get().is_some()>
            <div class="automations__main">
                <h1>"Automations"</h1>
                {move || state.error.get().map(|e| view! {
                    <div class="banner banner--error" role="alert" data-testid="automations-error" data-code=e.code.as_str()>
                        <span class="banner__text">{e.message}</span>
                        <button class="button" on:click=move |_| { state.error.set(None); state.changed() }>"Try again"</button>
                    </div>
                })}
                <master::MasterSwitch />
                {section(TriggerKind::Cron)}
                {section(TriggerKind::Webhook)}
            </div>
            {move || state.editing.get().map(|editing| view! {
                <aside class="automations__editor" aria-label="Trigger editor">
                    {match editing {
                        Editing::Secret { trigger, secret } => view! { <webhook::SecretShown trigger=*trigger secret /> }.into_any(),
                        Editing::New(kind) => view! { <editor::Editor kind existing=None /> }.into_any(),
                        Editing::Existing(id) => match state.trigger(&id) {
                            Some(trigger) => view! { <editor::Editor kind=trigger.kind existing=Some(trigger) /> }.into_any(),
                            None => view! { <p class="muted">"This trigger is gone."</p> }.into_any(),
                        },
                    }}
                </aside>
            })}
        </div>
    }
}

/// A link to a trigger's thread: shows it in the inbox.
#[component]
pub(crate) fn ThreadLink(
    thread_id: String,
    #[prop(into)] label: String,
    #[prop(default = "thread-link")] testid: &'static str,
) -> impl IntoView {
    let inbox = expect_context::<Inbox>();
    let screen = expect_context::<RwSignal<Screen>>();
    let id = thread_id.clone();
    view! {
        <button class="link" data-testid=testid data-thread-id=thread_id
            on:click=move |_| { screen.set(Screen::Inbox); inbox.open(id.clone(), None) }>
            {label}
        </button>
    }
}

/// `at_ms` in the person's zone, in words ("Tomorrow 09:00"); the calling
/// reactive scope runs again when the day turns and the words change.
pub(crate) fn local_time(at_ms: i64) -> String {
    crate::clock::track_midnight();
    let offset = |ms: f64| -i64::from(js_sys::Date::new(&ms.into()).get_timezone_offset() as i32);
    let now = js_sys::Date::now();
    schedule::local_time_label(at_ms, offset(at_ms as f64), now as i64, offset(now))
}
