//! Servers the person runs: the ones found answering on this machine
//! (Ollama, llama.cpp, LM Studio) with one-click Add, and "Add a compatible
//! server" for any other OpenAI-compatible endpoint (vLLM, a gateway).

use super::ErrorBanner;
use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{
    ApiError, LocalServer, LocalServerKind, ProviderAddParams, ProviderConfigureParams,
    ProviderDiscoverParams, cmd,
};
use std::collections::BTreeMap;

fn kind_key(kind: LocalServerKind) -> &'static str {
    match kind {
        LocalServerKind::Ollama => "ollama",
        LocalServerKind::LlamaCpp => "llama_cpp",
        LocalServerKind::LmStudio => "lm_studio",
    }
}

/// Ollama is the built-in `ollama` provider; the others become compatible
/// servers under their own names. Answers the new provider's id.
async fn add_found(server: LocalServer) -> Result<String, ApiError> {
    match server.kind {
        LocalServerKind::Ollama => {
            let params = ProviderConfigureParams {
                id: "ollama".to_owned(),
                fields: BTreeMap::from([("base_url".to_owned(), server.base_url)]),
                enablement: None,
            };
            Ok(invoke::<cmd::ProviderConfigure>(&params).await?.id)
        }
        _ => {
            let params = ProviderAddParams {
                name: server.name,
                base_url: server.base_url,
                api_key: String::new(),
            };
            Ok(invoke::<cmd::ProviderAdd>(&params).await?.id)
        }
    }
}

/// "Found on this machine": looked for when the screen opens (and on
/// "Look again"), never while the app starts.
#[component]
pub(super) fn FoundOnMachine(on_added: Callback<String>, reload: RwSignal<u32>) -> impl IntoView {
    let servers = RwSignal::new(None::<Vec<LocalServer>>);
    let error = RwSignal::new(None::<ApiError>);
    let looking = RwSignal::new(false);
    let asked = Latest::new();
    let look = move || {
        looking.set(true);
        let ticket = asked.ask();
        leptos::task::spawn_local(async move {
            let answer = invoke::<cmd::ProviderDiscover>(&ProviderDiscoverParams {}).await;
            if !ticket.is_newest() {
                return;
            }
            match answer {
                Ok(list) => {
                    servers.set(Some(list.servers));
                    error.set(None);
                }
                Err(e) => error.set(Some(e)),
            }
            looking.set(false);
        });
    };
    // Again whenever providers changed: an added server then shows as added.
    Effect::new(move |_| {
        reload.track();
        look();
    });
    let add = move |server: LocalServer| {
        leptos::task::spawn_local(async move {
            match add_found(server).await {
                Ok(id) => {
                    error.set(None);
                    on_added.run(id);
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    view! {
        <section class="found" aria-labelledby="found-title" data-testid="found-servers">
            <h2 id="found-title" class="found__title">"Found on this machine"</h2>
            {move || match servers.get() {
                None => view! { <p class="hint muted">"Looking for Ollama, llama.cpp and LM Studio…"</p> }.into_any(),
                Some(list) if list.is_empty() => view! {
                    <p class="hint muted" data-testid="found-none">
                        "No Ollama, llama.cpp or LM Studio server answered on this machine. "
                        <button type="button" class="button button--small" disabled=move || looking.get() on:click=move |_| look()>"Look again"</button>
                    </p>
                }.into_any(),
                Some(list) => view! {
                    <ul class="found__list" role="list">
                        {list.into_iter().map(|server| {
                            let key = kind_key(server.kind);
                            let models = match server.models.len() {
                                1 => "1 model".to_owned(),
                                n => format!("{n} models"),
                            };
                            let detail = format!("{} · {models}", server.base_url);
                            let action = match server.provider_id.clone() {
                                Some(_) => view! {
                                    <span class="muted" data-testid=format!("found-added-{key}")>"Added"</span>
                                }.into_any(),
                                None => {
                                    let server = server.clone();
                                    view! {
                                        <button
                                            type="button"
                                            class="button button--small"
                                            data-testid=format!("found-add-{key}")
                                            aria-label=format!("Add {}", server.name)
                                            on:click=move |_| add(server.clone())
                                        >
                                            "Add"
                                        </button>
                                    }.into_any()
                                }
                            };
                            view! {
                                <li class="found__item" data-testid=format!("found-{key}")>
                                    <span class="status-dot status-dot--ready" aria-hidden="true"></span>
                                    <span class="providers__name">{server.name.clone()}</span>
                                    <span class="muted found__detail">{detail}</span>
                                    {action}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }.into_any(),
            }}
            <ErrorBanner error testid="found-error" />
        </section>
    }
}

/// "Add a compatible server": a name, a base URL and an optional key make a
/// provider of its own.
#[component]
pub(super) fn AddCompatible(on_added: Callback<String>) -> impl IntoView {
    let open = RwSignal::new(false);
    let name = RwSignal::new(String::new());
    let base_url = RwSignal::new(String::new());
    let api_key = RwSignal::new(String::new());
    let error = RwSignal::new(None::<ApiError>);
    let busy = RwSignal::new(false);
    let name_ref = NodeRef::<leptos::html::Input>::new();
    let submit = move || {
        let params = ProviderAddParams {
            name: name.get_untracked(),
            base_url: base_url.get_untracked(),
            api_key: api_key.get_untracked(),
        };
        busy.set(true);
        leptos::task::spawn_local(async move {
            match invoke::<cmd::ProviderAdd>(&params).await {
                Ok(info) => {
                    // Only a success clears what was typed.
                    for field in [name, base_url, api_key] {
                        field.set(String::new());
                    }
                    error.set(None);
                    open.set(false);
                    on_added.run(info.id);
                }
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    view! {
        <div class="compatible-add">
            <Show
                when=move || open.get()
                fallback=move || view! {
                    <button
                        type="button"
                        class="button"
                        data-testid="compatible-add-open"
                        on:click=move |_| {
                            open.set(true);
                            request_animation_frame(move || {
                                if let Some(input) = name_ref.get_untracked() {
                                    let _ = input.focus();
                                }
                            });
                        }
                    >
                        "Add a compatible server"
                    </button>
                }
            >
                <form
                    class="provider-form"
                    data-testid="compatible-add-form"
                    on:submit=move |ev| {
                        ev.prevent_default();
                        submit();
                    }
                >
                    <h2 class="provider-form__title">"Add an OpenAI-compatible server"</h2>
                    <p class="hint muted">"LM Studio, a llama.cpp server, vLLM or a company gateway: each gets its own models and status."</p>
                    <label class="field provider-field">
                        <span class="provider-field__label">"Name *"</span>
                        <input class="input" type="text" autocomplete="off" data-testid="compatible-name" placeholder="vLLM on the GPU box"
                            node_ref=name_ref
                            prop:value=move || name.get()
                            on:input=move |ev| name.set(event_target_value(&ev)) />
                    </label>
                    <label class="field provider-field">
                        <span class="provider-field__label">"Base URL *"</span>
                        <input class="input" type="text" autocomplete="off" spellcheck="false" data-testid="compatible-base-url" placeholder="http://127.0.0.1:8000/v1"
                            prop:value=move || base_url.get()
                            on:input=move |ev| base_url.set(event_target_value(&ev)) />
                    </label>
                    <label class="field provider-field">
                        <span class="provider-field__label">"API key"</span>
                        <input class="input" type="password" autocomplete="off" data-testid="compatible-api-key" placeholder="Not needed by most local servers — or ${ENV_VAR}"
                            prop:value=move || api_key.get()
                            on:input=move |ev| api_key.set(event_target_value(&ev)) />
                    </label>
                    <div class="provider-form__actions">
                        <button type="submit" class="button button--primary" data-testid="compatible-add-submit" disabled=move || busy.get()>"Add server"</button>
                        <button type="button" class="button" on:click=move |_| { open.set(false); error.set(None); }>"Cancel"</button>
                    </div>
                    <ErrorBanner error testid="compatible-add-error" />
                </form>
            </Show>
        </div>
    }
}
