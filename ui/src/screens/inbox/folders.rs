//! The sidebar's folders panel: filter by folder, create, rename, delete.

use super::state::{ConfirmRequest, use_inbox};
use crate::ipc::invoke;
use crate::keys::window_lost_focus;
use leptos::prelude::*;
use pizza_protocol::{
    FOLDER_NAME_MAX, Folder, FolderCreateParams, FolderDeleteParams, FolderUpdateParams, cmd,
};

#[component]
pub(crate) fn FolderPanel() -> impl IntoView {
    let inbox = use_inbox();
    let expanded = RwSignal::new(true);
    let creating = RwSignal::new(false);
    let on_create = move |name: Option<String>| {
        creating.set(false);
        let Some(name) = name else { return };
        leptos::task::spawn_local(async move {
            match invoke::<cmd::FolderCreate>(&FolderCreateParams { name }).await {
                Ok(_) => inbox.changed(),
                Err(error) => inbox.report(error),
            }
        });
    };
    view! {
        <section class="folders" aria-label="Folders">
            <div class="folders__header">
                <button class="folders__toggle" aria-expanded=move || expanded.get().to_string() on:click=move |_| expanded.update(|e| *e = !*e)>
                    {move || if expanded.get() { "▾ Folders" } else { "▸ Folders" }}
                </button>
                <button class="icon-button" aria-label="New folder" title="New folder" data-testid="folder-new"
                    on:click=move |_| { expanded.set(true); creating.set(true); }>
                    "+"
                </button>
            </div>
            <Show when=move || expanded.get()>
                <ul class="list" role="list">
                    // Keyed: a refresh keeps rows (and a rename in progress) in place.
                    <For each=move || inbox.folders.get() key=|f| (f.id.clone(), f.name.clone()) let:folder>
                        <FolderRow folder />
                    </For>
                    <Show when=move || creating.get()>
                        <li>
                            <FolderNameInput initial=String::new() on_done=on_create />
                        </li>
                    </Show>
                </ul>
            </Show>
        </section>
    }
}

#[component]
fn FolderRow(folder: Folder) -> impl IntoView {
    let inbox = use_inbox();
    let renaming = RwSignal::new(false);
    let id = folder.id.clone();
    let active = {
        let id = id.clone();
        move || inbox.folder.get().as_deref() == Some(id.as_str())
    };
    let toggle = {
        let id = id.clone();
        move |_| {
            let next = if inbox.folder.get_untracked().as_deref() == Some(id.as_str()) {
                None
            } else {
                Some(id.clone())
            };
            inbox.search.set(None);
            inbox.folder.set(next);
        }
    };
    let rename_id = id.clone();
    let delete = {
        let folder = folder.clone();
        move |_| {
            let id = folder.id.clone();
            inbox.ask(ConfirmRequest {
                title: "Delete this folder?".to_owned(),
                body: format!(
                    "“{}” will be deleted. Its threads move back to the inbox.",
                    folder.name
                ),
                confirm_label: "Delete folder",
                on_confirm: std::rc::Rc::new(move || {
                    let folder_id = id.clone();
                    leptos::task::spawn_local(async move {
                        match invoke::<cmd::FolderDelete>(&FolderDeleteParams { folder_id }).await {
                            Ok(()) => inbox.changed(),
                            Err(error) => inbox.report(error),
                        }
                    });
                }),
            });
        }
    };
    let name = folder.name.clone();
    view! {
        <li class="folder" data-testid="folder-row" data-folder-name=folder.name.clone()>
            {move || {
                if renaming.get() {
                    let id = rename_id.clone();
                    let on_rename = move |new: Option<String>| {
                        renaming.set(false);
                        let Some(new) = new else { return };
                        let params = FolderUpdateParams { folder_id: id.clone(), name: Some(new), sort_order: None };
                        leptos::task::spawn_local(async move {
                            match invoke::<cmd::FolderUpdate>(&params).await {
                                Ok(_) => inbox.changed(),
                                Err(error) => inbox.report(error),
                            }
                        });
                    };
                    view! { <FolderNameInput initial=name.clone() on_done=on_rename /> }
                        .into_any()
                } else {
                    view! {
                        <button class="list__item folder__name" class:list__item--active=active.clone() on:click=toggle.clone()
                            on:dblclick=move |_| renaming.set(true)>
                            {name.clone()}
                        </button>
                    }
                        .into_any()
                }
            }}
            <button class="icon-button folder__action" aria-label="Rename folder" title="Rename" data-testid="folder-rename" on:click=move |_| renaming.set(true)>"✎"</button>
            <button class="icon-button folder__action" aria-label="Delete folder" title="Delete" data-testid="folder-delete" on:click=delete>"×"</button>
        </li>
    }
}

/// A name field: Enter or leaving the field saves (`Some`; switching to
/// another window does not), Escape or an empty name cancels.
#[component]
fn FolderNameInput(
    initial: String,
    on_done: impl Fn(Option<String>) + Clone + 'static,
) -> impl IntoView {
    let input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(el) = input.get() {
            let _ = el.focus();
            el.select();
        }
    });
    let finished = StoredValue::new(false);
    let finish = move |value: Option<String>| {
        if finished.get_value() {
            return;
        }
        finished.set_value(true);
        on_done(value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()));
    };
    let on_key = finish.clone();
    view! {
        <input class="rename" node_ref=input value=initial placeholder="Folder name" aria-label="Folder name"
            maxlength=FOLDER_NAME_MAX.to_string() data-testid="folder-name-input"
            on:keydown=move |ev| match ev.key().as_str() {
                "Enter" => on_key(Some(event_target_value(&ev))),
                "Escape" => { ev.stop_propagation(); on_key(None) }
                _ => {}
            }
            on:blur=move |ev| if !window_lost_focus(&ev) { finish(Some(event_target_value(&ev))) } />
    }
}
