//! Imports: pasted JSON, a chosen file or Claude Desktop's configuration
//! are previewed first (nothing written), then the checked servers are
//! brought in. A server whose name is taken is flagged and left unchecked.

use super::state::{Editing, McpState, PendingImport, use_mcp};
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{
    McpImportCandidate, McpImportParams, McpImportSource, SkillImportChooseParams, cmd,
};
use std::collections::BTreeSet;

/// Asks the host what `source` would bring in and shows it; `on_error`
/// gets the sentence when it cannot.
fn preview(state: McpState, source: McpImportSource, on_error: impl Fn(String) + 'static) {
    leptos::task::spawn_local(async move {
        match invoke::<cmd::McpImportPreview>(&source).await {
            Ok(preview) => state.import.set(Some(PendingImport { source, preview })),
            Err(e) => on_error(e.message),
        }
    });
}

fn notice_error(state: McpState) -> impl Fn(String) + 'static {
    move |message| {
        state
            .notice
            .set(Some((false, format!("Nothing to import. {message}"))));
    }
}

/// "Import from Claude Desktop".
pub(crate) fn from_claude_desktop(state: McpState) {
    let source = McpImportSource {
        claude_desktop: true,
        ..McpImportSource::default()
    };
    preview(state, source, notice_error(state));
}

/// "Import a file…": the native dialog, then the preview of that file.
pub(crate) fn from_file(state: McpState) {
    leptos::task::spawn_local(async move {
        match invoke::<cmd::McpImportChoose>(&SkillImportChooseParams {}).await {
            Ok(Some(path)) => {
                let source = McpImportSource {
                    path: Some(path),
                    ..McpImportSource::default()
                };
                preview(state, source, notice_error(state));
            }
            // Cancelled: nothing to say.
            Ok(None) => {}
            Err(e) => state.notice.set(Some((false, e.message))),
        }
    });
}

/// Which candidates start checked: every one that replaces nothing.
pub(crate) fn default_picks(candidates: &[McpImportCandidate]) -> BTreeSet<String> {
    candidates
        .iter()
        .filter(|c| !c.clash)
        .map(|c| c.id.clone())
        .collect()
}

/// The switch between the add form and the "Paste JSON" tab.
#[component]
pub(crate) fn EditorTabs(paste: bool) -> impl IntoView {
    let state = use_mcp();
    view! {
        <div class="segmented mcp-editor__tabs" role="tablist" aria-label="How to add a server">
            <button type="button" role="tab" class="segmented__option"
                aria-selected=(!paste).to_string() data-testid="mcp-form-tab"
                on:click=move |_| state.editing.set(Some(Editing::New))>"Fill in"</button>
            <button type="button" role="tab" class="segmented__option"
                aria-selected=paste.to_string() data-testid="mcp-paste"
                on:click=move |_| state.editing.set(Some(Editing::Paste))>"Paste JSON"</button>
        </div>
    }
}

/// The "Paste JSON" tab: a whole `.mcp.json`, its `mcpServers` object, or
/// one entry with the id to give it.
#[component]
pub(crate) fn PasteJson() -> impl IntoView {
    let state = use_mcp();
    let json = RwSignal::new(String::new());
    let id = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let textarea = NodeRef::<leptos::html::Textarea>::new();
    Effect::new(move |_| {
        if let Some(input) = textarea.get() {
            let _ = input.focus();
        }
    });
    let submit = move || {
        let id = id.get_untracked().trim().to_owned();
        let source = McpImportSource {
            json: Some(json.get_untracked()),
            id: (!id.is_empty()).then_some(id),
            ..McpImportSource::default()
        };
        error.set(None);
        preview(state, source, move |message| {
            let _ = error.try_set(Some(message));
        });
    };
    view! {
        <form class="editor form mcp-editor" data-testid="mcp-paste-form"
            on:submit=move |ev| { ev.prevent_default(); submit() }
            on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); state.editing.set(None) }>
            <h2>"Add an MCP server"</h2>
            <EditorTabs paste=true />
            <div class="field">
                <label class="field__label" for="mcp-paste-json">"JSON"</label>
                <textarea id="mcp-paste-json" class="input input--multiline mono mcp-paste__json" rows="10" spellcheck="false"
                    data-testid="mcp-paste-json" node_ref=textarea
                    placeholder="{\"mcpServers\": {\"time\": {\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}}}"
                    aria-invalid=move || error.get().is_some()
                    prop:value=move || json.get()
                    on:input=move |ev| json.set(event_target_value(&ev))
                    on:keydown=move |ev| if ev.key() == "Enter" && crate::keys::primary(&ev) {
                        ev.prevent_default();
                        submit();
                    }></textarea>
                <p class="hint muted">"A whole .mcp.json, its mcpServers object, or one server’s entry. Ctrl+Enter previews."</p>
            </div>
            <div class="field">
                <label class="field__label" for="mcp-paste-id">"Name, for a single entry"</label>
                <input id="mcp-paste-id" class="input mono" data-testid="mcp-paste-id" spellcheck="false" autocomplete="off"
                    placeholder="time" prop:value=move || id.get()
                    on:input=move |ev| id.set(event_target_value(&ev)) />
            </div>
            {move || error.get().map(|message| view! {
                <p class="banner banner--error" role="alert" data-testid="mcp-paste-error">{message}</p>
            })}
            <div class="editor__actions">
                <button type="button" class="button" on:click=move |_| state.editing.set(None)>"Close"</button>
                <button type="submit" class="button button--primary" data-testid="mcp-paste-preview">"Preview"</button>
            </div>
        </form>
    }
}

/// What an import would bring in, each server with its box, and Import.
#[component]
pub(crate) fn ImportPreview(pending: PendingImport) -> impl IntoView {
    let state = use_mcp();
    let picks = RwSignal::new(default_picks(&pending.preview.candidates));
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let source = StoredValue::new(pending.source.clone());
    let confirm = move || {
        let ids: Vec<String> = picks.get_untracked().into_iter().collect();
        if ids.is_empty() || busy.get_untracked() {
            return;
        }
        let count = ids.len();
        let params = McpImportParams {
            source: source.get_value(),
            ids,
        };
        busy.set(true);
        leptos::task::spawn_local(async move {
            match invoke::<cmd::McpImport>(&params).await {
                Ok(list) => {
                    state.servers.set(list.servers);
                    state.config_error.set(list.config_error);
                    state.import.set(None);
                    if state.editing.get_untracked() == Some(Editing::Paste) {
                        state.editing.set(None);
                    }
                    state.notice.set(Some((
                        true,
                        match count {
                            1 => String::from("Imported 1 server. It connects in the background."),
                            n => format!("Imported {n} servers. They connect in the background."),
                        },
                    )));
                    state.changed();
                }
                Err(e) => {
                    let _ = error.try_set(Some(e.message));
                }
            }
            let _ = busy.try_set(false);
        });
    };
    let empty = pending.preview.candidates.is_empty();
    view! {
        <section class="mcp-import" data-testid="mcp-import-preview" aria-label="Import preview"
            on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); state.import.set(None) }>
            <h2 class="automations__heading">{format!("Import from {}", pending.preview.source)}</h2>
            {empty.then(|| view! { <p class="muted">"It has no MCP servers."</p> })}
            <ul class="mcp-import__list" role="list">
                {pending.preview.candidates.into_iter().map(|c| {
                    let id = c.id.clone();
                    let checked_id = c.id.clone();
                    view! {
                        <li class="mcp-import__row">
                            <label class="toggle">
                                <input type="checkbox" data-testid=format!("mcp-import-{}", c.id)
                                    prop:checked=move || picks.with(|p| p.contains(&checked_id))
                                    on:change=move |ev| {
                                        let on = event_target_checked(&ev);
                                        picks.update(|p| { if on { p.insert(id.clone()); } else { p.remove(&id); } });
                                    } />
                                <span class="mono">{c.id.clone()}</span>
                            </label>
                            <span class="badge">{super::form_model::transport_label(c.transport)}</span>
                            <span class="mono muted mcp-import__summary">{c.summary.clone()}</span>
                            {c.clash.then(|| view! {
                                <span class="mcp-import__clash" data-testid=format!("mcp-import-clash-{}", c.id)>
                                    "replaces your server of this name"
                                </span>
                            })}
                        </li>
                    }
                }).collect_view()}
            </ul>
            {move || error.get().map(|message| view! {
                <p class="banner banner--error" role="alert" data-testid="mcp-import-error">{message}</p>
            })}
            <div class="editor__actions">
                <button type="button" class="button" data-testid="mcp-import-cancel"
                    on:click=move |_| state.import.set(None)>"Cancel"</button>
                <button type="button" class="button button--primary" data-testid="mcp-import-confirm"
                    disabled=move || busy.get() || picks.with(BTreeSet::is_empty)
                    on:click=move |_| confirm()>
                    {move || match picks.with(BTreeSet::len) {
                        0 => String::from("Import"),
                        1 => String::from("Import 1 server"),
                        n => format!("Import {n} servers"),
                    }}
                </button>
            </div>
        </section>
    }
}
