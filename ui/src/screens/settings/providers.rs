//! Settings › Providers: the provider list with status dots, a form rendered
//! from each provider's auth-field schema, Test, model enablement and the
//! default model.

use crate::components::model_picker::ModelPicker;
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{
    ApiError, AuthField, AuthFieldKind, ErrorCode, ModelDefault, ModelDefaultGetParams,
    ModelDefaultSetParams, ModelEnablement, ModelInfo, ProviderConfigureParams, ProviderIdParams,
    ProviderInfo, ProviderListParams, ProviderStatus, cmd,
};
use std::collections::BTreeMap;

const STORED_PLACEHOLDER: &str = "•••• stored — leave blank to keep";

/// What to do about an error, by its code (never by its text).
fn hint(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::InvalidInput => "Check the settings and save again.",
        ErrorCode::AuthExpired => "Check the API key.",
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

#[component]
pub(crate) fn Providers() -> impl IntoView {
    let providers = RwSignal::new(Vec::<ProviderInfo>::new());
    let selected = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<ApiError>);
    // Bumped whenever models may have changed, so the default-model picker relists.
    let models_changed = RwSignal::new(0u32);
    leptos::task::spawn_local(async move {
        match invoke::<cmd::ProviderList>(&ProviderListParams {}).await {
            Ok(list) => providers.set(list.providers),
            Err(e) => error.set(Some(e)),
        }
    });
    let on_changed = Callback::new(move |info: ProviderInfo| {
        providers.update(|list| {
            if let Some(slot) = list.iter_mut().find(|p| p.id == info.id) {
                *slot = info;
            }
        });
        models_changed.update(|n| *n += 1);
    });
    let on_list = Callback::new(move |list: Vec<ProviderInfo>| {
        providers.set(list);
        models_changed.update(|n| *n += 1);
    });

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
                            let detected = p.detected;
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
                                        <span
                                            class="providers__status muted"
                                            data-testid=format!("provider-status-{id}")
                                            data-status=status_class(&p.status)
                                        >
                                            {if detected { "Detected — ".to_owned() } else { String::new() }}
                                            {status_label(&p.status)}
                                        </span>
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
            {move || {
                let id = selected.get()?;
                let info = providers.with_untracked(|list| list.iter().find(|p| p.id == id).cloned())?;
                Some(view! { <ProviderForm info on_changed on_list /> })
            }}
            <DefaultModel reload=models_changed />
        </section>
    }
}

/// One provider's form. Its own copy of the info is refreshed by every
/// save, so what the user is typing is never replaced mid-edit.
#[component]
fn ProviderForm(
    info: ProviderInfo,
    on_changed: Callback<ProviderInfo>,
    on_list: Callback<Vec<ProviderInfo>>,
) -> impl IntoView {
    let id = info.id.clone();
    let current = RwSignal::new(info.clone());
    let error = RwSignal::new(None::<ApiError>);
    let saved = RwSignal::new(false);
    let busy = RwSignal::new(false);
    let tested = RwSignal::new(None::<(ProviderStatus, Vec<ModelInfo>)>);
    let confirm_remove = RwSignal::new(false);
    let enablement = RwSignal::new(info.enablement.clone());
    let inputs: Vec<(AuthField, RwSignal<String>)> = info
        .fields
        .iter()
        .map(|f| {
            let initial = if f.secret {
                String::new()
            } else {
                info.values
                    .get(&f.key)
                    .cloned()
                    .unwrap_or_else(|| match f.kind {
                        AuthFieldKind::Select { .. } => f.default.clone().unwrap_or_default(),
                        _ => String::new(),
                    })
            };
            (f.clone(), RwSignal::new(initial))
        })
        .collect();
    let inputs = StoredValue::new(inputs);

    let save = {
        let id = id.clone();
        move |with_fields: bool| {
            let id = id.clone();
            let mut fields = BTreeMap::new();
            if with_fields {
                inputs.with_value(|inputs| {
                    for (field, value) in inputs {
                        let value = value.get_untracked();
                        // A blank secret keeps the stored one: don't send it.
                        if !(field.secret && value.trim().is_empty()) {
                            fields.insert(field.key.clone(), value);
                        }
                    }
                });
            }
            let params = ProviderConfigureParams {
                id,
                fields,
                enablement: Some(enablement.get_untracked()),
            };
            busy.set(true);
            saved.set(false);
            leptos::task::spawn_local(async move {
                match invoke::<cmd::ProviderConfigure>(&params).await {
                    Ok(info) => {
                        // The secret went to the keychain: clear what was typed.
                        inputs.with_value(|inputs| {
                            for (field, value) in inputs {
                                if field.secret {
                                    value.set(String::new());
                                }
                            }
                        });
                        current.set(info.clone());
                        on_changed.run(info);
                        error.set(None);
                        saved.set(true);
                    }
                    Err(e) => error.set(Some(e)),
                }
                busy.set(false);
            });
        }
    };
    let save_on_change = {
        let save = save.clone();
        // A provider that is not saved yet waits for Save: half-filled forms
        // would only produce errors.
        move || {
            if current.get_untracked().configured {
                save(true);
            }
        }
    };
    let save_enablement = {
        let save = save.clone();
        move |next: ModelEnablement| {
            enablement.set(next);
            if current.get_untracked().configured {
                save(false);
            }
        }
    };
    let test = {
        let id = id.clone();
        move || {
            let params = ProviderIdParams { id: id.clone() };
            busy.set(true);
            leptos::task::spawn_local(async move {
                match invoke::<cmd::ProviderTest>(&params).await {
                    Ok(result) => {
                        current.update(|c| c.status = result.status.clone());
                        on_changed.run(current.get_untracked());
                        tested.set(Some((result.status, result.models)));
                        error.set(None);
                    }
                    Err(e) => error.set(Some(e)),
                }
                busy.set(false);
            });
        }
    };
    let remove = {
        let id = id.clone();
        move || {
            let params = ProviderIdParams { id: id.clone() };
            leptos::task::spawn_local(async move {
                match invoke::<cmd::ProviderRemove>(&params).await {
                    Ok(list) => {
                        if let Some(info) = list.providers.iter().find(|p| p.id == params.id) {
                            current.set(info.clone());
                        }
                        tested.set(None);
                        confirm_remove.set(false);
                        on_list.run(list.providers);
                        error.set(None);
                    }
                    Err(e) => error.set(Some(e)),
                }
            });
        }
    };

    let field_views = inputs.with_value(|inputs| {
        inputs
            .iter()
            .map(|(field, value)| field_view(field, *value, &current, save_on_change.clone()))
            .collect_view()
    });
    let test_for_retry = test.clone();
    let save_submit = save.clone();
    let save_all = save_enablement.clone();
    let save_selected = save_enablement.clone();

    view! {
        <form
            class="provider-form"
            data-testid=format!("provider-form-{id}")
            on:submit=move |ev| {
                ev.prevent_default();
                save_submit(true);
            }
        >
            <h2 class="provider-form__title">{info.name.clone()}</h2>
            {move || {
                let status = current.get().status;
                let retry = test_for_retry.clone();
                matches!(status, ProviderStatus::Degraded { .. } | ProviderStatus::Error { .. })
                    .then(|| view! {
                        <div class="banner banner--warning" role="status">
                            <span>{status_label(&status)}</span>
                            " "
                            <button type="button" class="button" data-testid="provider-retry" on:click=move |_| retry()>"Retry"</button>
                        </div>
                    })
            }}
            {field_views}
            <div class="provider-form__actions">
                <button type="submit" class="button button--primary" data-testid="provider-save" disabled=move || busy.get()>"Save"</button>
                <button
                    type="button"
                    class="button"
                    data-testid="provider-test"
                    disabled=move || busy.get() || !(current.get().configured || current.get().detected)
                    on:click={
                        let test = test.clone();
                        move |_| test()
                    }
                >
                    "Test"
                </button>
                <Show when=move || current.get().configured>
                    {
                        let remove = remove.clone();
                        move || if confirm_remove.get() {
                            let remove = remove.clone();
                            view! {
                                <button type="button" class="button button--danger" data-testid="provider-remove-confirm" on:click=move |_| remove()>"Remove — sure?"</button>
                                <button type="button" class="button" on:click=move |_| confirm_remove.set(false)>"Keep"</button>
                            }.into_any()
                        } else {
                            view! {
                                <button type="button" class="button" data-testid="provider-remove" on:click=move |_| confirm_remove.set(true)>"Remove"</button>
                            }.into_any()
                        }
                    }
                </Show>
                <Show when=move || saved.get()>
                    <span class="saved" role="status" data-testid="provider-saved">"Saved"</span>
                </Show>
            </div>
            <ErrorBanner error testid="provider-error" />
            {move || tested.get().map(|(status, models)| {
                let save_selected = save_selected.clone();
                view! {
                    <div class="provider-test" data-testid="provider-test-result" data-status=status_class(&status)>
                        <p>
                            <span class=format!("status-dot status-dot--{}", status_class(&status)) aria-hidden="true"></span>
                            {status_label(&status)}
                            {format!(" · {} models", models.len())}
                        </p>
                        <ul class="provider-models" role="list">
                            {models.into_iter().map(|m| {
                                let model_id = m.id.split_once(':').map(|(_, rest)| rest.to_owned()).unwrap_or_default();
                                let checked_id = model_id.clone();
                                let toggle_id = model_id.clone();
                                let save_selected = save_selected.clone();
                                view! {
                                    <li class="provider-models__item" data-testid=format!("provider-model-{model_id}")>
                                        <label>
                                            <input
                                                type="checkbox"
                                                data-testid=format!("enable-{model_id}")
                                                disabled=move || matches!(enablement.get(), ModelEnablement::All)
                                                prop:checked=move || enablement.get().allows(&checked_id)
                                                on:change=move |ev| {
                                                    let on = event_target_checked(&ev);
                                                    let mut models = match enablement.get_untracked() {
                                                        ModelEnablement::Selected { models } => models,
                                                        ModelEnablement::All => Vec::new(),
                                                    };
                                                    models.retain(|m| m != &toggle_id);
                                                    if on {
                                                        models.push(toggle_id.clone());
                                                    }
                                                    save_selected(ModelEnablement::Selected { models });
                                                }
                                            />
                                            " " {m.name}
                                            {m.context_window.map(|c| view! { <span class="muted">{format!(" · {c} tokens")}</span> })}
                                        </label>
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                    </div>
                }
            })}
            <fieldset class="field">
                <legend>"Models offered"</legend>
                <div class="segmented" role="radiogroup" aria-label="Models offered">
                    <button
                        type="button"
                        class="segmented__option"
                        role="radio"
                        data-testid="enablement-all"
                        aria-checked=move || matches!(enablement.get(), ModelEnablement::All).to_string()
                        on:click=move |_| save_all(ModelEnablement::All)
                    >
                        "All"
                    </button>
                    <button
                        type="button"
                        class="segmented__option"
                        role="radio"
                        data-testid="enablement-selected"
                        aria-checked=move || matches!(enablement.get(), ModelEnablement::Selected { .. }).to_string()
                        on:click=move |_| {
                            if matches!(enablement.get_untracked(), ModelEnablement::All) {
                                let all = tested
                                    .get_untracked()
                                    .map(|(_, models)| {
                                        models.iter().filter_map(|m| m.id.split_once(':').map(|(_, r)| r.to_owned())).collect()
                                    })
                                    .unwrap_or_default();
                                save_enablement(ModelEnablement::Selected { models: all });
                            }
                        }
                    >
                        "Selected"
                    </button>
                </div>
                <p class="hint muted">"Test the provider to list its models and pick the ones the model picker offers."</p>
            </fieldset>
        </form>
    }
}

fn field_view<F>(
    field: &AuthField,
    value: RwSignal<String>,
    current: &RwSignal<ProviderInfo>,
    save: F,
) -> AnyView
where
    F: Fn() + Clone + Send + Sync + 'static,
{
    let key = field.key.clone();
    let testid = format!("provider-field-{key}");
    let label = if field.required {
        format!("{} *", field.label)
    } else {
        field.label.clone()
    };
    let current = *current;
    match &field.kind {
        AuthFieldKind::Select { options } => {
            let options = options.clone();
            view! {
                <label class="field provider-field">
                    <span class="provider-field__label">{label}</span>
                    <select
                        class="input"
                        data-testid=testid
                        on:change=move |ev| {
                            value.set(event_target_value(&ev));
                            save();
                        }
                    >
                        {options
                            .into_iter()
                            .map(|o| {
                                let is = o.clone();
                                let text = o.clone();
                                view! { <option value=o selected=move || value.get() == is>{text}</option> }
                            })
                            .collect_view()}
                    </select>
                </label>
            }
            .into_any()
        }
        AuthFieldKind::Text | AuthFieldKind::Password => {
            let secret = field.secret;
            let default = field.default.clone().unwrap_or_default();
            let placeholder = move || {
                if !secret {
                    return default.clone();
                }
                let info = current.get();
                let f = info.fields.iter().find(|f| f.key == key);
                match f {
                    Some(AuthField {
                        env_ref: Some(var), ..
                    }) => format!("from {var} — leave blank to keep"),
                    Some(AuthField { stored: true, .. }) => STORED_PLACEHOLDER.to_owned(),
                    _ => "Not set — or ${ENV_VAR}".to_owned(),
                }
            };
            view! {
                <label class="field provider-field">
                    <span class="provider-field__label">{label}</span>
                    <input
                        class="input"
                        type=if secret { "password" } else { "text" }
                        autocomplete="off"
                        spellcheck="false"
                        data-testid=testid
                        placeholder=placeholder
                        prop:value=move || value.get()
                        on:input=move |ev| value.set(event_target_value(&ev))
                        on:change=move |_| save()
                    />
                </label>
            }
            .into_any()
        }
    }
}

/// The default model: "Automatic (recommended)" or a chosen model.
#[component]
fn DefaultModel(reload: RwSignal<u32>) -> impl IntoView {
    let current = RwSignal::new(ModelDefault::default());
    let error = RwSignal::new(None::<ApiError>);
    let saved = RwSignal::new(false);
    Effect::new(move |_| {
        reload.track();
        leptos::task::spawn_local(async move {
            match invoke::<cmd::ModelDefaultGet>(&ModelDefaultGetParams {}).await {
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
