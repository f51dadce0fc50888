//! The sidebar's thread list: Pinned, then Today / Yesterday / Previous 7
//! days / Older, with per-thread actions.

use super::day_groups::{DAY_GROUPS, PINNED, follow_today, group_of, groups};
use super::state::{ConfirmRequest, Inbox, use_inbox};
use crate::ipc::invoke;
use crate::keys::window_lost_focus;
use leptos::prelude::*;
use pizza_protocol::{
    FolderMove, RunBrief, RunStatus, ThreadIdParams, ThreadSummary, ThreadUpdateParams, cmd,
};

/// Everything a row shows: a row is re-created only when this changes, so
/// a list refresh never disturbs a row being renamed or a menu being open.
/// (The running dot follows `Inbox::running` inside the row.)
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct RowKey {
    id: String,
    title: String,
    preview: String,
    pinned: bool,
    unread: bool,
    awaiting_action: bool,
    folder_id: Option<String>,
    outcome: Option<Outcome>,
}

fn row_key(thread: &ThreadSummary) -> RowKey {
    RowKey {
        id: thread.id.clone(),
        title: thread.title.clone(),
        preview: thread.preview.clone(),
        pinned: thread.pinned,
        unread: thread.unread,
        awaiting_action: thread.awaiting_action,
        folder_id: thread.folder_id.clone(),
        outcome: thread.last_run.as_ref().and_then(Outcome::of),
    }
}

/// How a thread's last run ended, when that is worth a mark in the list:
/// a success or a user's cancel is the normal case and shows nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Outcome {
    Failed,
    TimedOut,
}

impl Outcome {
    fn of(run: &RunBrief) -> Option<Self> {
        match run.status {
            RunStatus::Failed => Some(Self::Failed),
            RunStatus::TimedOut => Some(Self::TimedOut),
            _ => None,
        }
    }

    fn sentence(self) -> &'static str {
        match self {
            Self::Failed => "The last run failed. Open the thread to see why.",
            Self::TimedOut => {
                "The last run took too long and was stopped. Open the thread to retry."
            }
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Failed => "failed",
            Self::TimedOut => "timed_out",
        }
    }
}

#[component]
pub(crate) fn ThreadList() -> impl IntoView {
    let inbox = use_inbox();
    let today = follow_today(inbox);
    let present = move || {
        let today = today.get();
        inbox.threads.with(|threads| {
            groups()
                .filter(|group| threads.iter().any(|t| group_of(t, today) == *group))
                .collect::<Vec<_>>()
        })
    };
    let day_groups = serde_json::to_string(&DAY_GROUPS).unwrap_or_default();
    view! {
        <div class="threads" role="list" aria-label="Threads" data-testid="thread-list"
            data-day-groups=day_groups>
            <Show when=move || inbox.threads.with(Vec::is_empty)>
                <p class="sidebar__empty muted">{move || empty_text(inbox)}</p>
            </Show>
            <For each=present key=|group| *group let:group>
                <section class="threads__group" data-day-group=group != PINNED>
                    <h3 class="threads__heading">{group}</h3>
                    <For
                        each=move || {
                            inbox
                                .threads
                                .get()
                                .into_iter()
                                .filter(|t| group_of(t, today.get()) == group)
                                .collect::<Vec<_>>()
                        }
                        key=row_key
                        let:thread
                    >
                        <ThreadRow thread />
                    </For>
                </section>
            </For>
            <Show when=move || inbox.next_cursor.get().is_some()>
                <button class="threads__more link" on:click=move |_| inbox.load_more()>"Load more"</button>
            </Show>
        </div>
    }
}

fn empty_text(inbox: Inbox) -> &'static str {
    use pizza_protocol::ThreadView;
    match (inbox.view.get(), inbox.folder.get().is_some()) {
        (_, true) => "No threads in this folder. Move one here from its ⋯ menu.",
        (ThreadView::Unread, _) => "Nothing unread. Finished work you haven’t seen shows up here.",
        (ThreadView::Action, _) => "Nothing needs your decision.",
        (ThreadView::All, _) => "No threads yet. Press New to start one.",
    }
}

/// What a thread with nothing to name it by is called.
const UNTITLED: &str = "New thread";

/// The name a row shows: the title, else (a thread the store could not name
/// after its first message, e.g. one whose first message was only a file)
/// the start of its last message; `None` for a thread with nothing in it.
fn shown_title(thread: &ThreadSummary) -> Option<&str> {
    [thread.title.trim(), thread.preview.trim()]
        .into_iter()
        .find(|text| !text.is_empty())
}

/// The name a thread is shown by (its row, its pane's title), and whether
/// it is the placeholder for a thread with nothing to name it by.
pub(super) fn shown_name(thread: &ThreadSummary) -> (String, bool) {
    match shown_title(thread) {
        Some(shown) => (shown.to_owned(), false),
        None => (UNTITLED.to_owned(), true),
    }
}

#[component]
fn ThreadRow(thread: ThreadSummary) -> impl IntoView {
    let inbox = use_inbox();
    let id = thread.id.clone();
    let menu_open = RwSignal::new(false);
    // The row's reads of the inbox's signals, which outlive it: memos that
    // leave those signals with the row (see leaving.rs).
    let selected = {
        let id = id.clone();
        crate::leaving::memo(move |_| inbox.selected.get().as_deref() == Some(id.as_str()))
    };
    let renaming = {
        let id = id.clone();
        crate::leaving::memo(move |_| inbox.renaming.get().as_deref() == Some(id.as_str()))
    };
    let (unread, awaiting) = (thread.unread, thread.awaiting_action);
    let (title, preview) = (thread.title.clone(), thread.preview.clone());
    // A row named by its last message does not repeat it below.
    let preview = if title.trim().is_empty() {
        String::new()
    } else {
        preview
    };
    let (shown, untitled) = shown_name(&thread);
    let outcome = thread.last_run.as_ref().and_then(Outcome::of);
    let row_id = id.clone();
    // When it last moved, for a snapshot's rows regrouped on a later day
    // (the row is not made again when only this changes).
    let activity = {
        let id = id.clone();
        crate::leaving::memo(move |_| {
            inbox.threads.with(|threads| {
                threads
                    .iter()
                    .find(|t| t.id == id)
                    .map(|t| t.last_activity_at)
            })
        })
    };
    let running = {
        let id = id.clone();
        crate::leaving::memo(move |_| inbox.running.with(|r| r.contains(&id)))
    };
    let body = move || {
        if renaming.get() {
            return view! {
                <RenameInput
                    thread_id=row_id.clone()
                    title=title.clone()
                    on_close=move |()| inbox.renaming.set(None)
                />
            }
            .into_any();
        }
        let id = row_id.clone();
        view! {
            <button class="thread__main" aria-current=move || selected.get().then_some("true")
                on:click=move |_| inbox.open(id.clone(), None)>
                <span class="thread__title">
                    {awaiting.then(|| view! { <span class="thread__action" title="Waiting for your decision">"●"</span> })}
                    <span class="thread__title-text" class:muted=untitled data-testid="thread-title">{shown.clone()}</span>
                    {move || if running.get() {
                        Some(view! {
                            <span class="thread__running" title="Working" aria-label="Working" data-testid="running-dot">"●"</span>
                        }.into_any())
                    } else {
                        outcome.map(|outcome| view! {
                            <span class="thread__outcome" title=outcome.sentence() aria-label=outcome.sentence()
                                data-testid="run-outcome" data-outcome=outcome.name()>"!"</span>
                        }.into_any())
                    }}
                </span>
                <span class="thread__preview muted">{preview.clone()}</span>
            </button>
        }
        .into_any()
    };
    view! {
        <div
            class="thread"
            class:thread--selected=selected
            class:thread--unread=unread
            role="listitem"
            data-testid="thread-row"
            data-thread-id=id
            data-activity=move || activity.get()
        >
            {body}
            <button
                class="thread__menu-button"
                aria-label="Thread actions"
                aria-haspopup="menu"
                data-testid="thread-menu"
                on:click=move |_| menu_open.update(|o| *o = !*o)
            >
                "⋯"
            </button>
            <Show when=move || menu_open.get()>
                <ThreadMenu thread=thread.clone() menu_open />
            </Show>
        </div>
    }
}

/// A thread title field, in the sidebar or the pane header: Enter or leaving
/// the field saves (switching to another window does not), Escape or an
/// empty title cancels; `on_close` runs either way.
#[component]
pub(crate) fn RenameInput(
    thread_id: String,
    title: String,
    #[prop(into)] on_close: Callback<()>,
    #[prop(default = "rename")] class: &'static str,
    #[prop(default = "rename-input")] testid: &'static str,
) -> impl IntoView {
    let inbox = use_inbox();
    let input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(el) = input.get() {
            let _ = el.focus();
            el.select();
        }
    });
    let done = StoredValue::new(false);
    let save = move |value: String| {
        if done.get_value() {
            return;
        }
        done.set_value(true);
        on_close.run(());
        let value = value.trim().to_owned();
        if value.is_empty() {
            return;
        }
        update(
            inbox,
            ThreadUpdateParams {
                thread_id: thread_id.clone(),
                title: Some(value),
                ..ThreadUpdateParams::default()
            },
        );
    };
    let save_on_key = save.clone();
    view! {
        <input
            class=class
            node_ref=input
            value=title
            aria-label="Thread title"
            data-testid=testid
            maxlength="200"
            on:keydown=move |ev| match ev.key().as_str() {
                "Enter" => save_on_key(event_target_value(&ev)),
                "Escape" => {
                    ev.stop_propagation();
                    done.set_value(true);
                    on_close.run(());
                }
                _ => {}
            }
            on:blur=move |ev| if !window_lost_focus(&ev) { save(event_target_value(&ev)) }
        />
    }
}

#[component]
fn ThreadMenu(thread: ThreadSummary, menu_open: RwSignal<bool>) -> impl IntoView {
    let inbox = use_inbox();
    let id = thread.id.clone();
    let pin = {
        let id = id.clone();
        move |_| {
            menu_open.set(false);
            update(
                inbox,
                ThreadUpdateParams {
                    thread_id: id.clone(),
                    pinned: Some(!thread.pinned),
                    ..ThreadUpdateParams::default()
                },
            );
        }
    };
    let rename = {
        let id = id.clone();
        move |_| {
            menu_open.set(false);
            inbox.renaming.set(Some(id.clone()));
        }
    };
    let delete = {
        let thread = thread.clone();
        move |_| {
            menu_open.set(false);
            confirm_delete(
                inbox,
                thread.id.clone(),
                shown_title(&thread).unwrap_or(UNTITLED),
            );
        }
    };
    let current_folder = thread.folder_id.clone();
    let moves = move || {
        let id = id.clone();
        let current = current_folder.clone();
        let mut items: Vec<(Option<String>, String)> = inbox
            .folders
            .get()
            .into_iter()
            .filter(|f| Some(&f.id) != current.as_ref())
            .map(|f| (Some(f.id), f.name))
            .collect();
        if current.is_some() {
            items.insert(0, (None, "Inbox (no folder)".to_owned()));
        }
        items
            .into_iter()
            .map(|(folder_id, name)| {
                let id = id.clone();
                let label = format!("Move to {name}");
                view! {
                    <button role="menuitem" class="menu__item" data-testid="move-to" data-folder-name=name.clone()
                        on:click=move |_| {
                            menu_open.set(false);
                            update(inbox, ThreadUpdateParams {
                                thread_id: id.clone(),
                                folder: Some(FolderMove { folder_id: folder_id.clone() }),
                                ..ThreadUpdateParams::default()
                            });
                        }>
                        {label}
                    </button>
                }
            })
            .collect_view()
    };
    view! {
        <div class="menu" role="menu" on:keydown=move |ev| if ev.key() == "Escape" { menu_open.set(false) }>
            <button role="menuitem" class="menu__item" data-testid="menu-pin" on:click=pin>
                {if thread.pinned { "Unpin" } else { "Pin" }}
            </button>
            <button role="menuitem" class="menu__item" data-testid="menu-rename" on:click=rename>"Rename"</button>
            {moves}
            <button role="menuitem" class="menu__item menu__item--danger" data-testid="menu-delete" on:click=delete>"Delete…"</button>
        </div>
    }
}

pub(crate) fn update(inbox: Inbox, params: ThreadUpdateParams) {
    leptos::task::spawn_local(async move {
        match invoke::<cmd::ThreadUpdate>(&params).await {
            Ok(_) => inbox.changed(),
            Err(error) => inbox.report(error),
        }
    });
}

pub(crate) fn confirm_delete(inbox: Inbox, id: String, title: &str) {
    inbox.ask(ConfirmRequest {
        title: "Delete this thread?".to_owned(),
        body: format!("“{title}” and everything in it will be deleted. This can’t be undone."),
        confirm_label: "Delete",
        on_confirm: std::rc::Rc::new(move || {
            let id = id.clone();
            leptos::task::spawn_local(async move {
                match invoke::<cmd::ThreadDelete>(&ThreadIdParams {
                    thread_id: id.clone(),
                })
                .await
                {
                    Ok(()) => {
                        if inbox.selected.get_untracked().as_deref() == Some(id.as_str()) {
                            inbox.selected.set(None);
                        }
                        inbox.changed();
                    }
                    Err(error) => inbox.report(error),
                }
            });
        }),
    });
}
