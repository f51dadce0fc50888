//! The add/edit form on the right: id, transport, the command line (stdio)
//! or URL (HTTP, SSE), env variables or headers. Enter saves, Escape
//! closes; a refusal shows beside the field its message names and nothing
//! typed is lost.

use super::form_model::{ServerDraft, field_of, transport_label, transport_of, transport_value};
use super::rows::{KeyValueRows, Rows};
use super::state::use_mcp;
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{McpServerSaveParams, McpServerView, McpTransportKind, cmd};

/// A refused save: the field it names (when it names one of the form's) and
/// the host's sentence.
type SaveError = (Option<&'static str>, String);

/// The add form, or the edit form of the server `id` (read from the list).
#[component]
pub(crate) fn ServerEditor(id: Option<String>) -> impl IntoView {
    let state = use_mcp();
    let existing = id.and_then(|id| state.server(&id));
    view! { <ServerForm existing /> }
}

#[component]
fn ServerForm(existing: Option<McpServerView>) -> impl IntoView {
    let state = use_mcp();
    let is_new = existing.is_none();
    let previous_id = existing.as_ref().map(|s| s.id.clone());
    let draft = existing
        .as_ref()
        .map(ServerDraft::of_saved)
        .unwrap_or_default();
    let enabled = draft.enabled;
    let id = RwSignal::new(draft.id);
    let transport = RwSignal::new(draft.transport);
    let command = RwSignal::new(draft.command);
    let args = RwSignal::new(draft.args);
    let cwd = RwSignal::new(draft.cwd);
    let url = RwSignal::new(draft.url);
    let env = Rows::new(draft.env);
    let headers = Rows::new(draft.headers);
    let error = RwSignal::new(None::<SaveError>);
    let saved = RwSignal::new(false);
    let saving = RwSignal::new(false);
    let edited = Callback::new(move |()| saved.set(false));
    let invalid = move |field: &'static str| {
        error.with(|e| e.as_ref().is_some_and(|(f, _)| *f == Some(field)))
    };
    // The message beside its field.
    let error_for = move |field: &'static str| {
        move || {
            error.get().and_then(|(f, message)| {
                (f == Some(field)).then(|| view! {
                    <p class="field__error" role="alert" data-testid="mcp-form-error" data-field=field>{message}</p>
                })
            })
        }
    };

    let id_input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = id_input.get() {
            let _ = input.focus();
        }
    });

    let save = move || {
        if saving.get_untracked() {
            return;
        }
        let typed = ServerDraft {
            id: id.get_untracked(),
            transport: transport.get_untracked(),
            command: command.get_untracked(),
            args: args.get_untracked(),
            cwd: cwd.get_untracked(),
            url: url.get_untracked(),
            env: env.drafts(),
            headers: headers.drafts(),
            enabled,
        };
        let new_id = typed.id.trim().to_owned();
        let params = McpServerSaveParams {
            previous_id: previous_id.clone().filter(|p| *p != new_id),
            id: new_id,
            entry: typed.to_entry(),
        };
        saving.set(true);
        leptos::task::spawn_local(async move {
            match invoke::<cmd::McpServerSave>(&params).await {
                Ok(view) => {
                    let id = view.id.clone();
                    if let Some(old) = &params.previous_id {
                        state.servers.update(|list| list.retain(|s| s.id != *old));
                    }
                    state.upsert(view);
                    state.changed();
                    state.notice.set(Some((
                        true,
                        format!("Saved “{id}”. It connects in the background."),
                    )));
                    state.editing.set(None);
                }
                Err(e) => {
                    let _ = error.try_set(Some((field_of(&e.message), e.message)));
                }
            }
            let _ = saving.try_set(false);
        });
    };
    let save = StoredValue::new(save);
    let close = move || state.editing.set(None);
    let is_stdio = move || transport.get() == McpTransportKind::Stdio;

    view! {
        <form class="editor form mcp-editor" data-testid="mcp-form"
            on:submit=move |ev| { ev.prevent_default(); save.with_value(|save| save()) }
            on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); close() }>
            <h2>{if is_new { "Add an MCP server" } else { "Edit MCP server" }}</h2>
            {is_new.then(|| view! { <super::import::EditorTabs paste=false /> })}
            <div class="field">
                <label class="field__label" for="mcp-form-id">"Name"</label>
                <input id="mcp-form-id" class="input mono" data-testid="mcp-form-id" spellcheck="false" autocomplete="off"
                    node_ref=id_input placeholder="files" aria-invalid=move || invalid("id")
                    prop:value=move || id.get()
                    on:input=move |ev| { id.set(event_target_value(&ev)); edited.run(()) } />
                <p class="hint muted">"Its tools reach the model as "<span class="mono">"name__tool"</span>"."</p>
                {error_for("id")}
            </div>
            <div class="field">
                <label class="field__label" for="mcp-form-transport">"Transport"</label>
                <select id="mcp-form-transport" class="input" data-testid="mcp-form-transport"
                    aria-invalid=move || invalid("transport")
                    prop:value=move || transport_value(transport.get())
                    on:change=move |ev| { transport.set(transport_of(&event_target_value(&ev))); edited.run(()) }>
                    {[McpTransportKind::Stdio, McpTransportKind::Http, McpTransportKind::Sse].into_iter().map(|kind| view! {
                        <option value=transport_value(kind) selected=move || transport.get() == kind>
                            {match kind {
                                McpTransportKind::Stdio => "stdio — a program on this computer",
                                McpTransportKind::Http => "HTTP — a server at a URL",
                                McpTransportKind::Sse => "SSE — an older HTTP server",
                            }}
                        </option>
                    }).collect_view()}
                </select>
                {error_for("transport")}
            </div>
            <Show when=is_stdio>
                <div class="field">
                    <label class="field__label" for="mcp-form-command">"Command"</label>
                    <input id="mcp-form-command" class="input mono" data-testid="mcp-form-command" spellcheck="false" autocomplete="off"
                        placeholder="npx" aria-invalid=move || invalid("command")
                        prop:value=move || command.get()
                        on:input=move |ev| { command.set(event_target_value(&ev)); edited.run(()) } />
                    {error_for("command")}
                </div>
                <div class="field">
                    <label class="field__label" for="mcp-form-args">"Arguments"</label>
                    <textarea id="mcp-form-args" class="input input--multiline mono" rows="3" spellcheck="false" data-testid="mcp-form-args"
                        placeholder="-y\n@modelcontextprotocol/server-filesystem" aria-invalid=move || invalid("args")
                        prop:value=move || args.get()
                        on:input=move |ev| { args.set(event_target_value(&ev)); edited.run(()) }
                        on:keydown=move |ev| if ev.key() == "Enter" && crate::keys::primary(&ev) {
                            ev.prevent_default();
                            save.with_value(|save| save());
                        }></textarea>
                    <p class="hint muted">"One per line. Ctrl+Enter saves."</p>
                    {error_for("args")}
                </div>
                <div class="field">
                    <label class="field__label" for="mcp-form-cwd">"Working folder (optional)"</label>
                    <input id="mcp-form-cwd" class="input mono" data-testid="mcp-form-cwd" spellcheck="false" autocomplete="off"
                        aria-invalid=move || invalid("cwd")
                        prop:value=move || cwd.get()
                        on:input=move |ev| { cwd.set(event_target_value(&ev)); edited.run(()) } />
                    {error_for("cwd")}
                </div>
                <KeyValueRows rows=env kind="env" legend="Environment variables"
                    hint="Values are never shown again once saved; secret ones go to the system keychain."
                    name_placeholder="API_TOKEN" invalid=Signal::derive(move || invalid("env")) edited />
                {error_for("env")}
            </Show>
            <Show when=move || !is_stdio()>
                <div class="field">
                    <label class="field__label" for="mcp-form-url">"URL"</label>
                    <input id="mcp-form-url" class="input mono" data-testid="mcp-form-url" spellcheck="false" autocomplete="off"
                        type="url" placeholder="https://example.com/mcp" aria-invalid=move || invalid("url")
                        prop:value=move || url.get()
                        on:input=move |ev| { url.set(event_target_value(&ev)); edited.run(()) } />
                    {error_for("url")}
                </div>
                <KeyValueRows rows=headers kind="headers" legend="Headers"
                    hint="Values are never shown again once saved; secret ones go to the system keychain."
                    name_placeholder="Authorization" invalid=Signal::derive(move || invalid("headers")) edited />
                {error_for("headers")}
            </Show>
            {move || error.get().and_then(|(field, message)| field.is_none().then(|| view! {
                <p class="banner banner--error" role="alert" data-testid="mcp-form-error" data-field="">{message}</p>
            }))}
            <div class="editor__actions">
                <button type="button" class="button" data-testid="mcp-form-cancel" on:click=move |_| close()>"Close"</button>
                <button type="submit" class="button button--primary" data-testid="mcp-form-save" disabled=move || saving.get()>
                    {if is_new { "Add" } else { "Save" }}
                </button>
            </div>
            {existing.as_ref().map(|s| view! {
                <p class="hint muted">{format!("Now: {} · {}", transport_label(s.transport), super::status::sentence(s))}</p>
            })}
        </form>
    }
}
