//! One MCP server on the page: a dot and a sentence for its status, how it
//! is reached (the command line or URL, env and header names with their
//! values redacted), its tools, the stderr tail folded away, and the actions
//! that fit its state — Reconnect, Make a skill, Mark reviewed, the switch,
//! Edit and Delete.

use super::form_model::transport_label;
use super::state::{Editing, McpState, use_mcp};
use super::status::{can_reconnect, dot_class, sentence, state_name};
use super::tools::{ToolList, review};
use crate::ipc::invoke;
use crate::screen::Screen;
use crate::screens::inbox::state::{ConfirmRequest, Inbox};
use crate::screens::skills::state::{Editing as SkillEditing, SkillsState};
use leptos::prelude::*;
use pizza_protocol::{
    McpKeyValue, McpServerIdParams, McpServerSetEnabledParams, McpServerView, McpStatus, cmd,
};

/// A card's own error line: (the wire code, the host's sentence). A
/// `RESOURCE_IN_USE` refusal says which skill needs the server.
type CardError = RwSignal<Option<(String, String)>>;

/// The command line as one would type it: arguments with spaces quoted.
pub(crate) fn command_line(server: &McpServerView) -> String {
    let mut words = vec![server.command.clone().unwrap_or_default()];
    words.extend(server.args.iter().map(|arg| {
        if arg.is_empty() || arg.contains(char::is_whitespace) {
            format!("\"{arg}\"")
        } else {
            arg.clone()
        }
    }));
    words.join(" ")
}

/// Runs `C` and puts the server it answers with into the list, or its
/// refusal on the card; a refused switch is put back as it was.
fn act<C>(
    state: McpState,
    params: C::Params,
    card_error: CardError,
    switch: Option<web_sys::HtmlInputElement>,
) where
    C: pizza_protocol::Command<Response = McpServerView>,
    C::Params: 'static,
{
    leptos::task::spawn_local(async move {
        match crate::ipc::invoke::<C>(&params).await {
            Ok(view) => {
                state.upsert(view);
                let _ = card_error.try_set(None);
            }
            Err(e) => {
                if let Some(input) = switch {
                    input.set_checked(!input.checked());
                }
                state.changed();
                let _ = card_error.try_set(Some((e.code.as_str().to_owned(), e.message)));
            }
        }
    });
}

fn make_skill(skills: SkillsState, screen: RwSignal<Screen>, id: String, card_error: CardError) {
    let params = McpServerIdParams { id };
    leptos::task::spawn_local(async move {
        match invoke::<cmd::McpSkillDraft>(&params).await {
            Ok(draft) => {
                skills.editing.set(Some(SkillEditing::Draft(draft)));
                screen.set(Screen::Skills);
            }
            Err(e) => {
                let _ = card_error.try_set(Some((e.code.as_str().to_owned(), e.message)));
            }
        }
    });
}

fn confirm_delete(inbox: Inbox, state: McpState, id: String, card_error: CardError) {
    inbox.ask(ConfirmRequest {
        title: "Delete this MCP server?".to_owned(),
        body: format!(
            "“{id}” is removed from your .mcp.json and its tools are gone. Secret values it kept in the keychain are deleted too."
        ),
        confirm_label: "Delete",
        on_confirm: std::rc::Rc::new(move || {
            let params = McpServerIdParams { id: id.clone() };
            leptos::task::spawn_local(async move {
                match invoke::<cmd::McpServerDelete>(&params).await {
                    Ok(()) => {
                        state.servers.update(|list| list.retain(|s| s.id != params.id));
                        if state.editing.get_untracked() == Some(Editing::Existing(params.id.clone())) {
                            state.editing.set(None);
                        }
                        state.notice.set(Some((true, format!("Deleted “{}”.", params.id))));
                        state.changed();
                    }
                    Err(e) => {
                        let _ = card_error.try_set(Some((e.code.as_str().to_owned(), e.message)));
                    }
                }
            });
        }),
    });
}

/// Env variables or headers: names only, the values redacted.
fn key_values(label: &'static str, items: &[McpKeyValue]) -> impl IntoView + use<> {
    (!items.is_empty()).then(|| {
        let items = items
            .iter()
            .map(|kv| {
                view! {
                    <li class="mono">
                        {kv.name.clone()} "=" <span class="muted">{kv.value.clone()}</span>
                        {kv.secret.then(|| view! { <span class="badge mcp-card__secret">"keychain"</span> })}
                    </li>
                }
            })
            .collect_view();
        view! {
            <div class="mcp-card__kv">
                <span class="muted">{label}</span>
                <ul class="mcp-card__kv-list" role="list">{items}</ul>
            </div>
        }
    })
}

#[component]
pub(crate) fn ServerCard(id: String) -> impl IntoView {
    let state = use_mcp();
    let inbox = expect_context::<Inbox>();
    let skills = expect_context::<SkillsState>();
    let screen = expect_context::<RwSignal<Screen>>();
    let lookup = id.clone();
    let server = crate::leaving::memo(move |_| {
        state
            .servers
            .with(|list| list.iter().find(|s| s.id == lookup).cloned())
    });
    let card_error: CardError = RwSignal::new(None);
    let editing_me = {
        let id = id.clone();
        move || state.editing.get() == Some(Editing::Existing(id.clone()))
    };

    let body = move |s: McpServerView| {
        let id = s.id.clone();
        let reachable = match &s.url {
            Some(url) => url.clone(),
            None => command_line(&s),
        };
        let drifted = s.tools.iter().any(|t| t.changed.is_some());
        let connected = s.status.is_connected();
        let stderr = (!s.stderr.is_empty()).then(|| {
            let text = s.stderr.join("\n");
            view! {
                <details class="mcp-card__stderr" data-testid=format!("mcp-stderr-{id}")>
                    <summary class="muted">{match s.stderr.len() {
                        1 => String::from("Error output (1 line)"),
                        n => format!("Error output ({n} lines)"),
                    }}</summary>
                    <pre class="mono mcp-card__stderr-text">{text}</pre>
                </details>
            }
        });
        let actions = {
            let (reconnect_id, skill_id, review_id, edit_id, delete_id, enable_id) = (
                id.clone(),
                id.clone(),
                id.clone(),
                id.clone(),
                id.clone(),
                id.clone(),
            );
            let enabled = s.enabled;
            let reconnect = move |id: String| {
                act::<cmd::McpServerReconnect>(state, McpServerIdParams { id }, card_error, None);
            };
            let set_enabled = move |id: String, ev: leptos::ev::Event| {
                let input = event_target::<web_sys::HtmlInputElement>(&ev);
                let enabled = input.checked();
                act::<cmd::McpServerSetEnabled>(
                    state,
                    McpServerSetEnabledParams { id, enabled },
                    card_error,
                    Some(input),
                );
            };
            view! {
                <div class="mcp-card__actions">
                    {can_reconnect(&s.status).then(|| view! {
                        <button type="button" class="button button--primary" data-testid=format!("mcp-reconnect-{id}")
                            on:click=move |_| reconnect(reconnect_id.clone())>
                            "Reconnect"
                        </button>
                    })}
                    {connected.then(|| view! {
                        <button type="button" class="button" data-testid=format!("mcp-make-skill-{id}")
                            title="Draft a skill that uses this server’s tools"
                            on:click=move |_| make_skill(skills, screen, skill_id.clone(), card_error)>
                            "Make a skill"
                        </button>
                    })}
                    {drifted.then(|| view! {
                        <button type="button" class="button" data-testid=format!("mcp-review-{id}")
                            on:click=move |_| review(state, review_id.clone(), None, card_error)>
                            "Mark reviewed"
                        </button>
                    })}
                    <span class="mcp-card__spacer"></span>
                    {match s.plugin.clone() {
                        Some(plugin) => view! {
                            <span class="muted" data-testid=format!("mcp-plugin-{id}")>{format!("from plugin {plugin}")}</span>
                        }.into_any(),
                        None => view! {
                            <button type="button" class="button" data-testid=format!("mcp-edit-{id}")
                                on:click=move |_| state.editing.set(Some(Editing::Existing(edit_id.clone())))>"Edit"</button>
                            <button type="button" class="button" data-testid=format!("mcp-delete-{id}")
                                on:click=move |_| confirm_delete(inbox, state, delete_id.clone(), card_error)>"Delete"</button>
                        }.into_any(),
                    }}
                    <label class="toggle mcp-card__switch" title="Connect to this server and offer its tools">
                        <input type="checkbox" role="switch" data-testid=format!("mcp-enabled-{id}")
                            prop:checked=enabled aria-label=format!("Use {id}")
                            on:change=move |ev| set_enabled(enable_id.clone(), ev) />
                        <span class="muted">{if enabled { "On" } else { "Off" }}</span>
                    </label>
                </div>
            }
        };
        view! {
            <div class="skill__head">
                <div class="skill__main">
                    <span class="skill__name mono">{id.clone()}</span>
                    <span class="badge" data-testid=format!("mcp-transport-{id}")>{transport_label(s.transport)}</span>
                </div>
            </div>
            <p class="skill__readiness" data-testid=format!("mcp-status-{id}") data-state=state_name(&s.status)>
                <span class=format!("status-dot status-dot--{}", dot_class(&s.status)) aria-hidden="true"></span>
                {sentence(&s)}
            </p>
            <p class="mono mcp-card__reach" data-testid=format!("mcp-command-{id}")>{reachable}</p>
            {s.cwd.clone().map(|cwd| view! { <p class="hint muted">"In " <span class="mono">{cwd}</span></p> })}
            {key_values("Environment", &s.env)}
            {key_values("Headers", &s.headers)}
            {s.instructions.clone().filter(|i| !i.trim().is_empty()).map(|text| view! {
                <details class="mcp-card__instructions">
                    <summary class="muted">"What it says of itself"</summary>
                    <p>{text}</p>
                </details>
            })}
            {(!s.tools.is_empty()).then(|| view! { <ToolList server=id.clone() tools=s.tools.clone() card_error /> })}
            {stderr}
            {actions}
        }
    };
    let error_id = id.clone();
    view! {
        <li class="skill mcp-card" class:skill--off=move || server.get().is_some_and(|s| s.status == McpStatus::Disabled)
            class:skill--active=editing_me data-testid=format!("mcp-card-{id}")>
            {move || server.get().map(body)}
            {move || card_error.get().map(|(code, message)| view! {
                <p class="banner banner--error" role="alert" data-testid=format!("mcp-card-error-{error_id}") data-code=code>{message}</p>
            })}
        </li>
    }
}
