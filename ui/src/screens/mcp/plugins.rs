//! The Plugins section of the MCP page: each plugin with its status and
//! detail sentences, what it ships, its switch and Remove; Install (a ZIP or
//! a folder) shows a trust prompt listing the commands its servers will run
//! before anything is written.

use super::state::{McpState, PendingInstall, use_mcp};
use crate::ipc::invoke;
use crate::screens::inbox::state::{ConfirmRequest, Inbox};
use leptos::prelude::*;
use pizza_protocol::{
    PluginInstallChooseParams, PluginInstallParams, PluginNameParams, PluginSetEnabledParams,
    PluginStatus, PluginView, cmd,
};

/// The status as the dot's class, the `data-state` name and a sentence.
pub(crate) fn status_words(plugin: &PluginView) -> (&'static str, &'static str, &'static str) {
    match plugin.status {
        PluginStatus::Loaded => ("ready", "loaded", "Loaded."),
        PluginStatus::Disabled => ("unconfigured", "disabled", "Switched off."),
        PluginStatus::Incompatible => (
            "degraded",
            "incompatible",
            "Partly usable: it asks for things Pizza Bot does not do.",
        ),
        PluginStatus::Failed => ("error", "failed", "It cannot be read."),
    }
}

/// The native dialog (a ZIP, or a folder), then the trust prompt.
pub(crate) fn choose(state: McpState, folder: bool) {
    leptos::task::spawn_local(async move {
        let path =
            match invoke::<cmd::PluginInstallChoose>(&PluginInstallChooseParams { folder }).await {
                Ok(Some(path)) => path,
                // Cancelled: nothing to say.
                Ok(None) => return,
                Err(e) => return state.notice.set(Some((false, e.message))),
            };
        let params = PluginInstallParams { path: path.clone() };
        match invoke::<cmd::PluginInstallPreview>(&params).await {
            Ok(preview) => state.install.set(Some(PendingInstall { path, preview })),
            Err(e) => state.notice.set(Some((
                false,
                format!("That plugin cannot be installed. {}", e.message),
            ))),
        }
    });
}

fn confirm_remove(inbox: Inbox, state: McpState, name: String, error: RwSignal<Option<String>>) {
    inbox.ask(ConfirmRequest {
        title: "Remove this plugin?".to_owned(),
        body: format!(
            "“{name}” is removed with its skills and MCP servers; its servers stop first."
        ),
        confirm_label: "Remove",
        on_confirm: std::rc::Rc::new(move || {
            let params = PluginNameParams { name: name.clone() };
            leptos::task::spawn_local(async move {
                match invoke::<cmd::PluginRemove>(&params).await {
                    Ok(()) => {
                        state
                            .plugins
                            .update(|list| list.retain(|p| p.name != params.name));
                        state.notice.set(Some((
                            true,
                            format!("Removed the plugin “{}”.", params.name),
                        )));
                        state.changed();
                    }
                    Err(e) => {
                        let _ = error.try_set(Some(e.message));
                    }
                }
            });
        }),
    });
}

fn list_line(label: &'static str, items: &[String]) -> Option<impl IntoView + use<>> {
    (!items.is_empty()).then(|| view! {
        <p class="hint"><span class="muted">{label}</span> " " <span class="mono">{items.join(", ")}</span></p>
    })
}

#[component]
fn PluginCard(plugin: PluginView) -> impl IntoView {
    let state = use_mcp();
    let inbox = expect_context::<Inbox>();
    let error = RwSignal::new(None::<String>);
    let (dot, data_state, sentence) = status_words(&plugin);
    let name = plugin.name.clone();
    let (switch_name, remove_name) = (name.clone(), name.clone());
    let set_enabled = move |enabled: bool| {
        let params = PluginSetEnabledParams {
            name: switch_name.clone(),
            enabled,
        };
        leptos::task::spawn_local(async move {
            match invoke::<cmd::PluginSetEnabled>(&params).await {
                Ok(view) => {
                    state.upsert_plugin(view);
                    let _ = error.try_set(None);
                }
                Err(e) => {
                    state.changed();
                    let _ = error.try_set(Some(e.message));
                }
            }
        });
    };
    let title = match &plugin.version {
        Some(version) => format!("{} {version}", plugin.name),
        None => plugin.name.clone(),
    };
    let byline = [plugin.author.clone(), plugin.homepage.clone()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
    view! {
        <li class="skill plugin-card" class:skill--off=!plugin.enabled data-testid=format!("plugin-card-{name}")>
            <div class="skill__head">
                <div class="skill__main">
                    <span class="skill__name">{title}</span>
                    {plugin.builtin.then(|| view! { <span class="badge">"Built-in"</span> })}
                    {(!byline.is_empty()).then(|| view! { <span class="muted">{byline}</span> })}
                </div>
                <label class="toggle skill__switch" title="Use this plugin’s skills and servers">
                    <input type="checkbox" role="switch" data-testid=format!("plugin-enabled-{name}")
                        prop:checked=plugin.enabled aria-label=format!("Use the plugin {name}")
                        on:change=move |ev| set_enabled(event_target_checked(&ev)) />
                    <span class="muted">{if plugin.enabled { "On" } else { "Off" }}</span>
                </label>
            </div>
            {(!plugin.description.is_empty()).then(|| view! { <p class="skill__description">{plugin.description.clone()}</p> })}
            <p class="skill__readiness" data-testid=format!("plugin-status-{name}") data-state=data_state>
                <span class=format!("status-dot status-dot--{dot}") aria-hidden="true"></span>
                {sentence}
            </p>
            {(!plugin.detail.is_empty()).then(|| view! {
                <ul class="plugin-card__detail hint" role="list" data-testid=format!("plugin-detail-{name}")>
                    {plugin.detail.iter().map(|line| view! { <li>{line.clone()}</li> }).collect_view()}
                </ul>
            })}
            {list_line("Skills:", &plugin.skills)}
            {list_line("MCP servers:", &plugin.servers)}
            {(!plugin.builtin).then(|| view! {
                <div class="mcp-card__actions">
                    <span class="mcp-card__spacer"></span>
                    <button type="button" class="button" data-testid=format!("plugin-remove-{name}")
                        on:click=move |_| confirm_remove(inbox, state, remove_name.clone(), error)>"Remove"</button>
                </div>
            })}
            {move || error.get().map(|m| view! {
                <p class="banner banner--error" role="alert" data-testid="plugin-card-error">{m}</p>
            })}
        </li>
    }
}

/// The trust prompt: what the plugin will run and bring in, before anything
/// is written.
#[component]
fn TrustPrompt(pending: PendingInstall) -> impl IntoView {
    let state = use_mcp();
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let preview = pending.preview;
    let path = pending.path;
    let confirm_button = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(button) = confirm_button.get() {
            let _ = button.focus();
        }
    });
    let install = move || {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        let params = PluginInstallParams { path: path.clone() };
        leptos::task::spawn_local(async move {
            match invoke::<cmd::PluginInstall>(&params).await {
                Ok(view) => {
                    let name = view.name.clone();
                    state.upsert_plugin(view);
                    state.install.set(None);
                    state
                        .notice
                        .set(Some((true, format!("Installed the plugin “{name}”."))));
                    state.changed();
                }
                Err(e) => {
                    let _ = error.try_set(Some(e.message));
                }
            }
            let _ = busy.try_set(false);
        });
    };
    let title = match &preview.version {
        Some(version) => format!("Install {} {version}?", preview.name),
        None => format!("Install {}?", preview.name),
    };
    view! {
        <section class="mcp-import plugin-trust" role="dialog" aria-label="Install a plugin" data-testid="plugin-trust"
            on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); state.install.set(None) }>
            <h2 class="automations__heading">{title}</h2>
            {(!preview.description.is_empty()).then(|| view! { <p>{preview.description.clone()}</p> })}
            {preview.replaces.then(|| view! {
                <p class="banner banner--warning" data-testid="plugin-trust-replaces">
                    "A plugin of this name is installed: installing replaces it."
                </p>
            })}
            {if preview.commands.is_empty() {
                view! { <p class="muted">"It runs no MCP servers."</p> }.into_any()
            } else {
                view! {
                    <p>"Its MCP servers will run these on this computer, with your permissions:"</p>
                    <ul class="plugin-trust__commands" role="list" data-testid="plugin-trust-commands">
                        {preview.commands.iter().map(|c| view! { <li class="mono">{c.clone()}</li> }).collect_view()}
                    </ul>
                }.into_any()
            }}
            {list_line("Skills:", &preview.skills)}
            {(!preview.detail.is_empty()).then(|| view! {
                <ul class="plugin-card__detail hint" role="list">
                    {preview.detail.iter().map(|line| view! { <li>{line.clone()}</li> }).collect_view()}
                </ul>
            })}
            {move || error.get().map(|m| view! {
                <p class="banner banner--error" role="alert" data-testid="plugin-trust-error">{m}</p>
            })}
            <div class="editor__actions">
                <button type="button" class="button" data-testid="plugin-trust-cancel"
                    on:click=move |_| state.install.set(None)>"Cancel"</button>
                <button type="button" class="button button--primary" data-testid="plugin-trust-confirm" node_ref=confirm_button
                    disabled=move || busy.get() on:click=move |_| install()>"Install"</button>
            </div>
        </section>
    }
}

#[component]
pub(crate) fn PluginsSection() -> impl IntoView {
    let state = use_mcp();
    state.sync_plugins();
    view! {
        <section class="automations__section mcp-plugins" aria-labelledby="mcp-plugins-heading" data-testid="plugins">
            <h2 class="automations__heading" id="mcp-plugins-heading">"Plugins"</h2>
            <p class="muted skills__intro">"Plugins bring skills and MCP servers together, in the Claude Code plugin format."</p>
            <div class="skills__actions">
                <button type="button" class="button" data-testid="plugin-install" on:click=move |_| choose(state, false)>"Install ZIP…"</button>
                <button type="button" class="button" data-testid="plugin-install-folder" on:click=move |_| choose(state, true)>"Install folder…"</button>
            </div>
            {move || state.install.get().map(|pending| view! { <TrustPrompt pending /> })}
            <Show when=move || state.plugins.with(|p| !p.is_empty())
                fallback=|| view! { <p class="muted">"No plugins yet."</p> }>
                <ul class="skill-list" role="list" data-testid="plugin-list">
                    <For each=move || state.plugins.get() key=|p| format!("{p:?}") let:plugin>
                        <PluginCard plugin />
                    </For>
                </ul>
            </Show>
        </section>
    }
}
