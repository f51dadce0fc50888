//! The status bar's context gauge for the open thread: what the thread's
//! last model call used, from the stored thread when it opens and from each
//! live call after that, and whether older turns were summarized.

use leptos::prelude::*;
use pizza_protocol::ContextUse;

/// Percent of the window used, 0–100.
fn percent(context: ContextUse) -> u64 {
    if context.context_window == 0 {
        return 0;
    }
    (context.used_tokens * 100 / u64::from(context.context_window)).min(100)
}

/// Shows what thread `thread_id`'s stored checkpoint says, if that thread
/// is still the open one and no live call of it already said more.
pub(crate) fn show_stored(inbox: super::state::Inbox, thread_id: &str, stored: Option<ContextUse>) {
    let still_open = inbox
        .selected
        .with_untracked(|selected| selected.as_deref() == Some(thread_id));
    if let Some(stored) = stored
        && still_open
        && inbox.context.with_untracked(Option::is_none)
    {
        inbox.context.set(Some(stored));
    }
}

/// The status bar's context gauge: tokens used of the model's window.
#[component]
pub(crate) fn ContextGauge() -> impl IntoView {
    let inbox = super::state::use_inbox();
    move || {
        inbox.context.get().map(|context| {
            let percent = percent(context);
            let (warning, danger) = ((75..90).contains(&percent), percent >= 90);
            let title = format!(
                "{} of {} tokens at the last model call",
                context.used_tokens, context.context_window
            );
            view! {
                <span class="statusbar__item gauge" data-testid="context-gauge" title=title
                    class:gauge--warning=warning class:gauge--danger=danger>
                    "context "
                    <progress class="gauge__bar" max="100" value=percent></progress>
                    {format!(" {percent}%")}
                </span>
                {context.summarized.then(|| view! {
                    <span class="statusbar__item muted" data-testid="context-summarized"
                        title="Older turns were replaced by a summary in the last request; the thread itself is whole.">
                        "summarized"
                    </span>
                })}
            }
        })
    }
}
