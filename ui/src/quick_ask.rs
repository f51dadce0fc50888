//! The quick-ask window (`?view=quick-ask`): one input; Enter starts a new
//! thread with the default model and the answer streams below. "Open in
//! Pizza Bot" shows the thread in the main window; Esc hides this window
//! while the run goes on (it lands in Unread: this window never reports a
//! viewed thread). A pasted image or file goes with the question as a chip;
//! this window may only add and remove files (no picker, no opening).
//! What was typed into a window made anew before its input could take keys
//! the app kept: it goes first in the input (and is sent, if Enter
//! followed it).

use crate::components::attachments::{AttachmentChips, Tray};
use crate::ipc::invoke;
use crate::screens::inbox::state::Inbox;
use crate::screens::inbox::{LiveRun, MessageCard, RunState};
use leptos::ev::KeyboardEvent;
use leptos::html;
use leptos::prelude::*;
use pizza_protocol::{
    ApiError, QuickAskHideParams, QuickAskOpenThreadParams, QuickAskTypedAheadParams, Role, RunId,
    RunStartParams, ThreadId, WindowEvent, cmd,
};

/// Whether this webview is the quick-ask window.
pub(crate) fn is_quick_ask() -> bool {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .is_some_and(|q| q.contains("view=quick-ask"))
}

#[component]
pub(crate) fn QuickAsk() -> impl IntoView {
    // The live-run view reads the inbox for its running set; this one is private.
    let inbox = Inbox::new();
    provide_context(inbox);
    let draft = RwSignal::new(String::new());
    let asked = RwSignal::new(None::<(ThreadId, RunId)>);
    let error = RwSignal::new(None::<ApiError>);
    // Stored for no thread yet: the question's new thread adopts them.
    let tray = StoredValue::new(Tray::new(inbox.attachments, None, error));
    let sending = RwSignal::new(false);
    let input = NodeRef::<html::Textarea>::new();

    let focus = move || {
        if let Some(input) = input.get_untracked() {
            let _ = input.focus();
            input.select();
        }
    };

    // Enter pressed while the keys typed ahead are on their way waits for
    // them: the question would go without its start.
    let earlier = StoredValue::new(Earlier::Placed);
    let ask = move || {
        if let Earlier::Coming { .. } = earlier.get_value() {
            earlier.set_value(Earlier::Coming { enter: true });
            return;
        }
        let text = draft.get_untracked().trim().to_owned();
        let attachments = tray.with_value(Tray::ids_untracked);
        if (text.is_empty() && attachments.is_empty())
            || sending.get_untracked()
            || tray.with_value(|t| untrack(|| t.uploading()))
        {
            return;
        }
        sending.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            let params = RunStartParams {
                thread_id: None,
                text,
                model: None,
                attachments,
            };
            match invoke::<cmd::RunStart>(&params).await {
                Ok(started) => {
                    draft.set(String::new());
                    crate::edits::forget();
                    tray.with_value(|t| t.sent(&params.attachments));
                    asked.set(Some((started.thread_id, started.run_id)));
                }
                Err(e) => error.set(Some(e)),
            }
            sending.set(false);
        });
    };
    Effect::new(move |_| {
        if input.get().is_some() {
            focus();
            // Keys typed before this input could take them, kept by the
            // app: they go before whatever reached it since.
            earlier.set_value(Earlier::Coming { enter: false });
            leptos::task::spawn_local(async move {
                let params = QuickAskTypedAheadParams {};
                let taken = invoke::<cmd::QuickAskTypedAhead>(&params).await;
                let enter = earlier.get_value() == Earlier::Coming { enter: true };
                earlier.set_value(Earlier::Placed);
                let send = match taken {
                    Ok(typed) => put_first(&typed.text, draft, input) && typed.send,
                    Err(e) => {
                        error.set(Some(e));
                        false
                    }
                };
                if send || enter {
                    ask();
                }
            });
            // The host logs when the input painted, as for the inbox.
            crate::place::when_painted(true, |params| {
                leptos::task::spawn_local(async move {
                    let _ = invoke::<cmd::WindowPainted>(&params).await;
                });
            });
        }
    });
    crate::events::on_window_event(WindowEvent::QuickAskShown, focus);
    let hide = move || {
        leptos::task::spawn_local(async move {
            if let Err(e) = invoke::<cmd::QuickAskHide>(&QuickAskHideParams {}).await {
                error.set(Some(e));
            }
        });
    };
    let open_in_app = move |_| {
        let Some((thread_id, _)) = asked.get_untracked() else {
            return;
        };
        leptos::task::spawn_local(async move {
            let params = QuickAskOpenThreadParams { thread_id };
            if let Err(e) = invoke::<cmd::QuickAskOpenThread>(&params).await {
                error.set(Some(e));
            }
        });
    };
    let on_keydown = move |ev: KeyboardEvent| match ev.key().as_str() {
        "Enter" if !ev.shift_key() => {
            ev.prevent_default();
            ask();
        }
        "Escape" => {
            ev.prevent_default();
            hide();
        }
        _ => {}
    };
    // Esc anywhere in the window, not only in the input.
    let window_keys = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() == "Escape" && !ev.default_prevented() {
            hide();
        }
    });
    on_cleanup(move || window_keys.remove());

    view! {
        <main class="quick-ask" data-testid="quick-ask">
            <textarea
                class="quick-ask__input"
                data-testid="quick-ask-input"
                rows="2"
                placeholder="Ask Pizza Bot… (Enter to send, Esc to hide)"
                aria-label="Ask Pizza Bot"
                node_ref=input
                prop:value=move || draft.get()
                on:input=move |ev| draft.set(event_target_value(&ev))
                on:keydown=on_keydown
                on:paste=move |ev| { tray.with_value(|t| t.paste(&ev)); }
            ></textarea>
            <AttachmentChips tray=tray.get_value() />
            {move || error.get().map(|e| view! {
                <p class="banner banner--error" role="alert" data-testid="quick-ask-error">{e.message}</p>
            })}
            <section class="quick-ask__answer">
                {move || asked.get().map(|(thread_id, run_id)| view! { <Answer thread_id run_id /> })}
            </section>
            <footer class="quick-ask__footer">
                <span class="muted">"Esc hides this window; the answer lands in your inbox."</span>
                <button
                    class="button"
                    data-testid="quick-ask-open"
                    disabled=move || asked.with(Option::is_none)
                    on:click=open_in_app
                >"Open in Pizza Bot"</button>
            </footer>
        </main>
    }
}

/// Where the keys typed before the input could take them are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Earlier {
    /// Asked of the app; `enter`: Enter was pressed in the input meanwhile.
    Coming { enter: bool },
    /// In the input (or there were none).
    Placed,
}

/// Puts `typed` before the draft, the caret after all of it; whether there
/// was anything to put.
fn put_first(typed: &str, draft: RwSignal<String>, input: NodeRef<html::Textarea>) -> bool {
    if typed.is_empty() {
        return false;
    }
    draft.update(|draft| draft.insert_str(0, typed));
    if let Some(input) = input.get_untracked() {
        let value = draft.get_untracked();
        input.set_value(&value);
        // The DOM counts UTF-16 units.
        let end = u32::try_from(value.encode_utf16().count()).unwrap_or(u32::MAX);
        let _ = input.set_selection_range(end, end);
    }
    true
}

/// The question's thread: its run streaming, then the finished answer.
#[component]
fn Answer(thread_id: ThreadId, run_id: RunId) -> impl IntoView {
    let messages = RwSignal::new(Vec::new());
    let run = RunState::new(
        crate::screens::inbox::state::use_inbox(),
        thread_id,
        messages,
    );
    run.live_run.set(Some(run_id));
    // From the start of the thread: a quick answer may be over already.
    run.subscribe(Some(0));
    view! {
        <div
            class="quick-ask__feed"
            data-testid="quick-ask-answer"
            on:click=move |ev| {
                crate::links::follow_outside(&ev);
            }
        >
            <For
                each=move || messages.get().into_iter().filter(|m| m.role == Role::Assistant)
                key=|m| m.id.clone()
                let:message
            >
                <MessageCard message on_fork=None />
            </For>
            <LiveRun run />
        </div>
    }
}
