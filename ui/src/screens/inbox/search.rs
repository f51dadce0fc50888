//! Sidebar search: results show the role and the highlighted snippet; opening
//! one scrolls to the message and flashes it.

use super::state::use_inbox;
use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{Role, SearchHit, ThreadSearchParams, cmd};

/// Typing pauses this long before a search runs.
const DEBOUNCE_MS: i32 = 180;

#[component]
pub(crate) fn SearchBox() -> impl IntoView {
    let inbox = use_inbox();
    let input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        inbox.focus_search.track();
        if inbox.focus_search.get_untracked() > 0
            && let Some(el) = input.get()
        {
            let _ = el.focus();
            el.select();
        }
    });
    view! {
        <input
            class="search"
            type="search"
            node_ref=input
            placeholder="Search messages  (Ctrl+F)"
            aria-label="Search messages"
            data-testid="search-input"
            prop:value=move || inbox.search.get().unwrap_or_default()
            on:input=move |ev| {
                let value = event_target_value(&ev);
                inbox.search.set(if value.is_empty() { None } else { Some(value) });
            }
            on:keydown=move |ev| if ev.key() == "Escape" {
                inbox.search.set(None);
                if let Some(el) = input.get() { let _ = el.blur(); }
            }
        />
    }
}

#[component]
pub(crate) fn SearchResults() -> impl IntoView {
    let inbox = use_inbox();
    let hits = RwSignal::new(Vec::<SearchHit>::new());
    let message = RwSignal::new(None::<String>);
    let asked = Latest::new();
    Effect::new(move |_| {
        let Some(q) = inbox.search.get() else { return };
        let ticket = asked.ask();
        leptos::task::spawn_local(async move {
            gloo_sleep(DEBOUNCE_MS).await;
            if !ticket.is_newest() || q.trim().is_empty() {
                return;
            }
            let result =
                invoke::<cmd::ThreadSearch>(&ThreadSearchParams { q, limit: Some(50) }).await;
            if !ticket.is_newest() {
                return;
            }
            match result {
                Ok(found) => {
                    message.set(found.is_empty().then(|| "No messages match.".to_owned()));
                    hits.set(found);
                }
                Err(error) => {
                    hits.set(Vec::new());
                    message.set(Some(error.message));
                }
            }
        });
    });
    view! {
        <div class="search-results" role="list" aria-label="Search results" data-testid="search-results">
            {move || message.get().map(|m| view! { <p class="sidebar__empty muted">{m}</p> })}
            {move || hits.get().into_iter().map(|hit| view! { <HitRow hit /> }).collect_view()}
        </div>
    }
}

#[component]
fn HitRow(hit: SearchHit) -> impl IntoView {
    let inbox = use_inbox();
    let role = match hit.role {
        Role::User => "You",
        Role::Assistant => "Pizza Bot",
        Role::Tool => "Tool",
        Role::System => "System",
    };
    let (thread_id, seq) = (hit.thread_id.clone(), hit.seq);
    view! {
        <button class="hit" role="listitem" data-testid="search-hit" on:click=move |_| inbox.open(thread_id.clone(), Some(seq))>
            <span class="hit__title">{hit.thread_title}</span>
            <span class="hit__meta muted">{role}</span>
            <span class="hit__snippet">
                {hit.snippet.into_iter().map(|part| if part.hit {
                    view! { <mark>{part.text}</mark> }.into_any()
                } else {
                    view! { <span>{part.text}</span> }.into_any()
                }).collect_view()}
            </span>
        </button>
    }
}

/// Resolves after `ms` milliseconds (a JS timer; no busy waiting).
pub(crate) async fn gloo_sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
