//! The composer: a growing text area (Enter sends, Shift+Enter breaks the
//! line, IME-safe), the model picker, Send / Stop, the host's queued messages
//! as chips, a draft per thread and ↑/↓ recall of earlier prompts. Files
//! come through + (the host's picker), a paste or a drop on the window, and
//! wait as chips (kept per thread, like the draft) until a send takes them.

mod saved;

use super::stream::RunState;
use crate::components::attachments::{AttachmentChips, Tray};
use crate::components::model_picker::ModelPicker;
use leptos::prelude::*;

const MAX_ROWS: usize = 12;

#[component]
pub(crate) fn Composer(run: RunState) -> impl IntoView {
    let thread_id = run.thread_id.get_value();
    run.draft.set(saved::draft(&thread_id));
    saved::restore(thread_id.clone(), run.draft);
    // Whether the host holds exactly the text shown (for tests, and so a
    // restart right now loses nothing).
    let stored = RwSignal::new(true);
    // Keep the draft whatever changed it (typing, a suggestion, a send).
    Effect::new(move |_| {
        run.draft
            .with(|text| saved::changed(&run.thread_id.get_value(), text, stored));
    });
    {
        let thread_id = thread_id.clone();
        on_cleanup(move || {
            saved::flush(&thread_id, None);
            // The typing in this composer can no longer be undone.
            crate::edits::forget();
        });
    }
    // Where ↑/↓ is in the history; `None`: editing a new prompt.
    let recall = StoredValue::new(None::<usize>);
    let textarea = NodeRef::<leptos::html::Textarea>::new();
    let tray = StoredValue::new(run.inbox.tray(thread_id));
    let uploading = move || tray.with_value(Tray::uploading);
    let empty =
        move || run.draft.with(|t| t.trim().is_empty()) && !tray.with_value(Tray::has_files);

    let submit = move || {
        let text = run.draft.get_untracked();
        let Some(attachments) = tray.try_with_value(Tray::ids_untracked) else {
            return;
        };
        if (text.trim().is_empty() && attachments.is_empty())
            || tray.with_value(|t| untrack(|| t.uploading()))
        {
            return;
        }
        saved::sent(&run.thread_id.get_value(), text.clone(), stored);
        recall.set_value(None);
        run.draft.set(String::new());
        crate::edits::forget();
        // The chips stay until the host has the message: a failed send
        // loses no file.
        let tray = tray.get_value();
        leptos::task::spawn_local(async move {
            if run.send(text, attachments.clone()).await {
                tray.sent(&attachments);
            }
        });
    };
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        // Never act on a key that is part of an IME composition.
        if ev.is_composing() || ev.key_code() == 229 {
            return;
        }
        let at_edge = |start: bool| {
            textarea.get_untracked().is_some_and(|el| {
                let caret = el.selection_start().ok().flatten().unwrap_or(0) as usize;
                let len = el.value().encode_utf16().count();
                if start { caret == 0 } else { caret >= len }
            })
        };
        match ev.key().as_str() {
            "Enter" if !ev.shift_key() => {
                ev.prevent_default();
                submit();
            }
            "ArrowUp" if at_edge(true) => {
                let history = saved::history();
                if history.is_empty() {
                    return;
                }
                let index = recall
                    .get_value()
                    .map_or(history.len() - 1, |i| i.saturating_sub(1));
                ev.prevent_default();
                recall.set_value(Some(index));
                run.draft.set(history[index].clone());
            }
            "ArrowDown" if at_edge(false) => {
                let Some(index) = recall.get_value() else {
                    return;
                };
                ev.prevent_default();
                let history = saved::history();
                if index + 1 < history.len() {
                    recall.set_value(Some(index + 1));
                    run.draft.set(history[index + 1].clone());
                } else {
                    recall.set_value(None);
                    run.draft.set(String::new());
                }
            }
            "Escape" => {
                if let Some(el) = textarea.get_untracked() {
                    let _ = el.blur();
                }
            }
            _ => {}
        }
    };
    let rows = move || {
        run.draft
            .with(|t| t.lines().count().max(1) + usize::from(t.ends_with('\n')))
            .clamp(2, MAX_ROWS)
    };

    view! {
        <div class="composer" data-testid="composer"
            data-draft-stored=move || if stored.get() { "true" } else { "false" }>
            <Show when=move || !run.queued().is_empty()>
                <ul class="composer__queue" aria-label="Queued messages">
                    <li class="composer__queue-note" data-testid="queue-note">{move || {
                        if run.awaiting_decision() { "Sends after your decision" } else { "Sends when this run ends" }
                    }}</li>
                    <For each=move || run.queued() key=|m| m.id.clone() let:message>
                        <li class="chip" data-testid="queued-message">
                            <span class="chip__text">{message.text}</span>
                            {(!message.attachments.is_empty()).then(|| {
                                let names = message.attachments.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ");
                                view! {
                                    <span class="chip__attachments muted" data-testid="queued-attachments"
                                        title=names.clone()>{format!("with {names}")}</span>
                                }
                            })}
                            <button class="chip__remove" aria-label="Remove queued message"
                                on:click=move |_| run.unqueue(message.id.clone())>"✕"</button>
                        </li>
                    </For>
                </ul>
            </Show>
            <div class="composer__box">
                <AttachmentChips tray=tray.get_value() />
                <textarea class="composer__input" node_ref=textarea data-testid="composer-input"
                    aria-label="Message" placeholder=move || {
                        if run.awaiting_decision() { "Queue a message for after your decision…" }
                        else if run.running() { "Queue a message…" } else { "Ask anything…" }
                    }
                    rows=rows
                    prop:value=move || run.draft.get()
                    on:input=move |ev| { recall.set_value(None); run.draft.set(event_target_value(&ev)) }
                    on:keydown=on_keydown
                    on:blur=move |_| saved::flush(&run.thread_id.get_value(), Some(stored))
                    on:paste=move |ev| { tray.with_value(|t| t.paste(&ev)); }></textarea>
                <div class="composer__bar">
                    <button class="icon-button composer__attach" data-testid="attach-button"
                        aria-label="Attach files" title="Attach files"
                        on:click=move |_| tray.with_value(super::attachments::pick)>"+"</button>
                    <ModelPicker selected=run.model on_change=Callback::new(move |m| run.model.set(m))
                        automatic="Default model" testid="composer-model" />
                    <span class="composer__spacer"></span>
                    {move || if run.running() {
                        view! { <button class="button" data-testid="composer-stop" on:click=move |_| run.stop()>"Stop"</button> }.into_any()
                    } else {
                        view! {
                            <button class="button button--primary" data-testid="composer-send"
                                disabled=move || empty() || uploading()
                                title=move || uploading().then_some("Waiting for files to attach…")
                                on:click=move |_| submit()>"Send"</button>
                        }.into_any()
                    }}
                </div>
            </div>
        </div>
    }
}

/// What an empty thread offers: a sentence and a few prompts to start from.
#[component]
pub(crate) fn Welcome(run: RunState) -> impl IntoView {
    const SUGGESTIONS: [&str; 3] = [
        "Summarise the files in my workspace",
        "Draft a plan for this week",
        "Explain a concept to me step by step",
    ];
    view! {
        <section class="welcome" data-testid="welcome">
            <p class="muted">"Ask anything below — Pizza Bot works on it while you get on with your day."</p>
            <div class="welcome__prompts">
                {SUGGESTIONS.into_iter().map(|prompt| view! {
                    <button class="button welcome__prompt" data-testid="suggested-prompt"
                        on:click=move |_| run.draft.set(prompt.to_owned())>{prompt}</button>
                }).collect_view()}
            </div>
        </section>
    }
}
