//! Keys typed into a quick-ask window made anew, before its page can take
//! them.
//!
//! A person presses the shortcut (or picks Quick ask in the tray) and types
//! at once. A window made anew is mapped ~50 ms after it was asked for but
//! its page has an input only ~380 ms after (measured on the release app
//! closed to the tray), and WebKit drops the keys pressed meanwhile: the
//! start of the question was lost. So from the moment the
//! window is made, its GTK key presses are kept here instead of reaching
//! the page; the page takes them (`quick_ask_typed_ahead`) once its input
//! has the focus, and puts them before whatever it received since. Keys
//! pressed after the take reach the page as always, so nothing is
//! reordered.
//!
//! Only text is kept: characters (as an input method makes them: dead
//! keys, compose sequences, IBus or Fcitx; see `keys.rs`), Backspace on
//! them, Shift+Enter's new line, and what a paste (Ctrl+V, Shift+Insert)
//! brings from the clipboard, in its place among the keys. Enter after
//! some text sends the question once the page has it; Esc hides the
//! window, as it does in the page. Any other key (with Ctrl, Alt or Super, arrows, Tab) passes to the
//! page as before. A page that never asks (it failed to load) gets its
//! keys again after [`GIVE_UP`].

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use pizza_protocol::TypedAhead;

mod keys;
pub(crate) use keys::watch;

/// How long keys are kept for a page that has not asked for them.
pub(crate) const GIVE_UP: Duration = Duration::from_secs(10);
/// How long the page's take waits for a paste whose clipboard is being
/// read (its owner answers in milliseconds, or never).
const PASTE_WAIT: Duration = Duration::from_secs(1);

/// A key press, as far as typing ahead goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    Text(char),
    Backspace,
    Enter,
    Escape,
    /// Ctrl+V or Shift+Insert.
    Paste,
    /// Anything else: passes to the page.
    Other,
}

/// What becomes of a key press.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Kept for the page.
    Kept,
    /// Goes to the page now.
    Pass,
    /// Esc: hide the window (what was kept is dropped).
    Hide,
    /// A paste to keep: read the clipboard and hand its text to
    /// [`TypeAhead::paste`].
    Paste,
}

/// The keys kept for the quick-ask page (app state).
#[derive(Debug, Default)]
pub(crate) struct TypeAhead {
    buffer: Mutex<Buffer>,
    /// Told when a paste's text arrived.
    pasted: Condvar,
}

#[derive(Debug, Default)]
struct Buffer {
    /// Since when keys are kept; `None` once the page took them.
    since: Option<Instant>,
    text: String,
    send: bool,
    /// A paste's clipboard is being read: its text goes before what
    /// follows, so the page's take waits for it.
    pasting: bool,
    /// Keys pressed while the clipboard was read, for after its text.
    after_paste: Vec<Key>,
}

impl Buffer {
    /// Applies a key that edits the text: a character, Backspace, Enter.
    fn edit(&mut self, key: Key) {
        match key {
            Key::Text(c) => self.text.push(c),
            Key::Backspace => {
                self.text.pop();
            }
            Key::Enter => self.send = !self.text.trim().is_empty(),
            Key::Escape | Key::Paste | Key::Other => {}
        }
    }

    /// Applies the keys pressed while a paste's clipboard was read, after
    /// its text (or without it, when it never came).
    fn apply_after_paste(&mut self) {
        for key in std::mem::take(&mut self.after_paste) {
            if !self.send {
                self.edit(key);
            }
        }
    }
}

impl TypeAhead {
    /// Keeps keys from now on, for a window just made.
    pub(crate) fn open(&self, now: Instant) {
        *self.buffer() = Buffer {
            since: Some(now),
            ..Buffer::default()
        };
    }

    /// Whether keys pressed at `now` are kept (a window was made, its page
    /// has not taken them, nothing was sent and it is not too late).
    pub(crate) fn keeping(&self, now: Instant) -> bool {
        let buffer = self.buffer();
        buffer
            .since
            .is_some_and(|since| now.duration_since(since) <= GIVE_UP)
            && !buffer.send
    }

    /// Decides what becomes of `key`, pressed at `now`.
    pub(crate) fn key(&self, key: Key, now: Instant) -> Verdict {
        let mut buffer = self.buffer();
        let Some(since) = buffer.since else {
            return Verdict::Pass;
        };
        if now.duration_since(since) > GIVE_UP {
            buffer.since = None;
            tracing::warn!("the quick-ask page did not take the keys typed ahead: they pass now");
            return Verdict::Pass;
        }
        // After Enter the question is on its way: the rest is the page's.
        if buffer.send {
            return Verdict::Pass;
        }
        match key {
            Key::Text(_) | Key::Backspace | Key::Enter if buffer.pasting => {
                buffer.after_paste.push(key);
            }
            Key::Text(_) | Key::Backspace | Key::Enter => buffer.edit(key),
            Key::Escape => {
                *buffer = Buffer::default();
                return Verdict::Hide;
            }
            // A second paste while the first is read: the same clipboard,
            // read once.
            Key::Paste if buffer.pasting => {}
            Key::Paste => {
                buffer.pasting = true;
                return Verdict::Paste;
            }
            Key::Other => return Verdict::Pass,
        }
        Verdict::Kept
    }

    /// Keeps the clipboard's `text` (`None`: it had none) for the paste
    /// that [`key`](Self::key) answered with [`Verdict::Paste`]; false when
    /// the text came too late (the page had stopped waiting for it).
    pub(crate) fn paste(&self, text: Option<&str>) -> bool {
        let mut buffer = self.buffer();
        let waited_for = std::mem::take(&mut buffer.pasting);
        self.pasted.notify_all();
        if !waited_for || buffer.since.is_none() {
            return text.is_none();
        }
        if let Some(text) = text {
            // As a text field takes it: one line break for a CR LF.
            buffer.text.push_str(&text.replace("\r\n", "\n"));
        }
        buffer.apply_after_paste();
        true
    }

    /// What was kept, once; keys pass to the page from now on. A paste
    /// being read is waited for (up to [`PASTE_WAIT`]).
    pub(crate) fn take(&self) -> TypedAhead {
        let guard = self.buffer();
        let (mut guard, _) = self
            .pasted
            .wait_timeout_while(guard, PASTE_WAIT, |buffer| buffer.pasting)
            .unwrap_or_else(PoisonError::into_inner);
        let mut buffer = std::mem::take(&mut *guard);
        drop(guard);
        // A paste whose clipboard never answered: what was typed after it
        // is still the person's.
        buffer.apply_after_paste();
        if !buffer.text.is_empty() {
            tracing::info!(
                chars = buffer.text.chars().count(),
                send = buffer.send,
                "quick-ask keys typed ahead handed to its page"
            );
        }
        TypedAhead {
            text: buffer.text,
            send: buffer.send,
        }
    }

    fn buffer(&self) -> std::sync::MutexGuard<'_, Buffer> {
        self.buffer.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(type_ahead: &TypeAhead, keys: &[Key], now: Instant) -> Vec<Verdict> {
        keys.iter().map(|key| type_ahead.key(*key, now)).collect()
    }

    fn text(s: &str) -> Vec<Key> {
        s.chars().map(Key::Text).collect()
    }

    /// Keeping keys for a window made `now`.
    fn opened() -> (TypeAhead, Instant) {
        let type_ahead = TypeAhead::default();
        let now = Instant::now();
        type_ahead.open(now);
        (type_ahead, now)
    }

    #[test]
    fn keys_pass_until_a_window_is_made_and_again_once_taken() {
        let type_ahead = TypeAhead::default();
        assert_eq!(
            type_ahead.key(Key::Text('a'), Instant::now()),
            Verdict::Pass
        );
        let now = Instant::now();
        type_ahead.open(now);
        assert_eq!(typed(&type_ahead, &text("Hi"), now), [Verdict::Kept; 2]);
        assert_eq!(
            type_ahead.take(),
            TypedAhead {
                text: "Hi".to_owned(),
                send: false
            }
        );
        assert_eq!(type_ahead.key(Key::Text('!'), now), Verdict::Pass);
        assert_eq!(type_ahead.take(), TypedAhead::default());
    }

    #[test]
    fn backspace_edits_what_was_kept_and_enter_after_text_sends() {
        let (type_ahead, now) = opened();
        // Enter with nothing typed sends nothing.
        assert_eq!(type_ahead.key(Key::Enter, now), Verdict::Kept);
        let mut keys = text("Bakr");
        keys.extend([
            Key::Backspace,
            Key::Backspace,
            Key::Text('k'),
            Key::Text('e'),
        ]);
        keys.extend([Key::Text('\n'), Key::Text('é'), Key::Enter]);
        assert!(
            typed(&type_ahead, &keys, now)
                .iter()
                .all(|v| *v == Verdict::Kept)
        );
        // The question is on its way: what follows is the page's.
        assert_eq!(type_ahead.key(Key::Text('x'), now), Verdict::Pass);
        assert_eq!(
            type_ahead.take(),
            TypedAhead {
                text: "Bake\né".to_owned(),
                send: true
            }
        );
    }

    #[test]
    fn other_keys_pass_and_escape_hides_dropping_what_was_kept() {
        let (type_ahead, now) = opened();
        assert_eq!(type_ahead.key(Key::Text('a'), now), Verdict::Kept);
        assert_eq!(type_ahead.key(Key::Other, now), Verdict::Pass);
        assert_eq!(type_ahead.key(Key::Escape, now), Verdict::Hide);
        assert_eq!(type_ahead.key(Key::Text('b'), now), Verdict::Pass);
        assert_eq!(type_ahead.take(), TypedAhead::default());
    }

    #[test]
    fn a_paste_is_kept_in_its_place_among_the_keys() {
        let (type_ahead, now) = opened();
        assert_eq!(typed(&type_ahead, &text("Re: "), now), [Verdict::Kept; 4]);
        assert_eq!(type_ahead.key(Key::Paste, now), Verdict::Paste);
        // Typed while the clipboard is read (GTK's loop runs meanwhile):
        // after the paste's text, and Enter decides once it is there.
        assert_eq!(typed(&type_ahead, &text("?!"), now), [Verdict::Kept; 2]);
        assert_eq!(type_ahead.key(Key::Backspace, now), Verdict::Kept);
        assert!(type_ahead.paste(Some("the plan\r\nfor Monday")));
        // An empty clipboard adds nothing.
        assert_eq!(type_ahead.key(Key::Paste, now), Verdict::Paste);
        assert!(type_ahead.paste(None));
        assert_eq!(type_ahead.key(Key::Enter, now), Verdict::Kept);
        // Sent: a paste now is the page's.
        assert_eq!(type_ahead.key(Key::Paste, now), Verdict::Pass);
        assert_eq!(
            type_ahead.take(),
            TypedAhead {
                text: "Re: the plan\nfor Monday?".to_owned(),
                send: true
            }
        );
        // Taken: pastes are the page's again.
        assert_eq!(type_ahead.key(Key::Paste, now), Verdict::Pass);
    }

    #[test]
    fn the_pages_take_waits_for_a_paste_being_read() {
        let (type_ahead, now) = opened();
        let type_ahead = std::sync::Arc::new(type_ahead);
        assert_eq!(type_ahead.key(Key::Paste, now), Verdict::Paste);
        // Enter before the text is there: it sends once the text is.
        assert_eq!(type_ahead.key(Key::Enter, now), Verdict::Kept);
        let (asked, asking) = std::sync::mpsc::channel();
        let taking = std::thread::spawn({
            let type_ahead = std::sync::Arc::clone(&type_ahead);
            move || {
                let _ = asked.send(());
                type_ahead.take()
            }
        });
        asking.recv().unwrap();
        // The clipboard answers while (or before) the page asks: its text
        // is in what the page gets either way.
        assert!(type_ahead.paste(Some("the plan")));
        assert_eq!(
            taking.join().unwrap(),
            TypedAhead {
                text: "the plan".to_owned(),
                send: true
            }
        );
    }

    #[test]
    fn a_paste_read_after_the_page_gave_up_waiting_is_refused() {
        let (type_ahead, now) = opened();
        assert_eq!(type_ahead.key(Key::Paste, now), Verdict::Paste);
        let mut keys = text("ok");
        keys.push(Key::Enter);
        assert_eq!(typed(&type_ahead, &keys, now), [Verdict::Kept; 3]);
        // The clipboard's owner never answers: the page waits, then goes
        // on with what was typed after the paste.
        let started = Instant::now();
        assert_eq!(
            type_ahead.take(),
            TypedAhead {
                text: "ok".to_owned(),
                send: true
            }
        );
        assert!(started.elapsed() >= PASTE_WAIT);
        assert!(!type_ahead.paste(Some("late")));
        assert_eq!(type_ahead.take(), TypedAhead::default());
    }

    #[test]
    fn keys_are_kept_until_sent_taken_or_too_late() {
        let type_ahead = TypeAhead::default();
        let now = Instant::now();
        assert!(!type_ahead.keeping(now));
        type_ahead.open(now);
        assert!(type_ahead.keeping(now));
        assert!(!type_ahead.keeping(now + GIVE_UP + Duration::from_millis(1)));
        typed(&type_ahead, &text("Hi"), now);
        assert!(type_ahead.keeping(now));
        type_ahead.key(Key::Enter, now);
        assert!(!type_ahead.keeping(now));
        type_ahead.open(now);
        type_ahead.take();
        assert!(!type_ahead.keeping(now));
    }

    #[test]
    fn a_page_that_never_asks_gets_its_keys_again() {
        let (type_ahead, now) = opened();
        assert_eq!(type_ahead.key(Key::Text('a'), now), Verdict::Kept);
        let later = now + GIVE_UP + Duration::from_millis(1);
        assert_eq!(type_ahead.key(Key::Text('b'), later), Verdict::Pass);
        assert_eq!(type_ahead.key(Key::Text('c'), now), Verdict::Pass);
        // What was kept before is still the page's, should it ask.
        assert_eq!(type_ahead.take().text, "a");
    }
}
