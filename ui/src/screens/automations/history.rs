//! A trigger's history: its occurrences, newest first, a page at a time —
//! including the ones that were skipped, caught up or gave up, each with the
//! sentence that says why.

use super::row::{reason_label, status_class, status_label};
use super::state::use_automations;
use super::{ThreadLink, local_time};
use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{OccurrenceListParams, OccurrenceView, cmd};

#[component]
pub(crate) fn History(trigger_id: String) -> impl IntoView {
    let state = use_automations();
    let occurrences = RwSignal::new(Vec::<OccurrenceView>::new());
    let next_cursor = RwSignal::new(None::<String>);
    let loaded = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let trigger_id = StoredValue::new(trigger_id);

    // A next page adds to the newest first page; a first page read again
    // (something fired) makes older answers stale.
    let asked = Latest::new();
    let load = move |cursor: Option<String>| {
        let params = OccurrenceListParams {
            trigger_id: trigger_id.get_value(),
            cursor: cursor.clone(),
        };
        let ticket = if cursor.is_some() {
            asked.join()
        } else {
            asked.ask()
        };
        leptos::task::spawn_local(async move {
            let answer = invoke::<cmd::OccurrenceList>(&params).await;
            if !ticket.is_newest() {
                return;
            }
            match answer {
                Ok(page) => {
                    if cursor.is_some() {
                        occurrences.update(|list| list.extend(page.occurrences));
                    } else {
                        occurrences.set(page.occurrences);
                    }
                    next_cursor.set(page.next_cursor);
                    loaded.set(true);
                    error.set(None);
                }
                Err(e) => error.set(Some(e.message)),
            }
        });
    };
    // The first page again on each change the host announces: a fire adds
    // or moves the newest rows.
    Effect::new(move |_| {
        state.revision.track();
        load(None);
    });

    view! {
        <div class="history" data-testid="trigger-history">
            {move || error.get().map(|m| view! { <p class="banner banner--error" role="alert">{m}</p> })}
            <Show when=move || loaded.get() && occurrences.with(Vec::is_empty)>
                <p class="muted">"Nothing has fired yet."</p>
            </Show>
            <table class="history__table" aria-label="History">
                <Show when=move || !occurrences.with(Vec::is_empty)>
                    <thead>
                        <tr><th>"When"</th><th>"Why"</th><th>"Outcome"</th><th>"Attempts"</th><th></th></tr>
                    </thead>
                </Show>
                <tbody>
                    <For each=move || occurrences.get() key=|o| (o.id.clone(), o.updated_at) let:o>
                        <tr class="history__row" data-testid="occurrence-row" data-status=status_class(o.status)>
                            <td>{move || local_time(o.scheduled_at)}</td>
                            <td data-testid="occurrence-reason">{reason_label(o.reason)}</td>
                            <td>
                                <span class=format!("outcome outcome--{}", status_class(o.status))>{status_label(o.status)}</span>
                                {o.sentence.clone().map(|s| view! { <span class="muted history__sentence">" — " {s}</span> })}
                            </td>
                            <td>{o.attempts}</td>
                            <td>{o.thread_id.clone().map(|id| view! { <ThreadLink thread_id=id label="Thread" /> })}</td>
                        </tr>
                    </For>
                </tbody>
            </table>
            <Show when=move || next_cursor.get().is_some()>
                <button class="button threads__more" data-testid="history-more"
                    on:click=move |_| load(next_cursor.get_untracked())>"Load more"</button>
            </Show>
        </div>
    }
}
