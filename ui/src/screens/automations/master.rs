//! The top of the page: the switch that arms every trigger, starting at
//! login, and the webhook listener with its port.

use super::state::{AutomationsState, use_automations};
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{ApiError, AutomationsPatch, WebhookListener, cmd};

fn update(state: AutomationsState, patch: AutomationsPatch, error: RwSignal<Option<ApiError>>) {
    leptos::task::spawn_local(async move {
        match invoke::<cmd::AutomationsUpdate>(&patch).await {
            Ok(automations) => {
                state.automations.set(Some(automations));
                error.set(None);
            }
            Err(e) => {
                // Show what is really stored again.
                state.changed();
                error.set(Some(e));
            }
        }
    });
}

#[component]
pub(crate) fn MasterSwitch() -> impl IntoView {
    let state = use_automations();
    let error = RwSignal::new(None::<ApiError>);
    let offering_login = RwSignal::new(false);
    let enabled = move || state.automations.get().is_some_and(|a| a.enabled);
    let start_at_login = move || state.automations.get().and_then(|a| a.start_at_login);

    let set_enabled = move |on: bool| {
        // A 9:00 schedule needs the app running at 9:00: offer starting at
        // login once, the first time automations go on without it.
        if on && start_at_login() == Some(false) && !state.login_offered.get_untracked() {
            state.login_offered.set(true);
            offering_login.set(true);
        }
        if !on {
            offering_login.set(false);
        }
        let patch = AutomationsPatch {
            enabled: Some(on),
            ..AutomationsPatch::default()
        };
        update(state, patch, error);
    };
    let set_login = move |on: bool| {
        offering_login.set(false);
        let patch = AutomationsPatch {
            start_at_login: Some(on),
            ..AutomationsPatch::default()
        };
        update(state, patch, error);
    };

    view! {
        <section class="automations__master" aria-label="Automations switch">
            <div class="field">
                <label class="check toggle">
                    <input type="checkbox" data-testid="automations-enabled"
                        prop:checked=enabled
                        disabled=move || state.automations.get().is_none()
                        on:change=move |ev| set_enabled(event_target_checked(&ev)) />
                    "Run automations"
                </label>
                <p class="hint muted" data-testid="automations-enabled-hint">
                    {move || if enabled() {
                        "On: schedules and webhooks fire while this is on. Pausing stops them all without changing each trigger’s own switch."
                    } else {
                        "Paused: no trigger fires until this is on, whatever its own switch says. Run now still works."
                    }}
                </p>
            </div>
            <Show when=move || offering_login.get()>
                <div class="banner automations__offer" role="group" aria-label="Start at login" data-testid="start-at-login-offer">
                    <p class="banner__text">
                        "Also start Pizza Bot when you log in? Schedules fire only while Pizza Bot runs: "
                        "a 9:00 schedule on a computer switched on at 8:55 needs it to start by itself."
                    </p>
                    <div class="overlay__buttons">
                        <button class="button" data-testid="start-at-login-decline" on:click=move |_| offering_login.set(false)>"Not now"</button>
                        <button class="button button--primary" data-testid="start-at-login-accept" on:click=move |_| set_login(true)>
                            "Start at login"
                        </button>
                    </div>
                </div>
            </Show>
            {move || start_at_login().map(|on| view! { <LoginCheckbox on set=set_login testid="start-at-login" /> })}
            <Listener error />
            {move || error.get().map(|e| view! {
                <p class="banner banner--error" role="alert" data-testid="automations-update-error">{e.message}</p>
            })}
        </section>
    }
}

#[component]
fn LoginCheckbox(on: bool, set: impl Fn(bool) + 'static, testid: &'static str) -> impl IntoView {
    view! {
        <div class="field">
            <label class="check toggle">
                <input type="checkbox" data-testid=testid prop:checked=on
                    on:change=move |ev| set(event_target_checked(&ev)) />
                "Start Pizza Bot when I log in"
            </label>
            <p class="hint muted">"It starts in the tray, without its window, so schedules run after a restart."</p>
        </div>
    }
}

/// "Start Pizza Bot when I log in" for Settings › General: the same switch
/// as on the Automations page, read when the section opens; hidden where
/// the system offers no way to start at login.
#[component]
pub(crate) fn StartAtLoginSetting() -> impl IntoView {
    let state = use_automations();
    let error = RwSignal::new(None::<ApiError>);
    leptos::task::spawn_local(async move {
        match invoke::<cmd::AutomationsGet>(&pizza_protocol::AutomationsGetParams {}).await {
            Ok(automations) => state.automations.set(Some(automations)),
            Err(e) => error.set(Some(e)),
        }
    });
    let set = move |on: bool| {
        let patch = AutomationsPatch {
            start_at_login: Some(on),
            ..AutomationsPatch::default()
        };
        update(state, patch, error);
    };
    view! {
        {move || state.automations.get().and_then(|a| a.start_at_login).map(|on| view! {
            <LoginCheckbox on set testid="settings-start-at-login" />
        })}
        {move || error.get().map(|e| view! { <p class="banner banner--error" role="alert">{e.message}</p> })}
    }
}

/// The webhook listener's state and its port (saved on blur or Enter).
#[component]
fn Listener(error: RwSignal<Option<ApiError>>) -> impl IntoView {
    let state = use_automations();
    let typed = RwSignal::new(None::<String>);
    let port = move || {
        typed.get().unwrap_or_else(|| {
            state
                .automations
                .get()
                .map(|a| a.webhook_port.to_string())
                .unwrap_or_default()
        })
    };
    let save = move || {
        let Some(text) = typed.get_untracked() else {
            return;
        };
        let stored = state.automations.get_untracked().map(|a| a.webhook_port);
        match text.trim().parse::<u16>() {
            Ok(port) if Some(port) == stored => typed.set(None),
            Ok(port) if port >= 1024 => {
                typed.set(None);
                let patch = AutomationsPatch {
                    webhook_port: Some(port),
                    ..AutomationsPatch::default()
                };
                update(state, patch, error);
            }
            _ => error.set(Some(ApiError::invalid_input(
                "webhook_port: choose a port from 1024 to 65535.",
            ))),
        }
    };
    let listening = move || match state.automations.get().map(|a| a.webhook_listener) {
        None => ("off", "—".to_owned()),
        Some(WebhookListener::Off) => (
            "off",
            "Off: it listens once automations are on and a webhook exists.".to_owned(),
        ),
        Some(WebhookListener::Listening { port }) => {
            ("listening", format!("Listening on 127.0.0.1:{port}"))
        }
        Some(WebhookListener::Failed { message }) => ("failed", format!("Failed: {message}")),
    };
    view! {
        <div class="field automations__listener">
            <span class="field__label">"Webhook listener"</span>
            <div class="field__row">
                {move || {
                    let (class, text) = listening();
                    view! {
                        <span class=format!("status-dot status-dot--{}", match class {
                            "listening" => "ready",
                            "failed" => "error",
                            _ => "unconfigured",
                        }) aria-hidden="true"></span>
                        <span data-testid="webhook-listener" data-state=class>{text}</span>
                    }
                }}
                <label class="automations__port">
                    "Port "
                    <input class="input" type="number" min="1024" max="65535" inputmode="numeric"
                        data-testid="webhook-port"
                        prop:value=port
                        on:input=move |ev| typed.set(Some(event_target_value(&ev)))
                        on:blur=move |_| save()
                        on:keydown=move |ev| if ev.key() == "Enter" { ev.prevent_default(); save() } />
                </label>
            </div>
            <p class="hint muted">"Loopback only: programs on this computer can post to it, nothing else can."</p>
        </div>
    }
}
