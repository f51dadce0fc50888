//! Settings › Notifications: which run outcomes become native
//! notifications on this device.

use crate::app_state::AppState;
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{NotificationStatusParams, SettingsPatch, cmd};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Toggle {
    RunFinished,
    ActionRequired,
}

impl Toggle {
    fn patch(self, on: bool) -> SettingsPatch {
        match self {
            Self::RunFinished => SettingsPatch {
                notify_run_finished: Some(on),
                ..SettingsPatch::default()
            },
            Self::ActionRequired => SettingsPatch {
                notify_action_required: Some(on),
                ..SettingsPatch::default()
            },
        }
    }
}

#[component]
pub(super) fn Notifications() -> impl IntoView {
    let state = expect_context::<AppState>();
    let error = RwSignal::new(None::<String>);
    let saved = RwSignal::new(false);
    let available = RwSignal::new(true);
    leptos::task::spawn_local(async move {
        if let Ok(status) = invoke::<cmd::NotificationStatus>(&NotificationStatusParams {}).await {
            available.set(status.available);
        }
    });
    let save = move |toggle: Toggle, on: bool| {
        saved.set(false);
        leptos::task::spawn_local(async move {
            match invoke::<cmd::SettingsUpdate>(&toggle.patch(on)).await {
                Ok(settings) => {
                    state.settings.set(settings);
                    error.set(None);
                    saved.set(true);
                }
                Err(e) => {
                    // Nothing was saved: re-render from the stored value.
                    state.settings.update(|_| {});
                    error.set(Some(e.message));
                }
            }
        });
    };
    let checkbox =
        move |toggle: Toggle, label: &'static str, hint: &'static str, testid: &'static str| {
            let checked = move || {
                let prefs = state.settings.get().notifications;
                match toggle {
                    Toggle::RunFinished => prefs.run_finished,
                    Toggle::ActionRequired => prefs.action_required,
                }
            };
            view! {
                <div class="field">
                    <label class="check">
                        <input
                            type="checkbox"
                            data-testid=testid
                            prop:checked=checked
                            on:change=move |ev| save(toggle, event_target_checked(&ev))
                        />
                        " " {label}
                    </label>
                    <p class="hint muted">{hint}</p>
                </div>
            }
        };
    view! {
        <section class="form" aria-labelledby="notifications-title">
            <h1 id="notifications-title">"Notifications"</h1>
            <p class="muted">
                "Native notifications for runs, on this device. Clicking one opens its thread. "
                "Nothing is announced for the thread you are looking at, or for a run you stop."
            </p>
            {checkbox(
                Toggle::RunFinished,
                "Run finished",
                "When a run finishes with an answer, and when it fails or times out.",
                "notify-run-finished",
            )}
            {checkbox(
                Toggle::ActionRequired,
                "Action required",
                "When a run waits for you to approve a tool, such as writing a file.",
                "notify-action-required",
            )}
            <Show when=move || !available.get()>
                <p class="banner" role="status" data-testid="notifications-unavailable-note">
                    "No notification service is running on this desktop, so outcomes show "
                    "only in the window (Unread and Action)."
                </p>
            </Show>
            <Show when=move || saved.get()>
                <p class="saved" role="status">"Saved"</p>
            </Show>
            {move || error.get().map(|message| view! { <p class="banner banner--error" role="alert">{message}</p> })}
        </section>
    }
}
