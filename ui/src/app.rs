//! The root component: loads the app state and picks the shell or the
//! startup-failure screen.

use crate::app_state::AppState;
use crate::ipc::invoke;
use crate::shell::Shell;
use crate::theme;
use leptos::prelude::*;
use pizza_protocol::{AppInfoParams, SettingsGetParams, cmd};

#[component]
pub(crate) fn App() -> impl IntoView {
    let state = AppState::new();
    provide_context(state);
    let startup_error = RwSignal::new(None::<String>);

    leptos::task::spawn_local(async move {
        match invoke::<cmd::AppInfo>(&AppInfoParams {}).await {
            Ok(info) => {
                state.info.set(Some(info));
                // The host's events and streams, from here on.
                crate::outbox::start();
            }
            Err(error) => {
                startup_error.set(Some(error.message));
                crate::snapshot::reveal();
                return;
            }
        }
        if let Ok(settings) = invoke::<cmd::SettingsGet>(&SettingsGetParams {}).await {
            theme::apply(settings.theme);
            state.settings.set(settings);
        }
        crate::snapshot::painted(crate::snapshot::Part::Settings);
    });

    view! {
        {move || match startup_error.get() {
            Some(message) => view! { <StartupFailed message /> }.into_any(),
            None if crate::quick_ask::is_quick_ask() => {
                view! { <crate::quick_ask::QuickAsk /> }.into_any()
            }
            None => view! { <Shell /> }.into_any(),
        }}
    }
}

#[component]
fn StartupFailed(message: String) -> impl IntoView {
    view! {
        <main class="startup-failed" role="alert">
            <h1>"Pizza Bot can’t start"</h1>
            <p class="startup-failed__message" data-testid="startup-error">{message}</p>
            <p class="muted">"Fix the problem above, then open Pizza Bot again. Close this window to quit."</p>
        </main>
    }
}
