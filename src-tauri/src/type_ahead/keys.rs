//! The GTK side of typing ahead: the quick-ask window's key presses,
//! turned into text as a text field turns them.
//!
//! A key press is not yet text: a dead key (^ then e is ê), a compose
//! sequence or an input method (IBus, Fcitx: pinyin, kana) makes text of
//! several presses, or of none. So the window's presses go through an
//! input-method context of their own, as the page's input would have them
//! go, and what it commits is kept; the presses it leaves alone (Enter,
//! Backspace, Esc, a paste, keys with Ctrl or Alt) are decided by
//! [`TypeAhead::key`]. Once the page has the keys the context lets go and
//! the page's own input method has them.

#[cfg(target_os = "linux")]
use std::time::Instant;

#[cfg(target_os = "linux")]
use super::{Key, TypeAhead, Verdict};

/// Keeps the key presses of `window` (the quick-ask window, just made) in
/// the app's [`TypeAhead`] until its page takes them.
#[cfg(target_os = "linux")]
pub(crate) fn watch<R: tauri::Runtime>(
    app: &tauri::AppHandle<R>,
    window: &tauri::WebviewWindow<R>,
) {
    use tauri::Manager;

    let Some(type_ahead) = app.try_state::<TypeAhead>() else {
        return;
    };
    type_ahead.open(Instant::now());
    let (app, handle) = (app.clone(), window.clone());
    // GTK's objects are the main thread's (the window may have been made
    // from the shortcut's thread or a second launch's call).
    if let Err(error) = window.run_on_main_thread(move || keep_keys(app, &handle)) {
        tracing::warn!(%error, "keys typed into quick-ask before it is ready will be lost");
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn watch<R: tauri::Runtime>(
    _app: &tauri::AppHandle<R>,
    _window: &tauri::WebviewWindow<R>,
) {
}

/// Connects the key handlers and the input method on the main thread.
#[cfg(target_os = "linux")]
fn keep_keys<R: tauri::Runtime>(app: tauri::AppHandle<R>, window: &tauri::WebviewWindow<R>) {
    use gtk::glib::Propagation;
    use gtk::prelude::*;
    use tauri::Manager;

    let gtk_window = match window.gtk_window() {
        Ok(gtk_window) => gtk_window,
        Err(error) => {
            tracing::warn!(%error, "keys typed into quick-ask before it is ready will be lost");
            return;
        }
    };
    let input = gtk::IMMulticontext::new();
    input.set_client_window(gtk_window.window().as_ref());
    input.focus_in();
    {
        let app = app.clone();
        input.connect_commit(move |_, text| {
            let Some(type_ahead) = app.try_state::<TypeAhead>() else {
                return;
            };
            let now = Instant::now();
            let kept = text
                .chars()
                .all(|c| type_ahead.key(Key::Text(c), now) == Verdict::Kept);
            if !kept {
                tracing::warn!("text typed into quick-ask came after its page took the keys");
            }
        });
    }
    // Whether the context still has the window's keys; it lets go once.
    let holding = std::rc::Rc::new(std::cell::Cell::new(true));
    let still_keeping = {
        let (app, input, holding) = (app.clone(), input.clone(), holding.clone());
        move || {
            let keeping = app
                .try_state::<TypeAhead>()
                .is_some_and(|type_ahead| type_ahead.keeping(Instant::now()));
            if !keeping && holding.replace(false) {
                input.focus_out();
            }
            keeping && holding.get()
        }
    };
    {
        // Some input methods act on releases too (a Shift tapped alone).
        let (input, still_keeping) = (input.clone(), still_keeping.clone());
        gtk_window.connect_key_release_event(move |_, event| {
            if still_keeping() {
                input.filter_keypress(event);
            }
            Propagation::Proceed
        });
    }
    // Connected on the window, so it runs before GTK hands the key to the
    // webview (the window's own handler does that).
    gtk_window.connect_key_press_event(move |_, event| {
        let Some(type_ahead) = app.try_state::<TypeAhead>() else {
            return Propagation::Proceed;
        };
        let key = key_of(event);
        let for_input = matches!(key, Key::Text(_) | Key::Backspace | Key::Enter | Key::Other)
            && !is_command(event.state());
        if for_input && still_keeping() && input.filter_keypress(event) {
            return Propagation::Stop;
        }
        match type_ahead.key(key, Instant::now()) {
            Verdict::Pass => Propagation::Proceed,
            Verdict::Kept => Propagation::Stop,
            Verdict::Hide => {
                crate::quick_ask::hide(&app);
                Propagation::Stop
            }
            Verdict::Paste => {
                // Read now, so the keys pressed after it come after it.
                let clipboard = gtk::Clipboard::get(&gtk::gdk::SELECTION_CLIPBOARD);
                let text = clipboard.wait_for_text();
                if !type_ahead.paste(text.as_deref()) {
                    tracing::warn!("a paste into quick-ask came after its page took the keys");
                }
                Propagation::Stop
            }
        }
    });
}

/// Ctrl, Alt, Super, Hyper and Meta: with one held a key is a command,
/// not text.
#[cfg(target_os = "linux")]
const COMMANDS: gtk::gdk::ModifierType = gtk::gdk::ModifierType::CONTROL_MASK
    .union(gtk::gdk::ModifierType::MOD1_MASK)
    .union(gtk::gdk::ModifierType::SUPER_MASK)
    .union(gtk::gdk::ModifierType::HYPER_MASK)
    .union(gtk::gdk::ModifierType::META_MASK);

/// Whether `state` holds a command modifier.
#[cfg(target_os = "linux")]
fn is_command(state: gtk::gdk::ModifierType) -> bool {
    state.intersects(COMMANDS)
}

/// The key `event` presses.
#[cfg(target_os = "linux")]
fn key_of(event: &gtk::gdk::EventKey) -> Key {
    use gtk::gdk::ModifierType;
    use gtk::gdk::keys::constants as keys;

    let state = event.state();
    let keyval = event.keyval();
    // The modifiers held, without Caps Lock's and Num Lock's states.
    let held = state & (COMMANDS | ModifierType::SHIFT_MASK | ModifierType::MOD4_MASK);
    let only = |modifier: ModifierType| held == modifier;
    if (only(ModifierType::CONTROL_MASK) && (keyval == keys::v || keyval == keys::V))
        || (only(ModifierType::SHIFT_MASK) && (keyval == keys::Insert || keyval == keys::KP_Insert))
    {
        return Key::Paste;
    }
    if is_command(state) {
        return Key::Other;
    }
    if keyval == keys::Return || keyval == keys::KP_Enter {
        return if state.contains(ModifierType::SHIFT_MASK) {
            Key::Text('\n')
        } else {
            Key::Enter
        };
    }
    if keyval == keys::BackSpace {
        return Key::Backspace;
    }
    if keyval == keys::Escape {
        return Key::Escape;
    }
    match keyval.to_unicode() {
        Some(c) if !c.is_control() => Key::Text(c),
        _ => Key::Other,
    }
}
