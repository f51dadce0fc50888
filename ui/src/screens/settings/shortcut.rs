//! Settings › General › Quick-ask shortcut: the global key combination that
//! opens the quick-ask window. Saved on blur or Enter; a taken or invalid
//! combination is refused with the reason and the previous one stays.

use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{
    DEFAULT_QUICK_ASK_SHORTCUT, ShortcutGetParams, ShortcutSetParams, ShortcutStatus, cmd,
};

#[component]
pub(crate) fn ShortcutField() -> impl IntoView {
    let status = RwSignal::new(None::<ShortcutStatus>);
    let draft = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let saved = RwSignal::new(false);
    leptos::task::spawn_local(async move {
        match invoke::<cmd::ShortcutGet>(&ShortcutGetParams {}).await {
            Ok(current) => {
                draft.set(current.accelerator.clone().unwrap_or_default());
                status.set(Some(current));
            }
            Err(e) => error.set(Some(e.message)),
        }
    });
    let save = move |accelerator: Option<String>| {
        let unchanged = status.with_untracked(|s| {
            s.as_ref().is_some_and(|s| {
                s.accelerator == accelerator && (s.active || s.accelerator.is_none())
            })
        });
        if unchanged {
            return;
        }
        leptos::task::spawn_local(async move {
            match invoke::<cmd::ShortcutSet>(&ShortcutSetParams { accelerator }).await {
                Ok(current) => {
                    draft.set(current.accelerator.clone().unwrap_or_default());
                    status.set(Some(current));
                    error.set(None);
                    saved.set(true);
                }
                Err(e) => {
                    saved.set(false);
                    error.set(Some(e.message));
                }
            }
        });
    };
    let commit = move || {
        let text = draft.get_untracked().trim().to_owned();
        save((!text.is_empty()).then_some(text));
    };
    let supported = move || status.with(|s| s.as_ref().is_none_or(|s| s.supported));
    view! {
        <fieldset class="field" data-testid="shortcut-field">
            <legend>"Quick-ask shortcut"</legend>
            <div class="field__row">
                <input
                    class="input"
                    data-testid="shortcut-input"
                    aria-label="Quick-ask shortcut"
                    placeholder=DEFAULT_QUICK_ASK_SHORTCUT
                    disabled=move || !supported()
                    prop:value=move || draft.get()
                    on:input=move |ev| {
                        saved.set(false);
                        draft.set(event_target_value(&ev));
                    }
                    on:blur=move |_| commit()
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" {
                            ev.prevent_default();
                            commit();
                        }
                    }
                />
                <button
                    class="button"
                    data-testid="shortcut-off"
                    disabled=move || !supported() || draft.with(String::is_empty)
                    on:click=move |_| save(None)
                >"Turn off"</button>
                <button
                    class="button"
                    data-testid="shortcut-default"
                    disabled=move || !supported()
                    on:click=move |_| save(Some(DEFAULT_QUICK_ASK_SHORTCUT.to_owned()))
                >"Default"</button>
            </div>
            <p class="hint muted">
                "Opens the quick-ask window from anywhere. Write it like Ctrl+Shift+Space."
            </p>
            {move || status.get().and_then(|s| s.problem).map(|problem| view! {
                <p class="banner banner--warning" role="status" data-testid="shortcut-problem">{problem}</p>
            })}
            <Show when=move || saved.get()>
                <p class="saved" role="status">"Saved"</p>
            </Show>
            {move || error.get().map(|message| view! {
                <p class="banner banner--error" role="alert" data-testid="shortcut-error">{message}</p>
            })}
        </fieldset>
    }
}
