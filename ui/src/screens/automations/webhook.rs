//! A webhook's secret, shown once — after the webhook is made or its secret
//! rotated — with its URL and a ready `curl` line, each with Copy. The host
//! keeps only a hash: once this closes, the secret can only be replaced.

use super::schedule::{CURL_EXAMPLE_PROMPT, curl_line};
use super::state::use_automations;
use leptos::prelude::*;
use pizza_protocol::TriggerView;

fn copy(text: &str) {
    if let Some(window) = web_sys::window() {
        let _ = window.navigator().clipboard().write_text(text);
    }
}

/// A read-only value with a Copy button.
#[component]
fn CopyValue(label: &'static str, value: String, testid: &'static str) -> impl IntoView {
    let copied = RwSignal::new(false);
    let text = value.clone();
    view! {
        <div class="field">
            <span class="field__label">{label}</span>
            <div class="copy-value">
                <code class="copy-value__text mono" data-testid=testid>{value}</code>
                <button type="button" class="button" data-testid=format!("{testid}-copy")
                    on:click=move |_| { copy(&text); copied.set(true) }>
                    {move || if copied.get() { "Copied" } else { "Copy" }}
                </button>
            </div>
        </div>
    }
}

#[component]
pub(crate) fn SecretShown(trigger: TriggerView, secret: String) -> impl IntoView {
    let state = use_automations();
    let url = trigger.webhook_url.clone().unwrap_or_default();
    let curl = curl_line(&url, &secret, CURL_EXAMPLE_PROMPT);
    let done = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(button) = done.get() {
            let _ = button.focus();
        }
    });
    view! {
        <section class="editor form" data-testid="webhook-secret-panel" aria-labelledby="webhook-secret-title"
            on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); state.editing.set(None) }>
            <h2 id="webhook-secret-title">{trigger.name.clone()}</h2>
            <p class="banner banner--warning" role="status">
                "Copy the secret now: it is shown only this once. If it is lost, rotate it to get a new one."
            </p>
            <CopyValue label="URL" value=url testid="webhook-url" />
            <CopyValue label="Secret" value=secret testid="webhook-secret" />
            <CopyValue label="Try it" value=curl testid="webhook-curl" />
            <p class="hint muted">
                "The JSON body’s \"prompt\" (or \"text\", or a plain-text body) replaces the saved prompt for that run. "
                "Send the secret as Authorization: Bearer or X-Trigger-Secret."
            </p>
            <div class="editor__actions">
                <button type="button" class="button button--primary" data-testid="webhook-secret-done" node_ref=done
                    on:click=move |_| state.editing.set(None)>"Done"</button>
            </div>
        </section>
    }
}
