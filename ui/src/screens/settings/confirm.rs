//! A confirmation dialog for the settings pages: says what an action will do
//! and waits for an explicit choice. Escape or Cancel changes nothing.

use leptos::prelude::*;

/// What to ask, and what to run on yes.
#[derive(Clone)]
pub(crate) struct Question {
    pub(crate) title: String,
    pub(crate) body: String,
    pub(crate) confirm_label: &'static str,
    /// A destructive action gets the danger style.
    pub(crate) danger: bool,
    pub(crate) on_confirm: Callback<()>,
}

/// The open question, if any; set it to ask.
pub(crate) type Asking = RwSignal<Option<StoredValue<Question>>>;

pub(crate) fn ask(asking: Asking, question: Question) {
    asking.set(Some(StoredValue::new(question)));
}

#[component]
pub(crate) fn ConfirmDialog(asking: Asking) -> impl IntoView {
    let confirm_button = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if asking.get().is_some()
            && let Some(button) = confirm_button.get()
        {
            let _ = button.focus();
        }
    });
    move || {
        asking.get().map(|question| {
            let question = question.get_value();
            let on_confirm = question.on_confirm;
            view! {
                <div class="overlay" role="dialog" aria-modal="true" aria-label=question.title.clone()
                    on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); asking.set(None) }>
                    <div class="overlay__card" data-testid="settings-confirm">
                        <h2>{question.title.clone()}</h2>
                        <p class="overlay__body">{question.body.clone()}</p>
                        <div class="overlay__buttons">
                            <button class="button" data-testid="settings-confirm-cancel" on:click=move |_| asking.set(None)>"Cancel"</button>
                            <button
                                class="button"
                                class:button--danger=question.danger
                                class:button--primary=!question.danger
                                data-testid="settings-confirm-ok"
                                node_ref=confirm_button
                                on:click=move |_| { asking.set(None); on_confirm.run(()) }
                            >
                                {question.confirm_label}
                            </button>
                        </div>
                    </div>
                </div>
            }
        })
    }
}
