//! "Import…": conversations from a file (a Pizza Bot JSON Lines export, a
//! ChatGPT or Claude.ai `conversations.json`) as threads. The native open
//! dialog picks the file, a preview says what it holds, and Import brings it
//! all in; the first imported thread then opens.

use super::state::{Inbox, use_inbox};
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{
    ImportFormat, ThreadImportChooseParams, ThreadImportParams, ThreadImportPreview, cmd,
};

/// How many conversations the preview lists by name.
const LISTED: usize = 8;

/// What the import is doing; lives with the sidebar's button.
#[derive(Clone, Copy)]
struct ImportState {
    /// The file chosen and what it holds, while the preview is open.
    pending: RwSignal<Option<ThreadImportPreview>>,
    /// Why the preview or the import failed.
    error: RwSignal<Option<String>>,
    busy: RwSignal<bool>,
    /// What the last import brought in, until dismissed.
    done: RwSignal<Option<String>>,
}

fn format_label(format: ImportFormat) -> &'static str {
    match format {
        ImportFormat::PizzaBotJsonl => "Pizza Bot thread (JSON Lines)",
        ImportFormat::Chatgpt => "ChatGPT export",
        ImportFormat::Claude => "Claude export",
    }
}

fn conversations(n: u64) -> String {
    match n {
        1 => String::from("1 conversation"),
        n => format!("{n} conversations"),
    }
}

fn day(ms: i64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64));
    String::from(date.to_locale_date_string("default", &wasm_bindgen::JsValue::UNDEFINED))
}

/// The native dialog, then the preview of the chosen file.
fn choose(state: ImportState) {
    if state.busy.get_untracked() {
        return;
    }
    state.done.set(None);
    state.busy.set(true);
    leptos::task::spawn_local(async move {
        let chosen = invoke::<cmd::ThreadImportChoose>(&ThreadImportChooseParams {}).await;
        let result = match chosen {
            Ok(Some(path)) => invoke::<cmd::ThreadImportPreview>(&ThreadImportParams { path })
                .await
                .map(Some),
            // Cancelled: nothing to say.
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        };
        match result {
            Ok(preview) => {
                state.error.set(None);
                state.pending.set(preview);
            }
            Err(e) => {
                state.pending.set(None);
                state.error.set(Some(e.message));
            }
        }
        state.busy.set(false);
    });
}

/// Imports the previewed file, then opens its first thread.
fn confirm(state: ImportState, inbox: Inbox) {
    let Some(preview) = state.pending.get_untracked() else {
        return;
    };
    if state.busy.get_untracked() {
        return;
    }
    state.busy.set(true);
    state.error.set(None);
    leptos::task::spawn_local(async move {
        let params = ThreadImportParams { path: preview.path };
        match invoke::<cmd::ThreadImport>(&params).await {
            Ok(threads) => {
                state.pending.set(None);
                state.done.set(Some(format!(
                    "Imported {}.",
                    conversations(threads.len() as u64)
                )));
                inbox.search.set(None);
                inbox.changed();
                if let Some(first) = threads.into_iter().next() {
                    inbox.open(first.id, None);
                }
            }
            // The preview stays open with the reason; nothing was imported.
            Err(e) => state.error.set(Some(e.message)),
        }
        state.busy.set(false);
    });
}

/// The sidebar's "Import…" button, what it reports, and its preview dialog.
#[component]
pub(crate) fn ImportButton() -> impl IntoView {
    let inbox = use_inbox();
    let state = ImportState {
        pending: RwSignal::new(None),
        error: RwSignal::new(None),
        busy: RwSignal::new(false),
        done: RwSignal::new(None),
    };
    view! {
        <button class="button" data-testid="import-threads" title="Import conversations from a file"
            disabled=move || state.busy.get() && state.pending.get().is_none()
            on:click=move |_| choose(state)>
            "Import…"
        </button>
        {move || state.done.get().map(|message| view! {
            <p class="import-notice" role="status" data-testid="import-done">
                <span>{message}</span>
                <button class="link" aria-label="Dismiss" on:click=move |_| state.done.set(None)>"×"</button>
            </p>
        })}
        {move || match (state.pending.get(), state.error.get()) {
            // A failure with no preview open (the file could not be read).
            (None, Some(message)) => Some(view! {
                <p class="banner banner--error import-notice" role="alert" data-testid="import-error">
                    <span>{message}</span>
                    <button class="link" on:click=move |_| state.error.set(None)>"Dismiss"</button>
                </p>
            }.into_any()),
            (Some(preview), _) => Some(view! { <ImportDialog preview state inbox /> }.into_any()),
            (None, None) => None,
        }}
    }
}

#[component]
fn ImportDialog(preview: ThreadImportPreview, state: ImportState, inbox: Inbox) -> impl IntoView {
    let confirm_button = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(button) = confirm_button.get() {
            let _ = button.focus();
        }
    });
    let close = move || {
        state.pending.set(None);
        state.error.set(None);
    };
    let count = preview.count;
    let more = count.saturating_sub(LISTED as u64);
    let rows = preview
        .conversations
        .iter()
        .take(LISTED)
        .map(|c| {
            let messages = match c.messages {
                1 => String::from("1 message"),
                n => format!("{n} messages"),
            };
            view! {
                <li class="import-list__row">
                    <span class="import-list__title">{c.title.clone()}</span>
                    <span class="muted import-list__meta">{format!("{} · {messages}", day(c.updated_at))}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <div class="overlay import-overlay" role="dialog" aria-modal="true" aria-labelledby="import-title"
            on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); close() }>
            <div class="overlay__card import-dialog" data-testid="import-dialog">
                <h2 id="import-title">"Import conversations"</h2>
                <p class="muted import-dialog__source">
                    <span data-testid="import-format">{format_label(preview.format)}</span>
                    " · "
                    <span class="mono">{preview.path.clone()}</span>
                </p>
                <p data-testid="import-count">{format!("{} to import as threads.", conversations(count))}</p>
                <ul class="import-list" role="list" data-testid="import-list">{rows}</ul>
                {(more > 0).then(|| view! { <p class="muted">{format!("and {more} more")}</p> })}
                {move || state.error.get().map(|message| view! {
                    <p class="banner banner--error" role="alert" data-testid="import-error">{message}</p>
                })}
                <div class="overlay__buttons">
                    <button class="button" data-testid="import-cancel" on:click=move |_| close()>"Cancel"</button>
                    <button class="button button--primary" data-testid="import-confirm" node_ref=confirm_button
                        disabled=move || state.busy.get()
                        on:click=move |_| confirm(state, inbox)>
                        {match count {
                            1 => String::from("Import 1 conversation"),
                            n => format!("Import {n} conversations"),
                        }}
                    </button>
                </div>
            </div>
        </div>
    }
}
