//! Settings › Files: the folders the agent may use under `/local/<id>/`,
//! with their access, Add (native folder picker, or a typed path), switching
//! access (writable asks first) and Remove.

use super::confirm::{Asking, ConfirmDialog, Question, ask};
use crate::ipc::{invoke, invoke_plugin};
use leptos::prelude::*;
use pizza_protocol::{
    ApiError, ErrorReason, GrantAccess, GrantAddParams, GrantListParams, GrantRemoveParams,
    GrantUpdateParams, GrantView, cmd,
};

/// A change the data-root warning can repeat with the acknowledgement.
#[derive(Debug, Clone)]
enum Retry {
    Add { path: String },
    Update { id: String, access: GrantAccess },
}

#[derive(Debug, Clone, Copy)]
struct FilesState {
    grants: RwSignal<Vec<GrantView>>,
    error: RwSignal<Option<ApiError>>,
    notice: RwSignal<Option<String>>,
    /// The data-root warning: its sentence and the change to repeat.
    overlap: RwSignal<Option<(String, Retry)>>,
    asking: Asking,
}

impl FilesState {
    fn failed(self, error: ApiError, retry: Retry) {
        self.notice.set(None);
        if error.reason == Some(ErrorReason::OverlapsDataRoot) {
            self.error.set(None);
            self.overlap.set(Some((error.message, retry)));
        } else {
            self.overlap.set(None);
            self.error.set(Some(error));
        }
    }

    fn done(self, notice: String) {
        self.error.set(None);
        self.overlap.set(None);
        self.notice.set(Some(notice));
    }

    fn upsert(self, grant: GrantView) {
        self.grants.update(|list| {
            match list.iter_mut().find(|g| g.id == grant.id) {
                Some(slot) => *slot = grant,
                None => list.push(grant),
            }
            list.sort_by(|a, b| a.id.cmp(&b.id));
        });
    }
}

fn access_label(access: GrantAccess) -> &'static str {
    match access {
        GrantAccess::ReadOnly => "Read-only",
        GrantAccess::ReadWrite => "Read & write",
    }
}

fn add(state: FilesState, path: String, acknowledge_data_root: bool) {
    leptos::task::spawn_local(async move {
        let params = GrantAddParams {
            path: path.clone(),
            access: None,
            id: None,
            acknowledge_data_root,
        };
        match invoke::<cmd::GrantAdd>(&params).await {
            Ok(grant) => {
                let notice = format!("Granted {} as /local/{}/, read-only.", grant.path, grant.id);
                state.upsert(grant);
                state.done(notice);
            }
            Err(error) => state.failed(error, Retry::Add { path }),
        }
    });
}

fn update(state: FilesState, id: String, access: GrantAccess, acknowledge_data_root: bool) {
    leptos::task::spawn_local(async move {
        let params = GrantUpdateParams {
            id: id.clone(),
            access,
            acknowledge_data_root,
        };
        match invoke::<cmd::GrantUpdate>(&params).await {
            Ok(grant) => {
                let notice = format!(
                    "/local/{}/ is now {}, from the agent’s next tool call.",
                    grant.id,
                    access_label(grant.access).to_lowercase()
                );
                state.upsert(grant);
                state.done(notice);
            }
            Err(error) => state.failed(error, Retry::Update { id, access }),
        }
    });
}

fn remove(state: FilesState, id: String) {
    leptos::task::spawn_local(async move {
        match invoke::<cmd::GrantRemove>(&GrantRemoveParams { id: id.clone() }).await {
            Ok(()) => {
                state.grants.update(|list| list.retain(|g| g.id != id));
                state.done(format!(
                    "Removed /local/{id}/. The agent loses access from its next tool call."
                ));
            }
            Err(error) => {
                state.overlap.set(None);
                state.error.set(Some(error));
            }
        }
    });
}

/// Opens the native folder picker; `None` when the person cancels.
async fn pick_folder() -> Result<Option<String>, ApiError> {
    let options = serde_json::json!({ "options": {
        "title": "Grant a folder to Pizza Bot",
        "directory": true,
        "multiple": false,
    }});
    Ok(invoke_plugin("plugin:dialog|open", &options)
        .await?
        .as_string())
}

#[component]
pub(crate) fn Files() -> impl IntoView {
    let state = FilesState {
        grants: RwSignal::new(Vec::new()),
        error: RwSignal::new(None),
        notice: RwSignal::new(None),
        overlap: RwSignal::new(None),
        asking: RwSignal::new(None),
    };
    let loaded = RwSignal::new(false);
    leptos::task::spawn_local(async move {
        match invoke::<cmd::GrantList>(&GrantListParams {}).await {
            Ok(list) => state.grants.set(list.grants),
            Err(e) => state.error.set(Some(e)),
        }
        loaded.set(true);
    });
    let typed = RwSignal::new(String::new());
    let choose = move |_| {
        leptos::task::spawn_local(async move {
            match pick_folder().await {
                Ok(Some(path)) => add(state, path, false),
                Ok(None) => {}
                Err(error) => state.error.set(Some(error)),
            }
        });
    };
    let add_typed = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let path = typed.get_untracked();
        if path.trim().is_empty() {
            return;
        }
        typed.set(String::new());
        add(state, path, false);
    };

    view! {
        <section class="form grants" aria-labelledby="files-title">
            <h1 id="files-title">"Files"</h1>
            <p class="muted">
                "Folders on this computer that Pizza Bot may use, as /local/<name>/. "
                "Read-only unless you allow changes; every change still asks for your approval."
            </p>
            {move || state.error.get().map(|e| view! {
                <p class="banner banner--error" role="alert" data-testid="grants-error" data-code=e.code.as_str()>{e.message}</p>
            })}
            {move || state.overlap.get().map(|(message, retry)| {
                let retry = StoredValue::new(retry);
                view! {
                    <div class="banner banner--warning" role="alert" data-testid="grants-overlap">
                        <span class="banner__text">{message}</span>
                        <button class="button" on:click=move |_| state.overlap.set(None)>"Cancel"</button>
                        <button
                            class="button button--danger"
                            data-testid="grants-grant-anyway"
                            on:click=move |_| match retry.get_value() {
                                Retry::Add { path } => add(state, path, true),
                                Retry::Update { id, access } => update(state, id, access, true),
                            }
                        >
                            "Grant anyway"
                        </button>
                    </div>
                }
            })}
            {move || state.notice.get().map(|n| view! { <p class="saved" role="status" data-testid="grants-notice">{n}</p> })}
            <Show when=move || loaded.get() && state.grants.with(Vec::is_empty)>
                <p class="muted" data-testid="grants-empty">"No folders yet. Add one to let Pizza Bot read your files."</p>
            </Show>
            <ul class="grant-list" role="list" data-testid="grants-list">
                <For each=move || state.grants.get() key=|g| (g.id.clone(), g.access) let:grant>
                    <GrantRow grant state />
                </For>
            </ul>
            <div class="grants__add">
                <button class="button button--primary" data-testid="grants-add" on:click=choose>"Add folder…"</button>
                <form class="grants__typed" on:submit=add_typed>
                    <label class="sr-only" for="grant-path">"Folder path"</label>
                    <input
                        id="grant-path"
                        class="input grants__path-input"
                        data-testid="grants-path"
                        placeholder="or type a folder path"
                        spellcheck="false"
                        prop:value=move || typed.get()
                        on:input=move |ev| typed.set(event_target_value(&ev))
                    />
                    <button class="button" type="submit" data-testid="grants-add-path">"Grant"</button>
                </form>
            </div>
            <ConfirmDialog asking=state.asking />
        </section>
    }
}

#[component]
fn GrantRow(grant: GrantView, state: FilesState) -> impl IntoView {
    let id = grant.id.clone();
    let writable = grant.access == GrantAccess::ReadWrite;
    let toggle = {
        let id = id.clone();
        let path = grant.path.clone();
        move |_| {
            let id = id.clone();
            if writable {
                update(state, id, GrantAccess::ReadOnly, false);
                return;
            }
            ask(
                state.asking,
                Question {
                    title: "Allow changes in this folder?".to_owned(),
                    body: format!(
                        "Pizza Bot will be able to create and change files in {path}; each \
                         change asks for your approval unless Settings › Approvals allows it."
                    ),
                    confirm_label: "Allow changes",
                    danger: false,
                    on_confirm: Callback::new(move |()| {
                        update(state, id.clone(), GrantAccess::ReadWrite, false);
                    }),
                },
            );
        }
    };
    let remove_id = id.clone();
    view! {
        <li class="grant" data-testid=format!("grant-{id}") data-access=if writable { "read_write" } else { "read_only" }>
            <div class="grant__main">
                <span class="grant__id">{format!("/local/{id}/")}</span>
                <span class="mono muted grant__path">{grant.path.clone()}</span>
            </div>
            <span
                class="badge grant__badge"
                class:grant__badge--write=writable
                data-testid=format!("grant-access-{id}")
            >
                {access_label(grant.access)}
            </span>
            <button class="button" data-testid=format!("grant-toggle-{id}") on:click=toggle>
                {if writable { "Make read-only" } else { "Allow changes…" }}
            </button>
            <button
                class="button"
                data-testid=format!("grant-remove-{id}")
                aria-label=format!("Remove /local/{id}/")
                on:click=move |_| remove(state, remove_id.clone())
            >
                "Remove"
            </button>
        </li>
    }
}
