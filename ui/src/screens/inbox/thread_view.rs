//! The main pane for one thread: title, actions, and the transcript paged
//! from the end (never all messages in the DOM).

use super::composer::{Composer, Welcome};
use super::history::{OpenSidePanel, SidePanel, SidePanelButtons};
use super::live::LiveRun;
use super::message::MessageCard;
use super::state::{Inbox, use_inbox};
use super::stream::RunState;
use super::thread_list::{RenameInput, confirm_delete, shown_name, update};
use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{
    ExportChooseParams, ExportFormat, MessageView, Role, ThreadExportParams, ThreadForkParams,
    ThreadGetParams, ThreadSummary, ThreadUpdateParams, cmd,
};
use wasm_bindgen::JsCast;

const PAGE: u32 = 50;

#[derive(Clone, Copy)]
struct Feed {
    thread: RwSignal<Option<ThreadSummary>>,
    /// The reads of the thread's header: a rename answered out of order
    /// must not bring the old title back.
    thread_asked: Latest,
    messages: RwSignal<Vec<MessageView>>,
    more_before: RwSignal<bool>,
    more_after: RwSignal<bool>,
    notice: RwSignal<Option<String>>,
}

#[component]
pub(crate) fn ThreadPane(thread_id: String) -> impl IntoView {
    let inbox = use_inbox();
    let feed = Feed {
        thread: RwSignal::new(None),
        thread_asked: Latest::new(),
        messages: RwSignal::new(Vec::new()),
        more_before: RwSignal::new(false),
        more_after: RwSignal::new(false),
        notice: RwSignal::new(None),
    };
    let run = RunState::new(inbox, thread_id.clone(), feed.messages);
    let focus = inbox.focus_seq.get_untracked();
    open(inbox, feed, run, thread_id.clone(), focus);

    // Keep the header current when the host reports changes (a rename, a pin).
    let id_for_refresh = thread_id.clone();
    Effect::new(move |previous: Option<()>| {
        inbox.revision.track();
        if previous.is_none() {
            return;
        }
        let thread_id = id_for_refresh.clone();
        let ticket = feed.thread_asked.ask();
        leptos::task::spawn_local(async move {
            let params = ThreadGetParams {
                thread_id,
                before_seq: None,
                limit: Some(1),
            };
            if let Ok(detail) = invoke::<cmd::ThreadGet>(&params).await
                && ticket.is_newest()
            {
                feed.thread.set(Some(detail.thread));
            }
        });
    });

    let editing = RwSignal::new(false);
    let menu = RwSignal::new(false);
    let side_panel = RwSignal::new(None::<SidePanel>);
    let fork_from = thread_id.clone();
    let on_fork =
        Callback::new(move |message_id: String| fork(inbox, fork_from.clone(), message_id));
    view! {
        <div class="thread-pane">
            <header class="thread-pane__header">
                {move || match feed.thread.get() {
                    None => view! { <h1 class="thread-pane__title muted">"Loading…"</h1> }.into_any(),
                    Some(thread) if editing.get() => view! {
                        <RenameInput thread_id=thread.id title=thread.title on_close=move |()| editing.set(false)
                            class="rename rename--title" testid="title-input" />
                    }.into_any(),
                    Some(thread) => {
                        // Named as its row is: a new thread is not a blank.
                        let (shown, untitled) = shown_name(&thread);
                        view! {
                            <h1 class="thread-pane__title">
                                <button class="title-button" class:muted=untitled title="Click to rename"
                                    data-testid="thread-pane-title" on:click=move |_| editing.set(true)>{shown}</button>
                            </h1>
                        }.into_any()
                    }
                }}
                <SidePanelButtons open=side_panel />
                <div class="thread-pane__actions">
                    <button class="icon-button" aria-label="Thread menu" aria-haspopup="menu" data-testid="thread-pane-menu"
                        on:click=move |_| menu.update(|m| *m = !*m)>"⋯"</button>
                    <Show when=move || menu.get()>
                        <div class="menu menu--right" role="menu">
                            <button role="menuitem" class="menu__item" data-testid="export-markdown"
                                on:click=move |_| { menu.set(false); export(inbox, feed, ExportFormat::Markdown) }>"Export as Markdown…"</button>
                            <button role="menuitem" class="menu__item" data-testid="export-jsonl"
                                on:click=move |_| { menu.set(false); export(inbox, feed, ExportFormat::Jsonl) }>"Export as JSON Lines…"</button>
                            <button role="menuitem" class="menu__item menu__item--danger"
                                on:click=move |_| {
                                    menu.set(false);
                                    if let Some(t) = feed.thread.get_untracked() { confirm_delete(inbox, t.id, &t.title) }
                                }>"Delete…"</button>
                        </div>
                    </Show>
                </div>
            </header>
            {move || feed.notice.get().map(|n| view! { <p class="quiet-notice" role="status" data-testid="pane-notice">{n}</p> })}
            <div class="feed" data-testid="feed" on:click=move |ev| feed_click(&ev)>
                <Show when=move || feed.more_before.get()>
                    <button class="feed__more link" data-testid="load-earlier" on:click=move |_| load_earlier(inbox, feed, run)>"Load earlier messages"</button>
                </Show>
                <Show when=move || feed.messages.with(Vec::is_empty) && feed.thread.with(Option::is_some) && !run.running()>
                    <Welcome run />
                </Show>
                <For each=move || feed.messages.get() key=|m| m.id.clone() let:message>
                    <MessageCard on_fork=(message.role == Role::Assistant).then_some(on_fork) message />
                </For>
                <Show when=move || feed.more_after.get()>
                    <button class="feed__more link" data-testid="load-newer" on:click=move |_| load_newer(inbox, feed)>"Load newer messages"</button>
                </Show>
                <LiveRun run />
            </div>
            <Composer run />
            <OpenSidePanel thread_id=thread_id.clone() open=side_panel />
        </div>
    }
}

fn open(inbox: Inbox, feed: Feed, run: RunState, thread_id: String, focus_seq: Option<i64>) {
    let queue_asked_at = inbox.queues.with_untracked(|q| q.version(&thread_id));
    leptos::task::spawn_local(async move {
        load(inbox, feed, run, thread_id, focus_seq, queue_asked_at).await;
        // A window made on this thread shows its last look until now.
        crate::snapshot::painted(crate::snapshot::Part::Thread);
    });
}

/// Reads the thread's page into the feed, with its run's state.
async fn load(
    inbox: Inbox,
    feed: Feed,
    run: RunState,
    thread_id: String,
    focus_seq: Option<i64>,
    queue_asked_at: u64,
) {
    // Subscribed first, read second: a run that ends between the two is
    // then in the page read or in the frames, never in neither (a run
    // sent at once from a new thread, under load, used to vanish).
    if let Err(error) = run.subscribe_and_wait(None).await {
        return inbox.report(error);
    }
    let params = ThreadGetParams {
        thread_id: thread_id.clone(),
        before_seq: None,
        limit: Some(PAGE),
    };
    let header = feed.thread_asked.ask();
    let mut detail = match invoke::<cmd::ThreadGet>(&params).await {
        Ok(detail) => detail,
        Err(error) => return inbox.report(error),
    };
    let oldest = detail.messages.first().map_or(i64::MAX, |m| m.seq);
    // A search hit further back: open a page around it instead of the end.
    if let Some(seq) = focus_seq
        && seq < oldest
    {
        let around = ThreadGetParams {
            thread_id: thread_id.clone(),
            before_seq: Some(seq + i64::from(PAGE) / 2),
            limit: Some(PAGE),
        };
        match invoke::<cmd::ThreadGet>(&around).await {
            Ok(page) => {
                let newest = page.messages.last().map_or(0, |m| m.seq);
                feed.more_after.set(newest < page.thread.last_seq);
                detail = page;
            }
            Err(error) => return inbox.report(error),
        }
    }
    let unread = detail.thread.unread;
    feed.more_before.set(detail.has_more_before);
    // Frames that came first are newer than the page or in it.
    let framed = run.has_frames();
    feed.messages
        .update(|shown| *shown = with_framed(std::mem::take(&mut detail.messages), shown));
    if !framed {
        run.resumable.set(detail.resumable);
    }
    if !framed || run.interrupt.with_untracked(Option::is_none) {
        run.interrupt.set(detail.pending_interrupt.take());
    }
    run.seed_delegations(std::mem::take(&mut detail.delegations));
    let queued = std::mem::take(&mut detail.queued);
    inbox
        .queues
        .update(|q| q.seed(thread_id.clone(), queue_asked_at, queued));
    run.model.set(detail.thread.model.clone());
    super::gauge::show_stored(inbox, &thread_id, detail.context);
    if header.is_newest() {
        feed.thread.set(Some(detail.thread));
    }
    if unread {
        // Opening a thread is reading it.
        update(
            inbox,
            ThreadUpdateParams {
                thread_id,
                unread: Some(false),
                ..ThreadUpdateParams::default()
            },
        );
    }
    request_animation_frame(move || scroll_to(focus_seq));
    inbox.focus_seq.set(None);
}

/// The page read, with the messages frames delivered before it that it
/// does not hold yet, in thread order.
fn with_framed(mut page: Vec<MessageView>, framed: &[MessageView]) -> Vec<MessageView> {
    let newer: Vec<MessageView> = framed
        .iter()
        .filter(|m| !page.iter().any(|p| p.id == m.id))
        .cloned()
        .collect();
    if !newer.is_empty() {
        page.extend(newer);
        page.sort_by_key(|m| m.seq);
    }
    page
}

fn scroll_to(focus_seq: Option<i64>) {
    let document = document();
    let target = match focus_seq {
        Some(seq) => document.get_element_by_id(&format!("msg-{seq}")),
        // The page's own feed: the last look shown over the page while it
        // starts (ui/snapshot.js) has one too, first in the document.
        None => document
            .query_selector("body > .shell .feed > article:last-of-type")
            .ok()
            .flatten(),
    };
    let Some(element) = target else { return };
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Center);
    element.scroll_into_view_with_scroll_into_view_options(&options);
    if focus_seq.is_some() {
        let _ = element.class_list().add_1("msg--flash");
    }
}

fn load_earlier(inbox: Inbox, feed: Feed, run: RunState) {
    let Some(thread) = feed.thread.get_untracked() else {
        return;
    };
    let before = feed.messages.with_untracked(|m| m.first().map(|m| m.seq));
    leptos::task::spawn_local(async move {
        let params = ThreadGetParams {
            thread_id: thread.id,
            before_seq: before,
            limit: Some(PAGE),
        };
        match invoke::<cmd::ThreadGet>(&params).await {
            Ok(mut page) => {
                feed.more_before.set(page.has_more_before);
                run.seed_delegations(std::mem::take(&mut page.delegations));
                feed.messages.update(|messages| {
                    let mut earlier = page.messages;
                    earlier.append(messages);
                    *messages = earlier;
                });
            }
            Err(error) => inbox.report(error),
        }
    });
}

fn load_newer(inbox: Inbox, feed: Feed) {
    let Some(thread) = feed.thread.get_untracked() else {
        return;
    };
    let newest = feed
        .messages
        .with_untracked(|m| m.last().map_or(0, |m| m.seq));
    leptos::task::spawn_local(async move {
        let params = ThreadGetParams {
            thread_id: thread.id,
            before_seq: Some(newest + i64::from(PAGE) + 1),
            limit: Some(PAGE),
        };
        match invoke::<cmd::ThreadGet>(&params).await {
            Ok(page) => {
                let last_seq = page.thread.last_seq;
                feed.messages.update(|messages| {
                    messages.extend(page.messages.into_iter().filter(|m| m.seq > newest));
                });
                let loaded = feed
                    .messages
                    .with_untracked(|m| m.last().map_or(0, |m| m.seq));
                feed.more_after.set(loaded < last_seq);
            }
            Err(error) => inbox.report(error),
        }
    });
}

fn fork(inbox: Inbox, thread_id: String, message_id: String) {
    leptos::task::spawn_local(async move {
        match invoke::<cmd::ThreadFork>(&ThreadForkParams {
            thread_id,
            message_id,
        })
        .await
        {
            Ok(fork) => {
                inbox.changed();
                inbox.open(fork.id, None);
            }
            Err(error) => inbox.report(error),
        }
    });
}

fn export(inbox: Inbox, feed: Feed, format: ExportFormat) {
    let Some(thread) = feed.thread.get_untracked() else {
        return;
    };
    leptos::task::spawn_local(async move {
        // The host shows the save dialog and keeps the answer; the page
        // only gets a token for one export to it.
        let chosen = invoke::<cmd::ExportChoose>(&ExportChooseParams {
            format,
            suggested_name: Some(thread.title.clone()),
        })
        .await;
        let target = match chosen {
            Ok(Some(target)) => target,
            // Cancelled: nothing to do.
            Ok(None) => return,
            Err(error) => return inbox.report(error),
        };
        match invoke::<cmd::ThreadExport>(&ThreadExportParams {
            thread_id: thread.id,
            format,
            token: target.token,
        })
        .await
        {
            Ok(done) => feed.notice.set(Some(format!("Exported to {}", done.path))),
            Err(error) => inbox.report(error),
        }
    });
}

/// Delegated clicks inside rendered Markdown: copy buttons, and links, which
/// must never navigate the app's own window away.
fn feed_click(ev: &web_sys::MouseEvent) {
    let Some(target) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    if target.has_attribute("data-copy") {
        let code = target
            .closest(".code")
            .ok()
            .flatten()
            .and_then(|block| block.query_selector("pre").ok().flatten())
            .and_then(|pre| pre.text_content());
        if let Some(code) = code {
            let _ = window().navigator().clipboard().write_text(&code);
            target.set_text_content(Some("Copied"));
        }
        return;
    }
    crate::links::follow_outside(ev);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str, seq: i64) -> MessageView {
        MessageView {
            id: id.into(),
            seq,
            role: Role::Assistant,
            parts: Vec::new(),
            created_at: 0,
        }
    }

    fn ids(messages: &[MessageView]) -> Vec<&str> {
        messages.iter().map(|m| m.id.as_str()).collect()
    }

    #[test]
    fn messages_framed_before_the_page_arrived_are_kept_in_order() {
        let page = vec![message("a", 1), message("b", 2)];
        // Nothing framed: the page as read.
        assert_eq!(ids(&with_framed(page.clone(), &[])), ["a", "b"]);
        // The run's messages came by frame first; one is in the page too.
        let framed = [message("b", 2), message("d", 4), message("c", 3)];
        assert_eq!(ids(&with_framed(page, &framed)), ["a", "b", "c", "d"]);
    }
}
