//! App-wide keyboard shortcuts, and where the keyboard's focus went.

use wasm_bindgen::JsCast;
use web_sys::{Element, FocusEvent, KeyboardEvent};

/// Ctrl on Linux/Windows, Cmd on macOS.
pub(crate) fn primary(ev: &KeyboardEvent) -> bool {
    ev.ctrl_key() || ev.meta_key()
}

/// A field lost the focus because its window did (the person switched to
/// another application), not because they moved on in the page: the field
/// stays the page's focused element and gets the focus back with the
/// window, so an edit in it stays open.
pub(crate) fn window_lost_focus(ev: &FocusEvent) -> bool {
    let field = ev.target().and_then(|t| t.dyn_into::<Element>().ok());
    field.is_some() && leptos::prelude::document().active_element() == field
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

/// The keys of a key press that decide the shortcut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Press<'a> {
    key: &'a str,
    /// Ctrl or Cmd.
    primary: bool,
    alt: bool,
    /// The focus is in a field, which owns plain keys.
    typing: bool,
}

pub(crate) fn shortcut(ev: &KeyboardEvent) -> Option<Shortcut> {
    let key = ev.key();
    shortcut_for(Press {
        key: &key,
        primary: primary(ev),
        alt: ev.alt_key(),
        typing: typing(ev),
    })
}

fn shortcut_for(press: Press<'_>) -> Option<Shortcut> {
    if press.alt {
        return None;
    }
    if !press.primary {
        return (press.key == "Delete" && !press.typing).then_some(Shortcut::DeleteThread);
    }
    match press.key {
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

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn with_primary(key: &str) -> Option<Shortcut> {
        shortcut_for(Press {
            key,
            primary: true,
            alt: false,
            typing: true,
        })
    }

    #[test]
    fn primary_shortcuts_work_even_in_a_field() {
        assert_eq!(with_primary("n"), Some(Shortcut::NewThread));
        assert_eq!(with_primary("N"), Some(Shortcut::NewThread));
        assert_eq!(with_primary("f"), Some(Shortcut::Search));
        assert_eq!(with_primary(","), Some(Shortcut::Settings));
        assert_eq!(with_primary("/"), Some(Shortcut::Help));
        assert_eq!(with_primary("1"), Some(Shortcut::OpenThread(0)));
        assert_eq!(with_primary("9"), Some(Shortcut::OpenThread(8)));
        assert_eq!(with_primary("0"), None);
        assert_eq!(with_primary("x"), None);
    }

    #[test]
    fn alt_and_plain_keys_are_left_alone_except_delete_outside_fields() {
        let press = |key, alt, typing| {
            shortcut_for(Press {
                key,
                primary: false,
                alt,
                typing,
            })
        };
        assert_eq!(press("Delete", false, false), Some(Shortcut::DeleteThread));
        assert_eq!(press("Delete", false, true), None);
        assert_eq!(press("n", false, false), None);
        assert_eq!(
            shortcut_for(Press {
                key: "n",
                primary: true,
                alt: true,
                typing: false,
            }),
            None
        );
    }
}
