//! The status bar's context gauge for the open thread.

use leptos::prelude::*;

/// The status bar's context gauge: tokens used of the model's window.
#[component]
pub(crate) fn ContextGauge() -> impl IntoView {
    let inbox = super::state::use_inbox();
    move || {
        inbox.context.get().map(|(used, window)| {
            let percent = if window == 0 { 0 } else { (used * 100 / u64::from(window)).min(100) };
            let (warning, danger) = ((75..90).contains(&percent), percent >= 90);
            view! {
                <span class="statusbar__item gauge" data-testid="context-gauge" title=format!("{used} of {window} tokens")
                    class:gauge--warning=warning class:gauge--danger=danger>
                    "context "
                    <progress class="gauge__bar" max="100" value=percent></progress>
                    {format!(" {percent}%")}
                </span>
            }
        })
    }
}
