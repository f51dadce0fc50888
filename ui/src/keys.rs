//! App-wide keyboard shortcuts.

use web_sys::KeyboardEvent;

/// Ctrl on Linux/Windows, Cmd on macOS.
pub(crate) fn primary(ev: &KeyboardEvent) -> bool {
    ev.ctrl_key() || ev.meta_key()
}

/// What a shortcut asks the shell to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shortcut {
    Settings,
    Help,
    Inbox,
}

pub(crate) fn shortcut(ev: &KeyboardEvent) -> Option<Shortcut> {
    if !primary(ev) || ev.alt_key() {
        return None;
    }
    match ev.key().as_str() {
        "," => Some(Shortcut::Settings),
        "/" => Some(Shortcut::Help),
        "1" => Some(Shortcut::Inbox),
        _ => None,
    }
}
