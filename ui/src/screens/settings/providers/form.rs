//! One provider's form: its fields, Save / Test / Remove, the models it
//! lists and which of them the model picker offers.

use super::models::ModelRows;
use super::{ErrorBanner, status_class, status_label};
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{
    ApiError, AuthField, AuthFieldKind, ModelEnablement, ModelInfo, ProviderConfigureParams,
    ProviderIdParams, ProviderInfo, ProviderStatus, cmd, split_model_id,
};
use std::collections::BTreeMap;

const STORED_PLACEHOLDER: &str = "•••• stored — leave blank to keep";

/// One provider's form. Its own copy of the info is refreshed by every
/// save, so what the user is typing is never replaced mid-edit.
#[component]
pub(super) fn ProviderForm(
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
    // A configured provider lists its models as soon as its form opens.
    if info.configured {
        test.clone()();
    }
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
                    disabled=move || busy.get() || !current.get().configured
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
                                <button type="button" class="button button--danger" data-testid="provider-remove-confirm" on:click=move |_| remove()>
                                    {if current.get_untracked().compatible { "Remove this server — sure?" } else { "Remove — sure?" }}
                                </button>
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
                        <ModelRows
                            models
                            enablement
                            on_enablement=Callback::new(save_selected)
                            on_listed=Callback::new(move |models| {
                                tested.update(|t| if let Some((_, list)) = t { *list = models; });
                            })
                        />
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
                                        models.iter().filter_map(|m| split_model_id(&m.id).map(|(_, r)| r.to_owned())).collect()
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
