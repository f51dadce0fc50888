//! App-wide keyboard shortcuts.

use web_sys::KeyboardEvent;

/// Ctrl on Linux/Windows, Cmd on macOS.
pub(crate) fn primary(ev: &KeyboardEvent) -> bool {
    ev.ctrl_key() || ev.meta_key()
}

/// What a shortcut asks the shell to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shortcut {
    NewThread,
    Search,
    Settings,
    Help,
    /// Ctrl/Cmd+1–9: the n-th thread of the list (0-based).
    OpenThread(usize),
    DeleteThread,
}

pub(crate) fn shortcut(ev: &KeyboardEvent) -> Option<Shortcut> {
    if ev.alt_key() {
        return None;
    }
    if !primary(ev) {
        return (ev.key() == "Delete" && !typing(ev)).then_some(Shortcut::DeleteThread);
    }
    match ev.key().as_str() {
        "n" | "N" => Some(Shortcut::NewThread),
        "f" | "F" => Some(Shortcut::Search),
        "," => Some(Shortcut::Settings),
        "/" => Some(Shortcut::Help),
        key => key
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=9).contains(n))
            .map(|n| Shortcut::OpenThread(n - 1)),
    }
}

/// Keys typed into a field belong to the field.
fn typing(ev: &KeyboardEvent) -> bool {
    use wasm_bindgen::JsCast;
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| {
            matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                || el.has_attribute("contenteditable")
        })
}
