//! The composer's memory: each thread's unsent text and the prompts sent,
//! kept in this window for instant switching and in the host so a restart
//! loses neither. Typing is saved after a short pause, and at once when
//! the composer loses focus, closes or sends.

use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{
    ComposerDraftSaveParams, ComposerGetParams, ComposerHistoryAddParams, ErrorCode, ThreadId, cmd,
};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// A pause in typing this long saves the draft.
const SAVE_AFTER_MS: i32 = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Restore {
    NotStarted,
    Loading,
    Done,
}

thread_local! {
    /// Unsent text per thread, as typed.
    static DRAFTS: RefCell<HashMap<ThreadId, String>> = RefCell::new(HashMap::new());
    /// The text the host holds per thread (absent: none).
    static STORED: RefCell<HashMap<ThreadId, String>> = RefCell::new(HashMap::new());
    /// A save waiting for the pause to end, per thread: a newer keystroke
    /// bumps the number and the older save gives up.
    static PENDING: RefCell<HashMap<ThreadId, u64>> = RefCell::new(HashMap::new());
    static NEXT_SAVE: Cell<u64> = const { Cell::new(0) };
    /// Prompts sent, oldest first: the host's from earlier sessions, then this one's.
    static HISTORY: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    static RESTORE: Cell<Restore> = const { Cell::new(Restore::NotStarted) };
    /// Composers opened while the host's drafts were still loading.
    static WAITING: RefCell<Vec<(ThreadId, RwSignal<String>)>> = const { RefCell::new(Vec::new()) };
}

/// The thread's draft as this window knows it now.
pub(super) fn draft(thread_id: &str) -> String {
    DRAFTS.with_borrow(|d| d.get(thread_id).cloned().unwrap_or_default())
}

/// Reads the host's drafts and history once per window; a composer that
/// opens before they arrive gets its thread's draft when they do (unless
/// the person typed something first).
pub(super) fn restore(thread_id: ThreadId, draft: RwSignal<String>) {
    match RESTORE.get() {
        Restore::Done => return,
        Restore::Loading => {
            WAITING.with_borrow_mut(|w| w.push((thread_id, draft)));
            return;
        }
        Restore::NotStarted => {}
    }
    RESTORE.set(Restore::Loading);
    WAITING.with_borrow_mut(|w| w.push((thread_id, draft)));
    leptos::task::spawn_local(async move {
        match invoke::<cmd::ComposerGet>(&ComposerGetParams {}).await {
            Ok(state) => {
                for saved in state.drafts {
                    STORED
                        .with_borrow_mut(|s| s.insert(saved.thread_id.clone(), saved.text.clone()));
                    DRAFTS.with_borrow_mut(|d| {
                        d.entry(saved.thread_id).or_insert(saved.text);
                    });
                }
                HISTORY.with_borrow_mut(|history| {
                    let session = std::mem::replace(history, state.history);
                    for text in session {
                        remember(history, text);
                    }
                });
            }
            Err(error) => leptos::logging::warn!("cannot read the saved drafts: {}", error.message),
        }
        RESTORE.set(Restore::Done);
        for (thread_id, draft) in WAITING.with_borrow_mut(std::mem::take) {
            let saved = self::draft(&thread_id);
            if !saved.is_empty() {
                let _ = draft.try_update(|text| {
                    if text.is_empty() {
                        *text = saved;
                    }
                });
            }
        }
    });
}

/// Notes the thread's new text here, and saves it in the host after a
/// pause; `stored` turns true once the host has exactly this text.
pub(super) fn changed(thread_id: &str, text: &str, stored: RwSignal<bool>) {
    DRAFTS.with_borrow_mut(|drafts| {
        if text.is_empty() {
            drafts.remove(thread_id);
        } else {
            drafts.insert(thread_id.to_owned(), text.to_owned());
        }
    });
    if is_stored(thread_id, text) {
        PENDING.with_borrow_mut(|p| p.remove(thread_id));
        let _ = stored.try_set(true);
        return;
    }
    let _ = stored.try_set(false);
    let ticket = NEXT_SAVE.get() + 1;
    NEXT_SAVE.set(ticket);
    PENDING.with_borrow_mut(|p| p.insert(thread_id.to_owned(), ticket));
    let thread_id = thread_id.to_owned();
    leptos::task::spawn_local(async move {
        crate::screens::inbox::gloo_sleep(SAVE_AFTER_MS).await;
        if PENDING.with_borrow(|p| p.get(&thread_id) == Some(&ticket)) {
            save_now(thread_id, Some(stored));
        }
    });
}

/// Saves the thread's draft now if a save is waiting (the composer lost
/// focus or closes, or the text was sent).
pub(super) fn flush(thread_id: &str, stored: Option<RwSignal<bool>>) {
    if PENDING.with_borrow(|p| p.contains_key(thread_id)) {
        save_now(thread_id.to_owned(), stored);
    }
}

fn is_stored(thread_id: &str, text: &str) -> bool {
    STORED.with_borrow(|s| {
        s.get(thread_id)
            .map_or(text.is_empty(), |held| held == text)
    })
}

fn save_now(thread_id: ThreadId, stored: Option<RwSignal<bool>>) {
    PENDING.with_borrow_mut(|p| p.remove(&thread_id));
    let text = draft(&thread_id);
    if is_stored(&thread_id, &text) {
        if let Some(stored) = stored {
            let _ = stored.try_set(true);
        }
        return;
    }
    leptos::task::spawn_local(async move {
        let params = ComposerDraftSaveParams {
            thread_id: thread_id.clone(),
            text: text.clone(),
        };
        match invoke::<cmd::ComposerDraftSave>(&params).await {
            Ok(()) => {
                STORED.with_borrow_mut(|s| {
                    if text.is_empty() {
                        s.remove(&thread_id);
                    } else {
                        s.insert(thread_id.clone(), text.clone());
                    }
                });
                // Typing may have gone on while this was on its way.
                if let Some(stored) = stored
                    && draft(&thread_id) == text
                {
                    let _ = stored.try_set(true);
                }
            }
            // The thread was deleted: its draft went with it.
            Err(error) if error.code == ErrorCode::NotFound => {
                DRAFTS.with_borrow_mut(|d| d.remove(&thread_id));
            }
            Err(error) => leptos::logging::warn!("cannot save the draft: {}", error.message),
        }
    });
}

/// The prompts sent, oldest first.
pub(super) fn history() -> Vec<String> {
    HISTORY.with_borrow(Clone::clone)
}

/// The thread's text was sent: it is remembered for ↑ here and in the
/// host, and the draft is cleared in the host at once, so a restart right
/// after a send never brings it back.
pub(super) fn sent(thread_id: &str, text: String, stored: RwSignal<bool>) {
    DRAFTS.with_borrow_mut(|d| d.remove(thread_id));
    save_now(thread_id.to_owned(), Some(stored));
    if text.trim().is_empty() {
        return;
    }
    HISTORY.with_borrow_mut(|history| remember(history, text.clone()));
    leptos::task::spawn_local(async move {
        let params = ComposerHistoryAddParams { text };
        if let Err(error) = invoke::<cmd::ComposerHistoryAdd>(&params).await {
            leptos::logging::warn!("cannot remember the prompt: {}", error.message);
        }
    });
}

/// Appends `text` unless it repeats the newest, keeping the host's limit.
fn remember(history: &mut Vec<String>, text: String) {
    if history.last() != Some(&text) {
        history.push(text);
    }
    let over = history
        .len()
        .saturating_sub(pizza_protocol::PROMPT_HISTORY_MAX);
    history.drain(..over);
}
