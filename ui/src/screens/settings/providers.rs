//! Settings › Providers: the provider list with status dots, servers found
//! on this machine, the person's own compatible servers, a form rendered
//! from each provider's auth-field schema, Test, the model list (enablement,
//! context windows and prices) and the default model.

mod form;
mod local;
mod models;

use crate::components::model_picker::ModelPicker;
use crate::ipc::invoke;
use crate::latest::Latest;
use form::ProviderForm;
use leptos::prelude::*;
use local::{AddCompatible, FoundOnMachine};
use pizza_protocol::{
    ApiError, ErrorCode, ModelDefault, ModelDefaultGetParams, ModelDefaultSetParams, ProviderInfo,
    ProviderListParams, ProviderStatus, cmd,
};

/// What to do about an error, by its code (never by its text).
fn hint(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::InvalidInput => "Check the settings and save again.",
        ErrorCode::AuthExpired => "Check the API key.",
        ErrorCode::Conflict => "Choose another name.",
        ErrorCode::DependencyDisabled | ErrorCode::PermissionDenied => {
            "Or enter the key as ${ENV_VAR} to read it from the environment."
        }
        ErrorCode::RateLimit | ErrorCode::Timeout | ErrorCode::StreamError => {
            "Try again in a moment."
        }
        _ => "",
    }
}

fn status_class(status: &ProviderStatus) -> &'static str {
    match status {
        ProviderStatus::Ready => "ready",
        ProviderStatus::Degraded { .. } => "degraded",
        ProviderStatus::Error { .. } => "error",
        ProviderStatus::Unconfigured => "unconfigured",
    }
}

fn status_label(status: &ProviderStatus) -> String {
    match status {
        ProviderStatus::Ready => "Ready".to_owned(),
        ProviderStatus::Degraded { message, .. } => format!("Degraded — {message}"),
        ProviderStatus::Error { message, .. } => format!("Error — {message}"),
        ProviderStatus::Unconfigured => "Not configured".to_owned(),
    }
}

#[component]
fn ErrorBanner(error: RwSignal<Option<ApiError>>, testid: &'static str) -> impl IntoView {
    move || {
        error.get().map(|e| {
            view! {
                <div class="banner banner--error" role="alert" data-testid=testid data-code=e.code.as_str()>
                    <span>{e.message}</span>
                    " "
                    <span class="muted">{hint(e.code)}</span>
                </div>
            }
        })
    }
}

/// The screen's shared state: the providers as last listed, which one is
/// open, and a counter bumped whenever models may have changed.
#[derive(Clone, Copy)]
struct ProvidersState {
    providers: RwSignal<Vec<ProviderInfo>>,
    selected: RwSignal<Option<String>>,
    models_changed: RwSignal<u32>,
    error: RwSignal<Option<ApiError>>,
}

impl ProvidersState {
    /// Lists the providers again; then opens `open` when given.
    fn reload(self, open: Option<String>) {
        leptos::task::spawn_local(async move {
            match invoke::<cmd::ProviderList>(&ProviderListParams {}).await {
                Ok(list) => self.set_list(list.providers, open),
                Err(e) => self.error.set(Some(e)),
            }
        });
    }

    fn set_list(self, list: Vec<ProviderInfo>, open: Option<String>) {
        let selected = open.or_else(|| self.selected.get_untracked());
        // A removed server's form closes with it.
        let selected = selected.filter(|id| list.iter().any(|p| &p.id == id));
        self.providers.set(list);
        self.selected.set(selected);
        self.models_changed.update(|n| *n += 1);
    }
}

#[component]
pub(crate) fn Providers() -> impl IntoView {
    let state = ProvidersState {
        providers: RwSignal::new(Vec::new()),
        selected: RwSignal::new(None),
        models_changed: RwSignal::new(0),
        error: RwSignal::new(None),
    };
    let ProvidersState {
        providers,
        selected,
        models_changed,
        error,
    } = state;
    state.reload(None);
    let on_changed = Callback::new(move |info: ProviderInfo| {
        providers.update(|list| {
            if let Some(slot) = list.iter_mut().find(|p| p.id == info.id) {
                *slot = info;
            }
        });
        models_changed.update(|n| *n += 1);
    });
    let on_list = Callback::new(move |list: Vec<ProviderInfo>| state.set_list(list, None));
    let on_added = Callback::new(move |id: String| state.reload(Some(id)));

    view! {
        <section class="form providers" aria-labelledby="providers-title">
            <h1 id="providers-title">"Providers"</h1>
            <ErrorBanner error testid="providers-error" />
            <ul class="providers__list" role="list">
                {move || {
                    providers
                        .get()
                        .into_iter()
                        .map(|p| {
                            let id = p.id.clone();
                            let id_for_click = p.id.clone();
                            let id_for_class = p.id.clone();
                            view! {
                                <li>
                                    <button
                                        class="providers__row"
                                        class:providers__row--active=move || selected.get().as_deref() == Some(id_for_class.as_str())
                                        data-testid=format!("provider-row-{id}")
                                        on:click=move |_| selected.set(Some(id_for_click.clone()))
                                    >
                                        <span class=format!("status-dot status-dot--{}", status_class(&p.status)) aria-hidden="true"></span>
                                        <span class="providers__name">{p.name.clone()}</span>
                                        {p.compatible.then(|| view! { <span class="muted providers__kind">"compatible server"</span> })}
                                        <span
                                            class="providers__status muted"
                                            data-testid=format!("provider-status-{id}")
                                            data-status=status_class(&p.status)
                                        >
                                            {status_label(&p.status)}
                                        </span>
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
            <AddCompatible on_added />
            <FoundOnMachine on_added reload=models_changed />
            {move || {
                let id = selected.get()?;
                let info = providers.with_untracked(|list| list.iter().find(|p| p.id == id).cloned())?;
                Some(view! { <ProviderForm info on_changed on_list /> })
            }}
            <DefaultModel reload=models_changed />
        </section>
    }
}

/// The default model: "Automatic (recommended)" or a chosen model.
#[component]
fn DefaultModel(reload: RwSignal<u32>) -> impl IntoView {
    let current = RwSignal::new(ModelDefault::default());
    let error = RwSignal::new(None::<ApiError>);
    let saved = RwSignal::new(false);
    let asked = Latest::new();
    Effect::new(move |_| {
        reload.track();
        let ticket = asked.ask();
        leptos::task::spawn_local(async move {
            let answer = invoke::<cmd::ModelDefaultGet>(&ModelDefaultGetParams {}).await;
            if !ticket.is_newest() {
                return;
            }
            match answer {
                Ok(value) => current.set(value),
                Err(e) => error.set(Some(e)),
            }
        });
    });
    let choose = Callback::new(move |model: Option<String>| {
        saved.set(false);
        leptos::task::spawn_local(async move {
            match invoke::<cmd::ModelDefaultSet>(&ModelDefaultSetParams { model }).await {
                Ok(value) => {
                    current.set(value);
                    error.set(None);
                    saved.set(true);
                }
                Err(e) => error.set(Some(e)),
            }
        });
    });
    view! {
        <fieldset class="field default-model">
            <legend>"Default model"</legend>
            <ModelPicker
                selected=Signal::derive(move || current.get().chosen)
                on_change=choose
                automatic="Automatic (recommended)"
                reload=Signal::derive(move || reload.get())
                testid="default-model"
            />
            <p class="hint muted" data-testid="default-model-effective">
                {move || {
                    let value = current.get();
                    match (value.chosen, value.effective) {
                        (None, Some(model)) => format!("Automatic: {model}"),
                        (None, None) => "Automatic: configure a provider to get a model.".to_owned(),
                        (Some(model), _) => format!("New threads use {model}."),
                    }
                }}
            </p>
            <Show when=move || saved.get()>
                <p class="saved" role="status" data-testid="default-model-saved">"Saved"</p>
            </Show>
            <ErrorBanner error testid="default-model-error" />
        </fieldset>
    }
}
