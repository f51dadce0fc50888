//! The model picker: a native `<select>` of the enabled models, grouped by
//! provider, optionally led by an "Automatic" entry. The settings screen
//! uses it for the default model; the composer will use it per thread.

use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{ModelInfo, ModelListParams, cmd};

/// `selected`: the current `provider:model` (`None`: automatic).
/// `automatic`: the label of the "no choice" entry; without it the picker
/// always names a model. `reload`: bump it to list the models again.
#[component]
pub(crate) fn ModelPicker(
    #[prop(into)] selected: Signal<Option<String>>,
    #[prop(into)] on_change: Callback<Option<String>>,
    #[prop(optional, into)] automatic: Option<String>,
    #[prop(optional, into)] reload: Option<Signal<u32>>,
    #[prop(default = "model-picker")] testid: &'static str,
) -> impl IntoView {
    let models = RwSignal::new(Vec::<ModelInfo>::new());
    // Provider id → its display name ("compatible:lab" → "Lab gateway").
    let names = RwSignal::new(Vec::<(String, String)>::new());
    let failed = RwSignal::new(None::<String>);
    let asked = Latest::new();
    Effect::new(move |_| {
        if let Some(reload) = reload {
            reload.track();
        }
        let ticket = asked.ask();
        leptos::task::spawn_local(async move {
            let answer = invoke::<cmd::ModelList>(&ModelListParams::default()).await;
            if !ticket.is_newest() {
                return;
            }
            match answer {
                Ok(list) => {
                    models.set(list.models);
                    names.set(list.providers.into_iter().map(|p| (p.id, p.name)).collect());
                    failed.set(None);
                }
                Err(error) => failed.set(Some(error.message)),
            }
        });
    });
    let has_automatic = automatic.is_some();
    let groups = move || {
        let mut groups: Vec<(String, Vec<ModelInfo>)> = Vec::new();
        for model in models.get() {
            match groups.iter_mut().find(|(p, _)| *p == model.provider) {
                Some((_, list)) => list.push(model),
                None => groups.push((model.provider.clone(), vec![model])),
            }
        }
        let names = names.get();
        groups
            .into_iter()
            .map(|(id, list)| {
                let label = names
                    .iter()
                    .find(|(p, _)| *p == id)
                    .map_or(id, |(_, name)| name.clone());
                (label, list)
            })
            .collect::<Vec<_>>()
    };
    view! {
        <select
            class="model-picker"
            aria-label="Model"
            data-testid=testid
            on:change=move |ev| {
                let value = event_target_value(&ev);
                on_change.run(if value.is_empty() { None } else { Some(value) });
            }
        >
            {automatic.map(|label| view! {
                <option value="" selected=move || selected.get().is_none()>{label}</option>
            })}
            {move || {
                let current = selected.get();
                // A chosen model that is not listed right now (catalog
                // degraded, provider removed) stays visible and selected.
                let listed = current.as_ref().is_none_or(|c| models.get().iter().any(|m| &m.id == c));
                let missing = (!listed).then(|| current.clone()).flatten().map(|id| view! {
                    <option value=id.clone() selected=true>{format!("{id} (unavailable)")}</option>
                });
                let empty = (!has_automatic && current.is_none()).then(|| view! {
                    <option value="" selected=true disabled=true>"Choose a model"</option>
                });
                view! {
                    {empty}
                    {missing}
                    {groups()
                        .into_iter()
                        .map(|(provider, list)| {
                            let current = current.clone();
                            view! {
                                <optgroup label=provider>
                                    {list
                                        .into_iter()
                                        .map(|m| {
                                            let is_current = current.as_deref() == Some(m.id.as_str());
                                            view! { <option value=m.id.clone() selected=is_current>{m.name}</option> }
                                        })
                                        .collect_view()}
                                </optgroup>
                            }
                        })
                        .collect_view()}
                }
            }}
        </select>
        {move || failed.get().map(|message| view! { <p class="hint banner banner--error" role="alert">{message}</p> })}
    }
}
