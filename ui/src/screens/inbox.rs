//! The inbox: the sidebar (views, search, folders, threads) and the thread pane.

mod approval;
mod approval_edit;
mod approval_preview;
mod attachments;
mod composer;
mod day_groups;
mod delegation;
mod folders;
mod gauge;
mod history;
mod import;
mod live;
mod message;
mod queues;
mod search;
pub(crate) mod state;
mod stream;
mod streamed;
mod thread_files;
mod thread_list;
mod thread_view;
mod tracking;

use crate::ipc::invoke;
use folders::FolderPanel;
use leptos::prelude::*;
use pizza_protocol::{ThreadCreateParams, ThreadId, ThreadView, cmd};
use search::{SearchBox, SearchResults};
use state::{Inbox, use_inbox};
use thread_list::ThreadList;
use thread_view::ThreadPane;

pub(crate) use approval_preview::line_kind;
pub(crate) use attachments::{AttachmentViewer, DropOverlay, follow_drops};
pub(crate) use gauge::ContextGauge;
pub(crate) use live::LiveRun;
pub(crate) use message::MessageCard;
pub(crate) use search::gloo_sleep;
pub(crate) use stream::RunState;
pub(crate) use thread_list::confirm_delete;
pub(crate) use tracking::{track_queues, track_running};

/// Creates an empty thread and opens it.
pub(crate) fn new_thread(inbox: Inbox) {
    new_thread_then(inbox, |_| {});
}

/// Creates an empty thread, opens it, then hands its id to `then`.
pub(crate) fn new_thread_then(inbox: Inbox, then: impl FnOnce(ThreadId) + 'static) {
    leptos::task::spawn_local(async move {
        let params = ThreadCreateParams {
            title: None,
            folder_id: inbox.folder.get_untracked(),
        };
        match invoke::<cmd::ThreadCreate>(&params).await {
            Ok(thread) => {
                inbox.search.set(None);
                inbox.changed();
                inbox.open(thread.id.clone(), None);
                then(thread.id);
            }
            Err(error) => inbox.report(error),
        }
    });
}

#[component]
pub(crate) fn InboxSidebar() -> impl IntoView {
    let inbox = use_inbox();
    // The list is made again only when search starts or ends, not each
    // time a click clears a search that was not there (New, a view tab):
    // a list made again costs a re-render of every row and leaves memory
    // behind in the page (a row's subscriptions to signals that rarely
    // change stay until those change).
    let searching = Memo::new(move |_| inbox.search.with(Option::is_some));
    let view_tab = move |view: ThreadView, label: &'static str| {
        let count = move || {
            let counts = inbox.counts.get();
            match view {
                ThreadView::All => counts.all,
                ThreadView::Unread => counts.unread,
                ThreadView::Action => counts.action,
            }
        };
        let attention = move || view == ThreadView::Action && count() != 0;
        view! {
            <button
                class="views__tab"
                class:views__tab--active=move || inbox.view.get() == view && inbox.search.get().is_none()
                class:views__tab--action=attention
                data-testid=format!("view-{}", label.to_lowercase())
                on:click=move |_| { inbox.search.set(None); inbox.view.set(view) }
            >
                {label}
                <span class="badge" data-testid=format!("count-{}", label.to_lowercase())>{count}</span>
            </button>
        }
    };
    view! {
        <div class="sidebar__header">
            <button class="button button--primary" data-testid="new-thread" title="New thread (Ctrl+N)" on:click=move |_| new_thread(inbox)>
                "+ New"
            </button>
            <import::ImportButton />
        </div>
        <SearchBox />
        <nav class="views" aria-label="Views">
            {view_tab(ThreadView::All, "All")}
            {view_tab(ThreadView::Unread, "Unread")}
            {view_tab(ThreadView::Action, "Action")}
        </nav>
        <FolderPanel />
        {move || if searching.get() {
            view! { <SearchResults /> }.into_any()
        } else {
            view! { <ThreadList /> }.into_any()
        }}
    }
}

#[component]
pub(crate) fn InboxPane() -> impl IntoView {
    let inbox = use_inbox();
    tracking::track_viewing(inbox);
    view! {
        {move || inbox.error.get().map(|error| view! {
            <div class="banner banner--error" role="alert" data-testid="error-banner">
                <span>{error.message}</span>
                <button class="link" on:click=move |_| inbox.error.set(None)>"Dismiss"</button>
            </div>
        })}
        {move || match inbox.selected.get() {
            Some(id) => view! { <ThreadPane thread_id=id /> }.into_any(),
            None => view! {
                <section class="empty" data-testid="inbox-empty">
                    <h1>"Welcome to Pizza Bot"</h1>
                    <p class="muted">"Start a task, get back to your day, and find finished work here."</p>
                    <button class="button button--primary" on:click=move |_| new_thread(inbox)>"Start a new thread"</button>
                </section>
            }.into_any(),
        }}
    }
}

/// The one confirmation dialog: destructive actions ask here first.
#[component]
pub(crate) fn ConfirmDialog() -> impl IntoView {
    let inbox = use_inbox();
    let confirm_button = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if inbox.confirm.get().is_some()
            && let Some(button) = confirm_button.get()
        {
            let _ = button.focus();
        }
    });
    move || {
        inbox.confirm.get().map(|request| {
            let request = request.get_value();
            let on_confirm = request.on_confirm.clone();
            view! {
                <div class="overlay" role="dialog" aria-modal="true" aria-label=request.title.clone()
                    on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); inbox.confirm.set(None) }>
                    <div class="overlay__card" data-testid="confirm-dialog">
                        <h2>{request.title.clone()}</h2>
                        <p>{request.body.clone()}</p>
                        <div class="overlay__buttons">
                            <button class="button" data-testid="confirm-cancel" on:click=move |_| inbox.confirm.set(None)>"Cancel"</button>
                            <button class="button button--danger" data-testid="confirm-ok" node_ref=confirm_button
                                on:click=move |_| { inbox.confirm.set(None); on_confirm() }>
                                {request.confirm_label}
                            </button>
                        </div>
                    </div>
                </div>
            }
        })
    }
}
