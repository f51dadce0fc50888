//! The inbox: threads arrive with the store; for now, the empty states.

use leptos::prelude::*;

#[component]
pub(crate) fn InboxSidebar() -> impl IntoView {
    view! {
        <div class="sidebar__header">
            <h2 class="sidebar__title">"Inbox"</h2>
        </div>
        <p class="sidebar__empty muted">"Conversations you start will be listed here."</p>
    }
}

#[component]
pub(crate) fn InboxPane() -> impl IntoView {
    view! {
        <section class="empty" data-testid="inbox-empty">
            <h1>"Welcome to Pizza Bot"</h1>
            <p class="muted">
                "Start a task, get back to your day, and find finished work here. Begin by choosing a theme in Settings."
            </p>
        </section>
    }
}
