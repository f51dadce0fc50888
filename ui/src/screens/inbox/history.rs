//! The thread's history panel: its checkpoints, newest first, each with
//! what changed; the state at one of them, read-only (its messages and its
//! files); and "Fork from here", which opens a new thread from it.

use super::message::MessageCard;
use super::state::{Inbox, use_inbox};
use super::thread_files::{FileDetail, FileList};
use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{
    CheckpointForkParams, CheckpointGetParams, CheckpointSource, CheckpointState, CheckpointView,
    ThreadIdParams, cmd,
};

/// Messages per page of a checkpoint's state.
const PAGE: u32 = 50;

/// The side panels the thread header opens, one at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SidePanel {
    History,
    Files,
}

impl SidePanel {
    fn opener(self) -> &'static str {
        match self {
            Self::History => "open-history",
            Self::Files => "open-files",
        }
    }
}

/// The header's History and Files buttons; each toggles its panel.
#[component]
pub(crate) fn SidePanelButtons(open: RwSignal<Option<SidePanel>>) -> impl IntoView {
    let button = move |panel: SidePanel, label: &'static str, hint: &'static str| {
        view! {
            <button class="button thread-pane__tool" data-testid=panel.opener() title=hint
                aria-expanded=move || (open.get() == Some(panel)).to_string()
                on:click=move |_| open.update(|o| *o = if *o == Some(panel) { None } else { Some(panel) })>
                {label}
            </button>
        }
    };
    view! {
        {button(SidePanel::History, "History", "Checkpoints of this thread: view one, fork from it")}
        {button(SidePanel::Files, "Files", "Files the agent wrote in this thread")}
    }
}

/// The open side panel, if any. Closing it puts the focus back on the
/// button that opened it.
#[component]
pub(crate) fn OpenSidePanel(thread_id: String, open: RwSignal<Option<SidePanel>>) -> impl IntoView {
    let close = Callback::new(move |()| {
        let Some(panel) = open.get_untracked() else {
            return;
        };
        open.set(None);
        let opener = document()
            .query_selector(&format!("[data-testid={}]", panel.opener()))
            .ok()
            .flatten()
            .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok());
        if let Some(opener) = opener {
            let _ = opener.focus();
        }
    });
    move || {
        match open.get() {
        Some(SidePanel::History) => view! { <HistoryPanel thread_id=thread_id.clone() on_close=close /> }.into_any(),
        Some(SidePanel::Files) => view! { <super::thread_files::ThreadFilesPanel thread_id=thread_id.clone() on_close=close /> }.into_any(),
        None => ().into_any(),
    }
    }
}

/// The panel opened from the thread header; Escape or × closes it.
#[component]
pub(crate) fn HistoryPanel(thread_id: String, on_close: Callback<()>) -> impl IntoView {
    let inbox = use_inbox();
    let checkpoints = RwSignal::new(None::<Vec<CheckpointView>>);
    let viewing = RwSignal::new(None::<CheckpointView>);
    let error = RwSignal::new(None::<String>);
    // Reload when the host reports a change: a run adds checkpoints.
    let list_id = thread_id.clone();
    let asked = Latest::new();
    Effect::new(move |_| {
        inbox.revision.track();
        let params = ThreadIdParams {
            thread_id: list_id.clone(),
        };
        let ticket = asked.ask();
        leptos::task::spawn_local(async move {
            let answer = invoke::<cmd::ThreadHistory>(&params).await;
            if !ticket.is_newest() {
                return;
            }
            match answer {
                Ok(list) => checkpoints.set(Some(list)),
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
    let fork_from = thread_id.clone();
    let on_fork = Callback::new(move |checkpoint_id: String| {
        fork(inbox, error, fork_from.clone(), checkpoint_id);
    });
    let on_view = Callback::new(move |checkpoint: CheckpointView| {
        error.set(None);
        viewing.set(Some(checkpoint));
    });
    view! {
        <aside class="side-panel" role="dialog" aria-labelledby="history-panel-title" data-testid="history-panel"
            on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); on_close.run(()) }>
            <header class="side-panel__header">
                <h2 id="history-panel-title">"History"</h2>
                <button class="icon-button" aria-label="Close history" title="Close (Esc)" data-testid="history-close" node_ref=close
                    on:click=move |_| on_close.run(())>"×"</button>
            </header>
            {move || error.get().map(|e| view! { <p class="banner banner--error" role="alert" data-testid="history-error">{e}</p> })}
            // The list and the viewed state re-render apart: a reload of the
            // list (a run went on) leaves the state being read alone.
            {move || match viewing.get() {
                Some(checkpoint) => {
                    let back_to = checkpoint.id.clone();
                    view! {
                        <CheckpointStateView thread_id=thread_id.clone() checkpoint on_fork
                            on_back=Callback::new(move |()| back(viewing, back_to.clone())) />
                    }.into_any()
                }
                None => (move || match checkpoints.get() {
                    None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                    Some(list) if list.is_empty() => view! {
                        <p class="muted" data-testid="history-empty">"No history yet. Each step of a run adds a checkpoint here."</p>
                    }.into_any(),
                    Some(list) => view! {
                        <ol class="history-list" aria-label="Checkpoints, newest first">
                            {list.into_iter().map(|checkpoint| view! { <CheckpointRow checkpoint on_view on_fork /> }).collect_view()}
                        </ol>
                    }.into_any(),
                }).into_any(),
            }}
        </aside>
    }
}

#[component]
fn CheckpointRow(
    checkpoint: CheckpointView,
    on_view: Callback<CheckpointView>,
    on_fork: Callback<String>,
) -> impl IntoView {
    let id = checkpoint.id.clone();
    let step = checkpoint.step;
    let label = format!("Step {} · {}", checkpoint.step, when(checkpoint.created_at));
    let what = changes(&checkpoint);
    let preview = checkpoint.preview.clone();
    let waiting = checkpoint.has_interrupt;
    let fork_id = id.clone();
    let view_label = format!("View the thread at step {}", checkpoint.step);
    let fork_label = format!("Fork a new thread from step {}", checkpoint.step);
    view! {
        <li class="checkpoint" data-testid="checkpoint" data-step=step data-checkpoint-id=id>
            <div class="checkpoint__head">
                <span class="checkpoint__when">{label}</span>
                {waiting.then(|| view! { <span class="checkpoint__waiting">"Waiting for a decision"</span> })}
            </div>
            <p class="checkpoint__what">{what}</p>
            {preview.map(|p| view! { <p class="checkpoint__preview muted">{p}</p> })}
            <div class="checkpoint__actions">
                <button class="link" data-testid="checkpoint-view" aria-label=view_label
                    on:click=move |_| on_view.run(checkpoint.clone())>"View"</button>
                <button class="link" data-testid="checkpoint-fork" aria-label=fork_label
                    on:click=move |_| on_fork.run(fork_id.clone())>"Fork from here"</button>
            </div>
        </li>
    }
}

/// The thread as it was at one checkpoint, read-only.
#[component]
fn CheckpointStateView(
    thread_id: String,
    checkpoint: CheckpointView,
    on_fork: Callback<String>,
    on_back: Callback<()>,
) -> impl IntoView {
    let state = RwSignal::new(None::<Result<CheckpointState, String>>);
    let selected = RwSignal::new(None::<String>);
    let params = CheckpointGetParams {
        thread_id: thread_id.clone(),
        checkpoint_id: checkpoint.id.clone(),
        before_seq: None,
        limit: Some(PAGE),
    };
    let first = params.clone();
    leptos::task::spawn_local(async move {
        state.set(Some(
            invoke::<cmd::CheckpointGet>(&first)
                .await
                .map_err(|e| e.message),
        ));
    });
    let earlier = move |_| load_earlier(state, params.clone());
    let id = checkpoint.id.clone();
    let back = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(button) = back.get() {
            let _ = button.focus();
        }
    });
    let checkpoint_id = checkpoint.id.clone();
    view! {
        <section class="checkpoint-state" data-testid="checkpoint-state" data-step=checkpoint.step
            aria-label=format!("The thread at step {}", checkpoint.step)>
            <div class="checkpoint-state__bar">
                <button class="link" data-testid="history-back" node_ref=back on:click=move |_| on_back.run(())>"← All checkpoints"</button>
                <button class="button" data-testid="checkpoint-fork" on:click=move |_| on_fork.run(id.clone())>"Fork from here"</button>
            </div>
            <p class="checkpoint-state__title">
                {format!("Step {} · {}", checkpoint.step, when(checkpoint.created_at))}
                <span class="muted">" · read-only"</span>
            </p>
            {move || match state.get() {
                None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="banner banner--error" role="alert">{e}</p> }.into_any(),
                Some(Ok(s)) => {
                    let files = s.files.clone();
                    let no_messages = s.messages.is_empty();
                    view! {
                        {s.has_more_before.then(|| view! {
                            <button class="feed__more link" data-testid="checkpoint-earlier" on:click=earlier.clone()>"Load earlier messages"</button>
                        })}
                        <div class="checkpoint-state__messages" data-testid="checkpoint-messages">
                            {s.messages.into_iter().map(|message| view! { <MessageCard message on_fork=None /> }).collect_view()}
                            {no_messages.then(|| view! { <p class="muted">"No messages at this point."</p> })}
                        </div>
                        <h3 class="checkpoint-state__heading">"Files"</h3>
                        {if files.is_empty() {
                            view! { <p class="muted">"No files at this point."</p> }.into_any()
                        } else {
                            view! { <FileList files selected /> }.into_any()
                        }}
                    }.into_any()
                }
            }}
            {move || selected.get().map(|path| view! {
                <FileDetail thread_id=thread_id.clone() path checkpoint_id=Some(checkpoint_id.clone()) />
            })}
        </section>
    }
}

/// Back to the list, with the focus on the checkpoint that was viewed.
fn back(viewing: RwSignal<Option<CheckpointView>>, checkpoint_id: String) {
    viewing.set(None);
    request_animation_frame(move || {
        let button = document()
            .query_selector(&format!(
                "[data-checkpoint-id='{checkpoint_id}'] [data-testid=checkpoint-view]"
            ))
            .ok()
            .flatten()
            .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok());
        if let Some(button) = button {
            let _ = button.focus();
        }
    });
}

fn load_earlier(
    state: RwSignal<Option<Result<CheckpointState, String>>>,
    params: CheckpointGetParams,
) {
    let before = state.with_untracked(|s| match s {
        Some(Ok(s)) => s.messages.first().map(|m| m.seq),
        _ => None,
    });
    let Some(before) = before else { return };
    leptos::task::spawn_local(async move {
        let params = CheckpointGetParams {
            before_seq: Some(before),
            ..params
        };
        match invoke::<cmd::CheckpointGet>(&params).await {
            Ok(page) => state.update(|s| {
                if let Some(Ok(s)) = s {
                    let mut messages = page.messages;
                    messages.append(&mut s.messages);
                    s.messages = messages;
                    s.has_more_before = page.has_more_before;
                }
            }),
            Err(e) => state.set(Some(Err(e.message))),
        }
    });
}

fn fork(inbox: Inbox, error: RwSignal<Option<String>>, thread_id: String, checkpoint_id: String) {
    leptos::task::spawn_local(async move {
        match invoke::<cmd::CheckpointFork>(&CheckpointForkParams {
            thread_id,
            checkpoint_id,
        })
        .await
        {
            Ok(fork) => {
                inbox.changed();
                inbox.open(fork.id, None);
            }
            Err(e) => error.set(Some(e.message)),
        }
    });
}

/// What a checkpoint's step changed, in words.
fn changes(checkpoint: &CheckpointView) -> String {
    let messages = checkpoint.messages_added;
    let files = checkpoint.files_changed.len();
    let plural = |n: u64, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let mut parts = Vec::new();
    if messages > 0 {
        parts.push(plural(messages, "message", "messages"));
    }
    if files > 0 {
        let shown: Vec<&str> = checkpoint
            .files_changed
            .iter()
            .take(3)
            .map(String::as_str)
            .collect();
        let more = if files > 3 { ", …" } else { "" };
        parts.push(format!(
            "{} ({}{more})",
            plural(files as u64, "file changed", "files changed"),
            shown.join(", ")
        ));
    }
    let what = if parts.is_empty() {
        "No changes".to_owned()
    } else {
        parts.join(" · ")
    };
    match checkpoint.source {
        CheckpointSource::Run => what,
        CheckpointSource::Edit => format!("Edited: {what}"),
        CheckpointSource::Fork if parts.is_empty() => "Forked".to_owned(),
        CheckpointSource::Fork => format!("Forked with {what}"),
    }
}

/// A time in the person's locale.
fn when(ms: i64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64));
    String::from(date.to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED))
}
