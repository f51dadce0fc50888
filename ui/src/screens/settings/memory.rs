//! Settings › Memory: the memory switch and the memory files — previews,
//! create, edit, delete. The files are the person's own, so the list works
//! with memory off; it only says that the agent can't see them then.

use super::confirm::{Asking, ConfirmDialog, Question, ask};
use crate::app_state::AppState;
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{
    ApiError, MemoryEntry, MemoryListParams, MemoryNameParams, MemoryWriteParams, SettingsPatch,
    cmd,
};

/// What the editor holds: the file's name (fixed once it exists) and text.
#[derive(Debug, Clone, Copy)]
struct Editor {
    open: RwSignal<bool>,
    is_new: RwSignal<bool>,
    name: RwSignal<String>,
    content: RwSignal<String>,
}

#[derive(Debug, Clone, Copy)]
struct MemoryState {
    memories: RwSignal<Vec<MemoryEntry>>,
    folder: RwSignal<String>,
    error: RwSignal<Option<ApiError>>,
    notice: RwSignal<Option<String>>,
    editor: Editor,
    asking: Asking,
}

impl MemoryState {
    fn reload(self) {
        leptos::task::spawn_local(async move {
            match invoke::<cmd::MemoryList>(&MemoryListParams {}).await {
                Ok(list) => {
                    self.memories.set(list.memories);
                    self.folder.set(list.folder);
                }
                Err(e) => self.error.set(Some(e)),
            }
        });
    }
}

fn size_label(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}

fn modified_label(ms: i64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64));
    String::from(date.to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED))
}

fn edit(state: MemoryState, name: String) {
    leptos::task::spawn_local(async move {
        match invoke::<cmd::MemoryGet>(&MemoryNameParams { name }).await {
            Ok(file) => {
                state.editor.is_new.set(false);
                state.editor.name.set(file.name);
                state.editor.content.set(file.content);
                state.editor.open.set(true);
                state.error.set(None);
            }
            Err(e) => state.error.set(Some(e)),
        }
    });
}

fn save(state: MemoryState) {
    let params = MemoryWriteParams {
        name: state.editor.name.get_untracked().trim().to_owned(),
        content: state.editor.content.get_untracked(),
    };
    leptos::task::spawn_local(async move {
        match invoke::<cmd::MemoryWrite>(&params).await {
            Ok(file) => {
                state.editor.open.set(false);
                state.error.set(None);
                state.notice.set(Some(format!("Saved {}.", file.name)));
                state.reload();
            }
            // The editor stays open: nothing typed is lost.
            Err(e) => state.error.set(Some(e)),
        }
    });
}

fn delete(state: MemoryState, name: String) {
    ask(
        state.asking,
        Question {
            title: format!("Delete {name}?"),
            body: "The file is removed from the memories folder; this cannot be undone.".to_owned(),
            confirm_label: "Delete",
            danger: true,
            on_confirm: Callback::new(move |()| {
                let name = name.clone();
                leptos::task::spawn_local(async move {
                    match invoke::<cmd::MemoryDelete>(&MemoryNameParams { name: name.clone() })
                        .await
                    {
                        Ok(()) => {
                            state.notice.set(Some(format!("Deleted {name}.")));
                            state.error.set(None);
                            state.reload();
                        }
                        Err(e) => state.error.set(Some(e)),
                    }
                });
            }),
        },
    );
}

#[component]
pub(crate) fn Memory() -> impl IntoView {
    let app = expect_context::<AppState>();
    let state = MemoryState {
        memories: RwSignal::new(Vec::new()),
        folder: RwSignal::new(String::new()),
        error: RwSignal::new(None),
        notice: RwSignal::new(None),
        editor: Editor {
            open: RwSignal::new(false),
            is_new: RwSignal::new(true),
            name: RwSignal::new(String::new()),
            content: RwSignal::new(String::new()),
        },
        asking: RwSignal::new(None),
    };
    state.reload();
    let enabled = move || app.settings.get().memories_enabled;
    let toggle = move |ev: leptos::ev::Event| {
        let on = event_target_checked(&ev);
        leptos::task::spawn_local(async move {
            let patch = SettingsPatch {
                memories_enabled: Some(on),
                ..SettingsPatch::default()
            };
            match invoke::<cmd::SettingsUpdate>(&patch).await {
                Ok(settings) => {
                    app.settings.set(settings);
                    state.error.set(None);
                    state.notice.set(Some(if on {
                        "Memory is on from the agent’s next step.".to_owned()
                    } else {
                        "Memory is off from the agent’s next step.".to_owned()
                    }));
                }
                Err(e) => {
                    // Show what is really stored.
                    app.settings.update(|s| s.memories_enabled = !on);
                    state.error.set(Some(e));
                }
            }
        });
    };
    let create = move |_| {
        state.editor.is_new.set(true);
        state.editor.name.set(String::new());
        state.editor.content.set(String::new());
        state.editor.open.set(true);
    };

    view! {
        <section class="form memory" aria-labelledby="memory-title">
            <h1 id="memory-title">"Memory"</h1>
            <label class="toggle">
                <input type="checkbox" data-testid="memory-enabled" prop:checked=enabled on:change=toggle />
                <span>"Let Pizza Bot remember across threads"</span>
            </label>
            <p class="hint muted">
                "While this is on, the agent reads and updates these notes at /memories/ in every thread."
            </p>
            <Show when=move || !enabled()>
                <p class="banner banner--warning" data-testid="memory-off">
                    "Memory is off: the agent can’t see these files. You can still read and edit them here."
                </p>
            </Show>
            {move || state.error.get().map(|e| view! {
                <p class="banner banner--error" role="alert" data-testid="memory-error" data-code=e.code.as_str()>{e.message}</p>
            })}
            {move || state.notice.get().map(|n| view! { <p class="saved" role="status">{n}</p> })}
            <div class="memory__bar">
                <h2 class="memory__heading">"Memories"</h2>
                <button class="button" data-testid="memory-new" on:click=create>"New memory"</button>
            </div>
            <Show when=move || state.editor.open.get()>
                <MemoryEditor state />
            </Show>
            <Show when=move || state.memories.with(Vec::is_empty)>
                <p class="muted" data-testid="memory-empty">"No memories yet. Create one, or turn memory on and let Pizza Bot keep notes."</p>
            </Show>
            <ul class="memory-list" role="list" data-testid="memory-list">
                <For each=move || state.memories.get() key=|m| (m.name.clone(), m.modified_at, m.size) let:memory>
                    <MemoryRow memory state />
                </For>
            </ul>
            <p class="hint muted">"Folder: " <span class="mono">{move || state.folder.get()}</span></p>
            <ConfirmDialog asking=state.asking />
        </section>
    }
}

#[component]
fn MemoryRow(memory: MemoryEntry, state: MemoryState) -> impl IntoView {
    let name = memory.name.clone();
    let edit_name = name.clone();
    let delete_name = name.clone();
    view! {
        <li class="memory-item" data-testid=format!("memory-{name}")>
            <div class="memory-item__head">
                <span class="memory-item__name">{name.clone()}</span>
                <span class="muted memory-item__meta">
                    {size_label(memory.size)} " · " {modified_label(memory.modified_at)}
                </span>
                <button class="button" aria-label=format!("Edit {name}") on:click=move |_| edit(state, edit_name.clone())>"Edit"</button>
                <button class="button" aria-label=format!("Delete {name}") on:click=move |_| delete(state, delete_name.clone())>"Delete"</button>
            </div>
            <p class="muted memory-item__preview">{memory.preview}</p>
        </li>
    }
}

#[component]
fn MemoryEditor(state: MemoryState) -> impl IntoView {
    let editor = state.editor;
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        save(state);
    };
    view! {
        <form class="memory-editor" data-testid="memory-editor" on:submit=on_submit
            on:keydown=move |ev| if ev.key() == "Escape" { editor.open.set(false) }>
            <label class="provider-field">
                <span class="provider-field__label">"Name"</span>
                <input
                    class="input"
                    data-testid="memory-name"
                    placeholder="topic.md"
                    spellcheck="false"
                    prop:readonly=move || !editor.is_new.get()
                    prop:value=move || editor.name.get()
                    on:input=move |ev| editor.name.set(event_target_value(&ev))
                />
            </label>
            <label class="provider-field">
                <span class="provider-field__label">"Content"</span>
                <textarea
                    class="input memory-editor__text"
                    data-testid="memory-content"
                    rows="10"
                    prop:value=move || editor.content.get()
                    on:input=move |ev| editor.content.set(event_target_value(&ev))
                ></textarea>
            </label>
            <div class="provider-form__actions">
                <button class="button button--primary" type="submit" data-testid="memory-save">"Save"</button>
                <button class="button" type="button" on:click=move |_| editor.open.set(false)>"Cancel"</button>
            </div>
        </form>
    }
}
