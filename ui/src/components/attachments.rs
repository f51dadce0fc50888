//! Files for the next message, shared by the composer and quick-ask: a
//! [`Tray`] attaches them (picked, dropped or pasted) through the host and
//! keeps their chips; [`AttachmentChips`] shows the chips.

mod chips;
mod paste;

use crate::ipc::invoke;
use leptos::prelude::*;
use paste::{Stamp, clipboard_files, pasted_name, read_base64};
use pizza_protocol::{
    ATTACHMENT_MAX_BYTES, ApiError, AttachmentAddParams, AttachmentIdParams,
    AttachmentPickResponse, AttachmentSource, AttachmentView, ThreadId, attachment_media_type,
    check_attachment_name, cmd, format_size, unsupported_type_message,
};
use std::future::Future;

pub(crate) use chips::{AttachmentDrafts, Chip, ChipState, Chips, extension_badge};

/// One composer's attachments: its chips in the window-wide
/// [`AttachmentDrafts`], and the thread its files are stored for (`None`: a
/// new thread, which adopts them when the message starts it).
#[derive(Debug, Clone)]
pub(crate) struct Tray {
    drafts: RwSignal<AttachmentDrafts>,
    thread_id: Option<ThreadId>,
    /// Where a failed pick or removal is shown.
    errors: RwSignal<Option<ApiError>>,
}

impl Tray {
    pub(crate) fn new(
        drafts: RwSignal<AttachmentDrafts>,
        thread_id: Option<ThreadId>,
        errors: RwSignal<Option<ApiError>>,
    ) -> Self {
        Self {
            drafts,
            thread_id,
            errors,
        }
    }

    /// The chips, in order (tracked).
    pub(crate) fn chips(&self) -> Vec<Chip> {
        self.drafts
            .with(|d| d.of(&self.thread_id).map(|c| c.list().to_vec()))
            .unwrap_or_default()
    }

    /// Whether a file is still on its way (tracked): sending waits.
    pub(crate) fn uploading(&self) -> bool {
        self.drafts
            .with(|d| d.of(&self.thread_id).is_some_and(Chips::uploading))
    }

    /// Whether a stored file would go with a message now (tracked).
    pub(crate) fn has_files(&self) -> bool {
        self.drafts
            .with(|d| d.of(&self.thread_id).is_some_and(|c| !c.ids().is_empty()))
    }

    /// The stored files' ids, in order: the next message's `attachments`.
    pub(crate) fn ids_untracked(&self) -> Vec<String> {
        self.drafts
            .with_untracked(|d| d.of(&self.thread_id).map(Chips::ids))
            .unwrap_or_default()
    }

    /// The message carrying `ids` was taken: their chips go.
    pub(crate) fn sent(&self, ids: &[String]) {
        let _ = self
            .drafts
            .try_update(|drafts| drafts.sent(&self.thread_id, ids));
    }

    /// Takes chip `key` away, and its stored file with it.
    pub(crate) fn remove(&self, key: u64) {
        if let Some(id) = self.update(|chips| chips.remove(key)).flatten() {
            let errors = self.errors;
            leptos::task::spawn_local(async move {
                if let Err(error) =
                    invoke::<cmd::AttachmentRemove>(&AttachmentIdParams { id }).await
                {
                    errors.set(Some(error));
                }
            });
        }
    }

    /// The thread its files are stored for (`None`: a new thread).
    pub(crate) fn thread_id(&self) -> Option<ThreadId> {
        self.thread_id.clone()
    }

    /// Shows what the host's file picker stored, and what it refused. (The
    /// picker is the main window's: quick-ask never opens it.)
    pub(crate) fn take_picked(&self, picked: AttachmentPickResponse) {
        for view in picked.added {
            if let Some(extra) = self.update(|c| c.add_ready(view)).flatten() {
                forget(extra);
            }
        }
        for refusal in picked.refused {
            self.update(|c| c.refuse(refusal.name, refusal.message));
        }
    }

    /// Shows a failure that concerns no one chip.
    pub(crate) fn report(&self, error: ApiError) {
        self.errors.set(Some(error));
    }

    /// Attaches files dropped on the window, read by the host.
    pub(crate) fn add_paths(&self, paths: Vec<String>) {
        for path in paths {
            let name = path
                .rsplit(['/', '\\'])
                .find(|part| !part.is_empty())
                .unwrap_or(&path)
                .to_owned();
            self.upload(name, async move { Ok(AttachmentSource::Path { path }) });
        }
    }

    /// Attaches the files a paste carries and returns whether there were
    /// any; a paste of text only is left to the text box.
    pub(crate) fn paste(&self, ev: &web_sys::ClipboardEvent) -> bool {
        let files = clipboard_files(ev);
        if files.is_empty() {
            return false;
        }
        ev.prevent_default();
        let at = Stamp::now();
        for file in files {
            self.paste_file(file, at);
        }
        true
    }

    fn paste_file(&self, file: web_sys::File, at: Stamp) {
        let declared = Some(file.type_()).filter(|t| !t.is_empty());
        let name = pasted_name(&file.name(), declared.as_deref(), at);
        // Refused here, before reading bytes the host would refuse anyway.
        let refusal = if let Err(message) = check_attachment_name(&name) {
            Some(message)
        } else if attachment_media_type(&name, declared.as_deref()).is_none() {
            Some(unsupported_type_message(&name))
        } else if file.size() > ATTACHMENT_MAX_BYTES as f64 {
            Some(too_large_message(&name, file.size()))
        } else {
            None
        };
        if let Some(message) = refusal {
            self.update(|c| c.refuse(name, message));
            return;
        }
        let unreadable = format!("“{name}” could not be read from the clipboard; copy it again.");
        let source_name = name.clone();
        self.upload(name, async move {
            match read_base64(&file).await {
                Some(data) => Ok(AttachmentSource::Bytes {
                    name: source_name,
                    data,
                    mime: declared,
                }),
                None => Err(unreadable),
            }
        });
    }

    /// Shows `name` uploading, has the host store what `source` yields, and
    /// shows the outcome on the chip.
    fn upload(
        &self,
        name: String,
        source: impl Future<Output = Result<AttachmentSource, String>> + 'static,
    ) {
        let Some(Some(key)) = self.update(|c| c.start(name)) else {
            return;
        };
        let tray = self.clone();
        leptos::task::spawn_local(async move {
            let stored = match source.await {
                Ok(source) => {
                    let params = AttachmentAddParams {
                        thread_id: tray.thread_id.clone(),
                        source,
                    };
                    invoke::<cmd::AttachmentAdd>(&params)
                        .await
                        .map_err(|error| error.message)
                }
                Err(message) => Err(message),
            };
            if let Some(orphan) = tray.update(|c| c.finish(key, stored)).flatten() {
                forget(orphan);
            }
        });
    }

    fn update<R>(&self, change: impl FnOnce(&mut Chips) -> R) -> Option<R> {
        self.drafts
            .try_update(|drafts| change(drafts.of_mut(&self.thread_id)))
    }
}

/// Drops a stored file no chip shows; nobody waits for the answer.
fn forget(id: String) {
    leptos::task::spawn_local(async move {
        let _ = invoke::<cmd::AttachmentRemove>(&AttachmentIdParams { id }).await;
    });
}

fn too_large_message(name: &str, size: f64) -> String {
    format!(
        "“{name}” is {}; an attachment can be at most {}.",
        format_size(size as u64),
        format_size(ATTACHMENT_MAX_BYTES)
    )
}

/// The composer's chips: each file's thumbnail or icon, name and size (or
/// "Attaching…", or why it was refused) and a × that takes it away.
#[component]
pub(crate) fn AttachmentChips(tray: Tray) -> impl IntoView {
    let tray = StoredValue::new(tray);
    view! {
        <Show when=move || tray.with_value(|t| !t.chips().is_empty())>
            <ul class="attachments" aria-label="Attachments" data-testid="attachment-chips">
                <For each=move || tray.with_value(Tray::chips) key=|c| (c.key, c.state_name()) let:chip>
                    {chip_view(chip, tray)}
                </For>
            </ul>
        </Show>
    }
}

fn chip_view(chip: Chip, tray: StoredValue<Tray>) -> impl IntoView {
    let state_name = chip.state_name();
    let Chip { key, name, state } = chip;
    let (visual, detail, id) = match state {
        ChipState::Uploading => (file_icon("…"), "Attaching…".to_owned(), None),
        ChipState::Ready(view) => (
            preview(&view),
            format_size(view.size),
            Some(view.id.clone()),
        ),
        ChipState::Refused(message) => (file_icon("!"), message, None),
    };
    let refused = state_name == "refused";
    let label = if refused {
        format!("Dismiss {name}")
    } else {
        format!("Remove {name}")
    };
    view! {
        <li class=format!("attachment-chip attachment-chip--{state_name}")
            data-testid="attachment-chip" data-state=state_name data-attachment-id=id
            aria-busy=(state_name == "uploading").then_some("true")>
            {visual}
            <span class="attachment-chip__text">
                <span class="attachment-chip__name" title=name.clone()>{name.clone()}</span>
                <span class="attachment-chip__detail" role=refused.then_some("alert")>{detail}</span>
            </span>
            <button class="attachment-chip__remove" data-testid="attachment-chip-remove"
                aria-label=label.clone() title=label
                on:click=move |_| tray.with_value(|t| t.remove(key))>"×"</button>
        </li>
    }
}

/// A stored file's look on its chip: the image itself, or its file icon.
fn preview(view: &AttachmentView) -> AnyView {
    match &view.thumbnail {
        Some(src) => view! {
            <img class="attachment-chip__thumb" src=src.clone() alt="" />
        }
        .into_any(),
        None => file_icon(&extension_badge(&view.name)),
    }
}

/// A small file icon that reads `label` (an extension, `…`, `!`).
pub(crate) fn file_icon(label: &str) -> AnyView {
    view! { <span class="file-icon" aria-hidden="true">{label.to_owned()}</span> }.into_any()
}
