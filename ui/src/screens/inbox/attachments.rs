//! Attachments in the inbox: files dropped on the window go to the open
//! thread's composer; a sent file shows in its message, an image opening
//! full size in the viewer, any other file in the system's default app once
//! the person confirms.

use super::state::{ConfirmRequest, Inbox, use_inbox};
use crate::components::attachments::{Tray, extension_badge, file_icon};
use crate::ipc::invoke;
use crate::screen::Screen;
use leptos::prelude::*;
use pizza_protocol::{
    AttachmentIdParams, AttachmentKind, AttachmentPickParams, AttachmentView, DragPhase, cmd,
    format_size,
};
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// Follows files dragged over the window: `dragging` while they are over
/// it; dropped ones attach to the open thread, or to a new one.
pub(crate) fn follow_drops(inbox: Inbox, screen: RwSignal<Screen>, dragging: RwSignal<bool>) {
    crate::events::on_drag(move |phase, paths| match phase {
        // A drag that entered before the page listened announces itself
        // with `Over`.
        DragPhase::Enter | DragPhase::Over => {
            if !dragging.get_untracked() {
                dragging.set(true);
            }
        }
        DragPhase::Leave => dragging.set(false),
        DragPhase::Drop => {
            dragging.set(false);
            if paths.is_empty() {
                return;
            }
            let paths = paths.to_vec();
            screen.set(Screen::Inbox);
            match inbox.selected.get_untracked() {
                Some(thread_id) => inbox.tray(thread_id).add_paths(paths),
                None => super::new_thread_then(inbox, move |thread_id| {
                    inbox.tray(thread_id).add_paths(paths);
                }),
            }
        }
    });
}

/// Says where the dragged files will go while they are over the window.
#[component]
pub(crate) fn DropOverlay(dragging: RwSignal<bool>) -> impl IntoView {
    view! {
        <Show when=move || dragging.get()>
            <div class="drop-overlay" data-testid="drop-overlay" role="status">
                <div class="drop-overlay__card">"Drop files to attach"</div>
            </div>
        </Show>
    }
}

/// A sent file in its message: an image as a thumbnail that opens the
/// viewer, any other file as a chip that offers to open it.
#[component]
pub(crate) fn AttachmentPart(attachment: AttachmentView) -> impl IntoView {
    // Quick-ask shows only answers; without an inbox nothing opens.
    let inbox = use_context::<Inbox>();
    let id = attachment.id.clone();
    let name = attachment.name.clone();
    match (attachment.kind, attachment.thumbnail.clone()) {
        (AttachmentKind::Image, Some(src)) => view! {
            <button class="message-attachment message-attachment--image" data-testid="message-attachment"
                data-kind="image" data-attachment-id=id aria-label=format!("View {}", attachment.name)
                title=attachment.name.clone()
                on:click=move |_| {
                    if let Some(inbox) = inbox {
                        inbox.viewing.set(Some(attachment.clone()));
                    }
                }>
                <img class="message-attachment__thumb" data-testid="message-attachment-image" src=src alt=name />
            </button>
        }
        .into_any(),
        (kind, _) => {
            let size = format_size(attachment.size);
            view! {
                <button class="message-attachment message-attachment--file" data-testid="message-attachment"
                    data-kind=kind_name(kind) data-attachment-id=id title=format!("Open {}…", attachment.name)
                    on:click=move |_| {
                        if let Some(inbox) = inbox {
                            confirm_open(inbox, &attachment);
                        }
                    }>
                    {file_icon(&extension_badge(&name))}
                    <span class="message-attachment__name">{name.clone()}</span>
                    <span class="message-attachment__size muted">{size}</span>
                </button>
            }
            .into_any()
        }
    }
}

fn kind_name(kind: AttachmentKind) -> &'static str {
    match kind {
        AttachmentKind::Image => "image",
        AttachmentKind::Document => "document",
        AttachmentKind::Text => "text",
    }
}

/// Asks before handing a file to another app: it may do more than show it.
fn confirm_open(inbox: Inbox, attachment: &AttachmentView) {
    let id = attachment.id.clone();
    inbox.ask(ConfirmRequest {
        title: format!("Open {} with your default app?", attachment.name),
        body: "It opens outside Pizza Bot, in the app your system uses for this type of file."
            .to_owned(),
        confirm_label: "Open",
        on_confirm: Rc::new(move || {
            let params = AttachmentIdParams { id: id.clone() };
            leptos::task::spawn_local(async move {
                if let Err(error) = invoke::<cmd::AttachmentOpen>(&params).await {
                    inbox.report(error);
                }
            });
        }),
    });
}

/// A sent image at full size over the window; Esc, the close button or a
/// click beside the image closes it and focus goes back where it was.
#[component]
pub(crate) fn AttachmentViewer() -> impl IntoView {
    let inbox = use_inbox();
    let close_button = NodeRef::<leptos::html::Button>::new();
    let opener = StoredValue::new_local(None::<web_sys::HtmlElement>);
    Effect::new(move |_| {
        if inbox.viewing.with(Option::is_some) {
            // Taken before focus moves into the viewer.
            if opener.with_value(Option::is_none) {
                opener.set_value(focused_element());
            }
            if let Some(button) = close_button.get() {
                let _ = button.focus();
            }
        } else if let Some(element) = opener.try_update_value(Option::take).flatten() {
            let _ = element.focus();
        }
    });
    let close = move || inbox.viewing.set(None);
    move || {
        inbox.viewing.get().map(|attachment| {
            let src = attachment.thumbnail.clone().unwrap_or_default();
            let caption = format!("{} · {}", attachment.name, format_size(attachment.size));
            view! {
                <div class="overlay attachment-viewer" role="dialog" aria-modal="true"
                    aria-label=attachment.name.clone() data-testid="attachment-viewer"
                    on:click=move |ev| {
                        if ev.target() == ev.current_target() {
                            close();
                        }
                    }
                    on:keydown=move |ev| match ev.key().as_str() {
                        "Escape" => {
                            ev.stop_propagation();
                            close();
                        }
                        // The close button is the dialog's one stop: focus stays.
                        "Tab" => ev.prevent_default(),
                        _ => {}
                    }>
                    <figure class="attachment-viewer__figure">
                        <img class="attachment-viewer__image" src=src alt=attachment.name.clone() />
                        <figcaption class="attachment-viewer__caption">{caption}</figcaption>
                    </figure>
                    <button class="attachment-viewer__close" data-testid="attachment-viewer-close"
                        aria-label="Close" title="Close (Esc)" node_ref=close_button
                        on:click=move |_| close()>"×"</button>
                </div>
            }
        })
    }
}

fn focused_element() -> Option<web_sys::HtmlElement> {
    document()
        .active_element()
        .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok())
}

/// Has the host open its file picker for `tray`'s thread and shows what it
/// stored.
pub(crate) fn pick(tray: &Tray) {
    let tray = tray.clone();
    leptos::task::spawn_local(async move {
        let params = AttachmentPickParams {
            thread_id: tray.thread_id(),
        };
        match invoke::<cmd::AttachmentPick>(&params).await {
            Ok(picked) => tray.take_picked(picked),
            Err(error) => tray.report(error),
        }
    });
}
