//! MCP: the servers Pizza Bot connects to for tools, each as a card with
//! its live status, and the plugins that ship servers and skills. Adding or
//! editing a server opens on the right; imports and plugin installs are
//! previewed before anything is written.

mod card;
mod form;
mod form_model;
mod import;
mod plugins;
mod rows;
pub(crate) mod state;
pub(crate) mod status;
mod tools;

use crate::screen::Screen;
use leptos::prelude::*;
use pizza_protocol::AppEvent;
use state::{Editing, McpState, use_mcp};

/// Makes the page's state and keeps the server list current for the
/// window's lifetime (the status bar shows it on every page).
pub(crate) fn provide_state() {
    let state = McpState::new();
    provide_context(state);
    for name in [
        AppEvent::MCP_STATUS,
        AppEvent::PLUGINS_CHANGED,
        AppEvent::SKILLS_CHANGED,
    ] {
        crate::events::listen(name, move |_| state.changed());
    }
    state.sync_servers();
}

#[component]
pub(crate) fn McpSidebar() -> impl IntoView {
    let state = use_mcp();
    view! {
        <div class="sidebar__header">
            <h2 class="sidebar__title">"MCP"</h2>
        </div>
        <div class="automations-sidebar__new">
            <button class="button button--primary" on:click=move |_| state.editing.set(Some(Editing::New))>
                "+ Server"
            </button>
        </div>
        <ul class="list" role="list">
            {move || state.servers.get().into_iter().map(|s| {
                let id = s.id.clone();
                let active_id = s.id.clone();
                let active = move || state.editing.get() == Some(Editing::Existing(active_id.clone()));
                let dot = status::dot_class(&s.status);
                let editable = s.plugin.is_none();
                view! {
                    <li>
                        <button class="list__item" class:list__item--active=active
                            class:muted=!s.enabled disabled=!editable
                            title=if editable { "Edit this server" } else { "Changed through its plugin" }
                            on:click=move |_| state.editing.set(Some(Editing::Existing(id.clone())))>
                            <span class=format!("status-dot status-dot--{dot}") aria-hidden="true"></span>
                            {s.id.clone()}
                        </button>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}

#[component]
pub(crate) fn McpPane() -> impl IntoView {
    let state = use_mcp();
    let ids = move || {
        state
            .servers
            .with(|list| list.iter().map(|s| s.id.clone()).collect::<Vec<_>>())
    };
    view! {
        <div class="automations skills mcp" class:automations--editing=move || state.editing.get().is_some()>
            <div class="automations__main">
                <h1>"MCP servers"</h1>
                <p class="muted skills__intro">
                    "Programs and services that give Pizza Bot more tools. Each tool call still asks you first where your approvals say so."
                </p>
                <div class="skills__actions">
                    <button class="button button--primary" data-testid="mcp-add"
                        on:click=move |_| state.editing.set(Some(Editing::New))>"Add a server"</button>
                    <button class="button" data-testid="mcp-import-claude"
                        on:click=move |_| import::from_claude_desktop(state)>"Import from Claude Desktop"</button>
                    <button class="button" data-testid="mcp-import-file"
                        on:click=move |_| import::from_file(state)>"Import a file…"</button>
                </div>
                {move || state.config_error.get().map(|problem| view! {
                    <div class="banner banner--error" role="alert" data-testid="mcp-config-error">
                        <span class="banner__text">
                            {format!(
                                "Your .mcp.json has a problem: {}. The last good configuration is still in use.",
                                problem.trim().trim_end_matches('.')
                            )}
                        </span>
                    </div>
                })}
                {move || state.notice.get().map(|(ok, message)| view! {
                    <div class=if ok { "banner banner--ok" } else { "banner banner--error" }
                        role=if ok { "status" } else { "alert" } data-testid="mcp-notice">
                        <span class="banner__text">{message}</span>
                        <button class="link" on:click=move |_| state.notice.set(None)>"Dismiss"</button>
                    </div>
                })}
                {move || state.error.get().map(|e| view! {
                    <div class="banner banner--error" role="alert" data-testid="mcp-error" data-code=e.code.as_str()>
                        <span class="banner__text">{e.message}</span>
                        <button class="button" on:click=move |_| state.changed()>"Try again"</button>
                    </div>
                })}
                {move || state.import.get().map(|pending| view! { <import::ImportPreview pending /> })}
                <Show
                    when=move || state.servers.with(|s| !s.is_empty())
                    fallback=move || view! {
                        <div class="empty automations__empty">
                            <p class="muted">"No MCP servers yet. Add one to give Pizza Bot more tools."</p>
                        </div>
                    }
                >
                    <ul class="skill-list" role="list" data-testid="mcp-list">
                        // Keyed by id: a card keeps its error and open tools
                        // while the host re-sends the list.
                        <For each=ids key=|id| id.clone() let:id>
                            <card::ServerCard id />
                        </For>
                    </ul>
                </Show>
                <plugins::PluginsSection />
            </div>
            {move || state.editing.get().map(|editing| view! {
                <aside class="automations__editor" aria-label="MCP server editor">
                    {match editing {
                        Editing::New => view! { <form::ServerEditor id=None /> }.into_any(),
                        Editing::Existing(id) => view! { <form::ServerEditor id=Some(id) /> }.into_any(),
                        Editing::Paste => view! { <import::PasteJson /> }.into_any(),
                    }}
                </aside>
            })}
        </div>
    }
}

/// The status bar's MCP line; nothing while no server is configured.
#[component]
pub(crate) fn McpStatusLine(screen: RwSignal<Screen>) -> impl IntoView {
    let state = use_mcp();
    let summary = Memo::new(move |_| state.servers.with(|s| status::summary(s)));
    move || {
        summary.get().map(|(health, text)| view! {
            <button class="statusbar__item link statusbar__mcp" data-testid="status-mcp" data-health=health.name()
                title="Open the MCP page" on:click=move |_| screen.set(Screen::Mcp)>
                <span class=format!("status-dot status-dot--{}", health.dot_class()) aria-hidden="true"></span>
                {format!("MCP: {text}")}
            </button>
        })
    }
}
