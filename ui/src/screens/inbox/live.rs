//! The live end of the feed: the streaming answer, tool cards, the approval
//! card, the error banner with its recovery action, and Resume / Discard.

use super::approval::ApprovalCard;
use super::delegation::{DelegationCard, TASK_TOOL, committed_task_call};
use super::message::humanize;
use super::stream::RunState;
use crate::screen::Screen;
use leptos::prelude::*;
use pizza_protocol::{ApiError, ErrorCode};

#[component]
pub(crate) fn LiveRun(run: RunState) -> impl IntoView {
    let streaming =
        move || run.running() || !run.text.is_empty() || run.tools.with(|t| !t.is_empty());
    view! {
        <p class="sr-only" role="status" aria-live="polite">
            {move || if run.running() { "Pizza Bot is answering…" } else { "" }}
        </p>
        <Show when=streaming>
            // Not a live region itself: announcing (and, in WebKit, re-reading)
            // the whole growing answer on every frame costs most of the frame.
            <article class="msg msg--assistant msg--streaming" data-testid="streaming-message">
                <header class="msg__header"><span class="msg__role">"Pizza Bot"</span></header>
                <Show when=move || run.reasoning.with(|r| !r.is_empty())>
                    <details class="reasoning">
                        <summary>"Reasoning"</summary>
                        <div class="markdown" inner_html=move || crate::markdown::to_html(&run.reasoning.get())></div>
                    </details>
                </Show>
                <For each=move || run.tools.get() key=|c| (c.call_id.clone(), c.result.is_some()) let:card>
                    {if card.name != TASK_TOOL {
                        view! { <ToolCardView card /> }.into_any()
                    } else if run.messages.with_untracked(|m| committed_task_call(m, &card.call_id)) {
                        // Its committed call above already shows the card.
                        ().into_any()
                    } else {
                        view! { <DelegationCard call_id=card.call_id arguments=card.arguments /> }.into_any()
                    }}
                </For>
                <div class="markdown" data-testid="streaming-text">
                    // Finished blocks render once; only the growing tail is
                    // re-rendered per frame, so a long answer stays cheap.
                    <For each=move || run.text.blocks.get().into_iter().enumerate() key=|(i, _)| *i let:block>
                        <div class="markdown__block" inner_html=crate::markdown::to_html(&block.1)></div>
                    </For>
                    <div class="markdown__block" inner_html=move || crate::markdown::to_html(&run.text.tail.read())></div>
                </div>
                <Show when=move || run.running() && run.text.is_empty() && run.interrupt.with(Option::is_none)>
                    <p class="muted typing" data-testid="working">"Working…"</p>
                </Show>
            </article>
        </Show>
        {move || run.interrupt.get().map(|interrupt| view! { <ApprovalCard run interrupt /> })}
        <Show when=move || run.resumable.get() && !run.running()>
            <div class="banner banner--warning" role="status" data-testid="resume-banner">
                <span>"The app closed while this thread was working."</span>
                <button class="button button--primary" data-testid="run-resume" on:click=move |_| run.resume()>"Resume"</button>
                <button class="button" data-testid="run-discard" on:click=move |_| run.discard()>"Discard"</button>
            </div>
        </Show>
        {move || run.error.get().map(|error| view! { <RunError run error /> })}
    }
}

#[component]
pub(super) fn ToolCardView(
    card: ToolCard,
    #[prop(into, default = String::from("tool-card"))] testid: String,
) -> impl IntoView {
    let (short, args) = super::message::call_text(&card.name, &card.arguments);
    let (mark, result, is_error) = match card.result {
        None => ("…", None, false),
        Some((text, true)) => ("✗", Some(text), true),
        Some((text, false)) => ("✓", Some(text), false),
    };
    view! {
        <details class="tool" class:tool--error=is_error data-testid=testid data-call-id=card.call_id data-tool=card.name.clone()>
            <summary>
                <span class="tool__name">{humanize(&card.name)}</span>" "
                <span class="muted mono">{short}</span>" "{mark}
            </summary>
            <pre class="tool__body">{args}</pre>
            {result.map(|r| view! { <pre class="tool__body" class:tool__error=is_error>{r}</pre> })}
        </details>
    }
}

/// What the user can do about a failed run.
fn recovery(code: ErrorCode) -> (&'static str, Option<&'static str>) {
    match code {
        ErrorCode::AuthExpired => (
            "The provider refused the key. Check the provider's API key in Settings.",
            Some("Open Settings"),
        ),
        ErrorCode::ModelUnavailable => (
            "This model is not available. Pick another model, or check the provider in Settings.",
            Some("Open Settings"),
        ),
        ErrorCode::RateLimit => (
            "The provider is rate limiting. Wait a moment, then send again.",
            None,
        ),
        ErrorCode::ContextLength => (
            "The conversation is too long for this model. Fork it from an earlier message, or pick a model with a larger window.",
            None,
        ),
        ErrorCode::Timeout | ErrorCode::StreamError => (
            "The connection to the provider failed. Send again to retry.",
            None,
        ),
        _ => ("Something went wrong with this run.", None),
    }
}

#[component]
fn RunError(run: RunState, error: ApiError) -> impl IntoView {
    let (hint, action) = recovery(error.code);
    let screen = use_context::<RwSignal<Screen>>();
    view! {
        <div class="banner banner--error run-error" role="alert" data-testid="run-error" data-code=error.code.as_str()>
            <div class="run-error__text">
                <strong>{error.message.clone()}</strong>
                <span data-testid="run-error-hint">{hint}</span>
            </div>
            {action.zip(screen).map(|(label, screen)| view! {
                <button class="button" data-testid="run-error-action" on:click=move |_| screen.set(Screen::Settings)>{label}</button>
            })}
            <button class="link" on:click=move |_| run.error.set(None)>"Dismiss"</button>
        </div>
    }
}

/// A tool call of the live run, as its card shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolCard {
    pub(crate) call_id: String,
    pub(crate) name: String,
    pub(crate) arguments: serde_json::Value,
    /// The result, and whether it is an error; `None` while running.
    pub(crate) result: Option<(String, bool)>,
}

impl ToolCard {
    /// Adds the card of a call that started; a replayed frame (after a
    /// resubscribe) adds no second card.
    pub(crate) fn started(
        cards: &mut Vec<ToolCard>,
        call_id: String,
        name: String,
        arguments: serde_json::Value,
    ) {
        if !cards.iter().any(|c| c.call_id == call_id) {
            cards.push(ToolCard {
                call_id,
                name,
                arguments,
                result: None,
            });
        }
    }

    /// Gives the card of `call_id` its result.
    pub(crate) fn finished(cards: &mut [ToolCard], call_id: &str, result: String, is_error: bool) {
        if let Some(card) = cards.iter_mut().find(|c| c.call_id == call_id) {
            card.result = Some((result, is_error));
        }
    }
}
