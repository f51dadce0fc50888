//! The thread's files panel: the state files the agent wrote in the thread,
//! a preview of one (text, a simple image, or its size and type) and
//! "Save as…", which the host writes where the person chooses.

use super::state::use_inbox;
use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{
    FilePreview, ThreadFileContent, ThreadFileListParams, ThreadFileParams, ThreadFileView, cmd,
    format_size,
};

/// The panel opened from the thread header; Escape or × closes it.
#[component]
pub(crate) fn ThreadFilesPanel(thread_id: String, on_close: Callback<()>) -> impl IntoView {
    let inbox = use_inbox();
    let files = RwSignal::new(None::<Vec<ThreadFileView>>);
    let selected = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    // Reload when the host reports a change: a run may have written a file.
    let list_id = thread_id.clone();
    let asked = Latest::new();
    Effect::new(move |_| {
        inbox.revision.track();
        let params = ThreadFileListParams {
            thread_id: list_id.clone(),
            checkpoint_id: None,
        };
        let ticket = asked.ask();
        leptos::task::spawn_local(async move {
            let answer = invoke::<cmd::ThreadFileList>(&params).await;
            if !ticket.is_newest() {
                return;
            }
            match answer {
                Ok(list) => {
                    error.set(None);
                    files.set(Some(list));
                }
                Err(e) => error.set(Some(e.message)),
            }
        });
    });
    let close = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(button) = close.get() {
            let _ = button.focus();
        }
    });
    view! {
        <aside class="side-panel" role="dialog" aria-labelledby="files-panel-title" data-testid="files-panel"
            on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); on_close.run(()) }>
            <header class="side-panel__header">
                <h2 id="files-panel-title">"Files"</h2>
                <button class="icon-button" aria-label="Close files" title="Close (Esc)" data-testid="files-close" node_ref=close
                    on:click=move |_| on_close.run(())>"×"</button>
            </header>
            {move || error.get().map(|e| view! { <p class="banner banner--error" role="alert">{e}</p> })}
            {move || match files.get() {
                None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                Some(list) if list.is_empty() => view! {
                    <p class="muted" data-testid="files-empty">"No files yet. Files the agent writes in this thread show here."</p>
                }.into_any(),
                Some(list) => view! { <FileList files=list selected /> }.into_any(),
            }}
            {
                let thread_id = thread_id.clone();
                move || selected.get().map(|path| view! {
                    <FileDetail thread_id=thread_id.clone() path checkpoint_id=None />
                })
            }
        </aside>
    }
}

/// Files by path; choosing one shows it below.
#[component]
pub(crate) fn FileList(
    files: Vec<ThreadFileView>,
    selected: RwSignal<Option<String>>,
) -> impl IntoView {
    view! {
        <ul class="file-list" aria-label="Files">
            {files.into_iter().map(|file| {
                let path = file.path.clone();
                let is_selected = {
                    let path = path.clone();
                    move || selected.with(|s| s.as_deref() == Some(path.as_str()))
                };
                view! {
                    <li>
                        <button class="file-row" data-testid="thread-file" data-path=path.clone()
                            aria-pressed={
                                let is_selected = is_selected.clone();
                                move || is_selected().to_string()
                            }
                            class:file-row--selected=is_selected
                            on:click=move |_| selected.set(Some(path.clone()))>
                            <span class="file-row__path mono">{file.path}</span>
                            <span class="file-row__meta muted">{format!("{} · {}", format_size(file.size), file.mime)}</span>
                        </button>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}

/// One file: its preview and "Save as…"; `checkpoint_id` shows it as it
/// was then.
#[component]
pub(crate) fn FileDetail(
    thread_id: String,
    path: String,
    checkpoint_id: Option<String>,
) -> impl IntoView {
    let content = RwSignal::new(None::<Result<ThreadFileContent, String>>);
    let notice = RwSignal::new(None::<Result<String, String>>);
    let params = ThreadFileParams {
        thread_id,
        path: path.clone(),
        checkpoint_id,
    };
    let get = params.clone();
    leptos::task::spawn_local(async move {
        content.set(Some(
            invoke::<cmd::ThreadFileGet>(&get)
                .await
                .map_err(|e| e.message),
        ));
    });
    let save = move |_| {
        let params = params.clone();
        notice.set(None);
        leptos::task::spawn_local(async move {
            match invoke::<cmd::ThreadFileSave>(&params).await {
                Ok(Some(saved)) => notice.set(Some(Ok(format!("Saved to {}", saved.path)))),
                // Cancelled: nothing to say.
                Ok(None) => {}
                Err(e) => notice.set(Some(Err(e.message))),
            }
        });
    };
    view! {
        <section class="file-detail" data-testid="file-preview" aria-label=format!("Preview of {path}")>
            <div class="file-detail__bar">
                <span class="file-detail__path mono">{path.clone()}</span>
                <button class="button" data-testid="file-save" on:click=save>"Save as…"</button>
            </div>
            {move || notice.get().map(|n| match n {
                Ok(text) => view! { <p class="quiet-notice" role="status" data-testid="file-saved">{text}</p> }.into_any(),
                Err(text) => view! { <p class="banner banner--error" role="alert" data-testid="file-save-error">{text}</p> }.into_any(),
            })}
            {
                let path = path.clone();
                move || match content.get() {
                    None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                    Some(Err(e)) => view! { <p class="banner banner--error" role="alert">{e}</p> }.into_any(),
                    Some(Ok(file)) => preview_view(&path, file),
                }
            }
        </section>
    }
}

fn preview_view(path: &str, content: ThreadFileContent) -> AnyView {
    let facts = format!("{} · {}", format_size(content.file.size), content.file.mime);
    match content.preview {
        FilePreview::Text { text } => view! {
            <p class="file-detail__facts muted">{facts}</p>
            <pre class="file-detail__text" data-testid="file-preview-text" tabindex="0">{text}</pre>
        }
        .into_any(),
        FilePreview::Image { src } => view! {
            <p class="file-detail__facts muted">{facts}</p>
            <img class="file-detail__image" data-testid="file-preview-image" src=src alt=path.to_owned() />
        }
        .into_any(),
        FilePreview::None => view! {
            <p class="muted" data-testid="file-preview-none">
                {format!("No preview for this file ({facts}). Save it to open it in another app.")}
            </p>
        }
        .into_any(),
    }
}
