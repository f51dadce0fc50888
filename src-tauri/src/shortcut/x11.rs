//! The global shortcut on X11: a key grab on the root window, and one thread
//! asleep in `wait_for_event` until a grabbed key is pressed. (The shortcut
//! plugin's X11 thread woke 20 times a second to poll for key presses, which
//! kept the app at 0.1–0.2 % CPU while closed to the tray.)

use std::sync::{Arc, Mutex, PoisonError};

use tauri_plugin_global_shortcut::{Code, Modifiers, Shortcut};
use x11rb::connection::Connection;
use x11rb::errors::ReplyError;
use x11rb::protocol::Event;
use x11rb::protocol::xkb::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{ConnectionExt as _, GrabMode, KeyButMask, Keycode, ModMask, Window};
use x11rb::rust_connection::RustConnection;

/// Why a shortcut could not be grabbed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GrabError {
    #[error("no key of this keyboard types {0}")]
    NoKey(Code),
    #[error("another application holds this shortcut")]
    Taken,
    #[error("the X server: {0}")]
    Connection(String),
}

fn connection_error(error: impl std::fmt::Display) -> GrabError {
    GrabError::Connection(error.to_string())
}

/// A grabbed key and the modifiers that go with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Grab {
    keycode: Keycode,
    mods: ModMask,
}

/// The grabs of this app's X11 connection, and the thread that listens.
pub(crate) struct Grabs {
    conn: Arc<RustConnection>,
    root: Window,
    grabbed: Arc<Mutex<Option<Grab>>>,
}

impl Grabs {
    /// Connects to the display and starts the thread that calls `pressed`
    /// on each press of the grabbed shortcut (a held key calls it once).
    pub(crate) fn start(pressed: impl Fn() + Send + 'static) -> Result<Self, GrabError> {
        let (conn, screen) = RustConnection::connect(None).map_err(connection_error)?;
        // A held key then repeats as presses only, not release-press pairs.
        conn.xkb_use_extension(1, 0)
            .map_err(connection_error)?
            .reply()
            .map_err(connection_error)?;
        let repeat = xkb::PerClientFlag::DETECTABLE_AUTO_REPEAT;
        conn.xkb_per_client_flags(
            xkb::ID::USE_CORE_KBD.into(),
            repeat,
            repeat,
            Default::default(),
            Default::default(),
            Default::default(),
        )
        .map_err(connection_error)?
        .reply()
        .map_err(connection_error)?;
        let root = conn
            .setup()
            .roots
            .get(screen)
            .map(|s| s.root)
            .ok_or_else(|| GrabError::Connection(format!("no screen {screen}")))?;
        let conn = Arc::new(conn);
        let grabbed = Arc::new(Mutex::new(None));
        let (events, current) = (Arc::clone(&conn), Arc::clone(&grabbed));
        std::thread::Builder::new()
            .name("global-shortcut".to_owned())
            .spawn(move || listen(&events, &current, pressed))
            .map_err(connection_error)?;
        Ok(Self {
            conn,
            root,
            grabbed,
        })
    }

    /// Makes `shortcut` the grabbed one (none: nothing grabbed). On failure
    /// nothing is grabbed.
    pub(crate) fn set(&self, shortcut: Option<&Shortcut>) -> Result<(), GrabError> {
        let mut grabbed = self.grabbed.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(old) = grabbed.take() {
            self.ungrab(old)?;
        }
        let Some(shortcut) = shortcut else {
            return Ok(());
        };
        let keysym = keysym(shortcut.key).ok_or(GrabError::NoKey(shortcut.key))?;
        let keycode = self
            .keycode(keysym)?
            .ok_or(GrabError::NoKey(shortcut.key))?;
        let grab = Grab {
            keycode,
            mods: mod_mask(shortcut.mods),
        };
        for locks in lock_combinations() {
            let cookie = self
                .conn
                .grab_key(
                    true,
                    self.root,
                    grab.mods | locks,
                    keycode,
                    GrabMode::ASYNC,
                    GrabMode::ASYNC,
                )
                .map_err(connection_error)?;
            if let Err(error) = cookie.check() {
                let _ = self.ungrab(grab);
                return Err(match error {
                    ReplyError::X11Error(_) => GrabError::Taken,
                    other => connection_error(other),
                });
            }
        }
        *grabbed = Some(grab);
        Ok(())
    }

    fn ungrab(&self, grab: Grab) -> Result<(), GrabError> {
        for locks in lock_combinations() {
            self.conn
                .ungrab_key(grab.keycode, self.root, grab.mods | locks)
                .map_err(connection_error)?;
        }
        self.conn.flush().map_err(connection_error)
    }

    /// The key that types `keysym` on this keyboard.
    fn keycode(&self, keysym: u32) -> Result<Option<Keycode>, GrabError> {
        let setup = self.conn.setup();
        let (first, last) = (setup.min_keycode, setup.max_keycode);
        let mapping = self
            .conn
            .get_keyboard_mapping(first, last.saturating_sub(first).saturating_add(1))
            .map_err(connection_error)?
            .reply()
            .map_err(connection_error)?;
        let per_key = usize::from(mapping.keysyms_per_keycode).max(1);
        Ok(mapping
            .keysyms
            .chunks(per_key)
            .position(|syms| syms.contains(&keysym))
            .and_then(|index| u8::try_from(index).ok())
            .map(|index| first.saturating_add(index)))
    }
}

/// Waits for key events until the connection ends.
fn listen(conn: &RustConnection, grabbed: &Mutex<Option<Grab>>, pressed: impl Fn()) {
    let modifiers = KeyButMask::CONTROL | KeyButMask::SHIFT | KeyButMask::MOD1 | KeyButMask::MOD4;
    let mut held = false;
    while let Ok(event) = conn.wait_for_event() {
        let current = *grabbed.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(grab) = current else {
            continue;
        };
        match event {
            Event::KeyPress(key) if key.detail == grab.keycode => {
                let mods = ModMask::from(u16::from(key.state & modifiers));
                if mods == grab.mods && !held {
                    held = true;
                    pressed();
                }
            }
            Event::KeyRelease(key) if key.detail == grab.keycode => held = false,
            _ => {}
        }
    }
}

/// Caps Lock and Num Lock must not stop the shortcut: it is grabbed with
/// each combination of the two.
fn lock_combinations() -> [ModMask; 4] {
    [
        ModMask::from(0u16),
        ModMask::LOCK,
        ModMask::M2,
        ModMask::LOCK | ModMask::M2,
    ]
}

fn mod_mask(mods: Modifiers) -> ModMask {
    let mut mask = ModMask::from(0u16);
    for (modifier, bit) in [
        (Modifiers::SHIFT, ModMask::SHIFT),
        (Modifiers::CONTROL, ModMask::CONTROL),
        (Modifiers::ALT, ModMask::M1),
        (Modifiers::SUPER, ModMask::M4),
        (Modifiers::META, ModMask::M4),
    ] {
        if mods.contains(modifier) {
            mask |= bit;
        }
    }
    mask
}

/// The X keysym a key types without modifiers; `None` for keys a shortcut
/// does not use.
pub(crate) fn keysym(code: Code) -> Option<u32> {
    use xkeysym::key;
    let name = code.to_string();
    if let Some(letter) = name.strip_prefix("Key").filter(|l| l.len() == 1) {
        return letter
            .chars()
            .next()
            .map(|c| u32::from(c.to_ascii_lowercase()));
    }
    if let Some(digit) = name
        .strip_prefix("Digit")
        .and_then(|d| d.parse::<u32>().ok())
    {
        return Some(u32::from(b'0') + digit);
    }
    if let Some(digit) = name
        .strip_prefix("Numpad")
        .and_then(|d| d.parse::<u32>().ok())
    {
        return Some(key::KP_0 + digit);
    }
    if let Some(n) = name.strip_prefix('F').and_then(|n| n.parse::<u32>().ok()) {
        return (1..=24).contains(&n).then(|| key::F1 + n - 1);
    }
    Some(match code {
        Code::Space => key::space,
        Code::Enter => key::Return,
        Code::Tab => key::Tab,
        Code::Escape => key::Escape,
        Code::Backspace => key::BackSpace,
        Code::Delete => key::Delete,
        Code::Insert => key::Insert,
        Code::Home => key::Home,
        Code::End => key::End,
        Code::PageUp => key::Page_Up,
        Code::PageDown => key::Page_Down,
        Code::ArrowLeft => key::Left,
        Code::ArrowRight => key::Right,
        Code::ArrowUp => key::Up,
        Code::ArrowDown => key::Down,
        Code::Minus => key::minus,
        Code::Equal => key::equal,
        Code::BracketLeft => key::bracketleft,
        Code::BracketRight => key::bracketright,
        Code::Backslash => key::backslash,
        Code::Semicolon => key::semicolon,
        Code::Quote => key::apostrophe,
        Code::Backquote => key::grave,
        Code::Comma => key::comma,
        Code::Period => key::period,
        Code::Slash => key::slash,
        Code::PrintScreen => key::Print,
        Code::Pause => key::Pause,
        Code::ScrollLock => key::Scroll_Lock,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_the_keysyms_they_type() {
        assert_eq!(keysym(Code::KeyQ), Some(u32::from(b'q')));
        assert_eq!(keysym(Code::Digit7), Some(u32::from(b'7')));
        assert_eq!(keysym(Code::Space), Some(xkeysym::key::space));
        assert_eq!(keysym(Code::F12), Some(xkeysym::key::F12));
        assert_eq!(keysym(Code::Numpad3), Some(xkeysym::key::KP_3));
        assert_eq!(keysym(Code::ShiftLeft), None);
    }

    #[test]
    fn modifiers_map_to_the_x_masks() {
        let shortcut: Shortcut = "Ctrl+Shift+Space".parse().unwrap();
        assert_eq!(mod_mask(shortcut.mods), ModMask::CONTROL | ModMask::SHIFT);
        let shortcut: Shortcut = "Alt+Super+K".parse().unwrap();
        assert_eq!(mod_mask(shortcut.mods), ModMask::M1 | ModMask::M4);
    }
}
