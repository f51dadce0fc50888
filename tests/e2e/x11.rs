//! The app's windows as a window manager sees them, over the X display the
//! app uses: find a top-level window by title, close it as a close button
//! does, wait for it to be shown or hidden, answer a dialog from the keyboard,
//! type into it.

use anyhow::{Context, Result, anyhow, bail};
use pizza_test_support::notification_server::NotificationServer;
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::errors::ReplyError;
use x11rb::protocol::ErrorKind;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConnectionExt as _, EventMask, InputFocus, MapState, Window,
};
use x11rb::rust_connection::RustConnection;

const TIMEOUT: Duration = Duration::from_secs(20);

fn connect() -> Result<(RustConnection, Window)> {
    let (conn, screen) = x11rb::connect(None).context("connecting to the X display")?;
    let root = conn.setup().roots[screen].root;
    Ok((conn, root))
}

fn atom(conn: &RustConnection, name: &str) -> Result<u32> {
    Ok(conn.intern_atom(false, name.as_bytes())?.reply()?.atom)
}

fn mapped(conn: &RustConnection, window: Window) -> Result<bool> {
    Ok(conn.get_window_attributes(window)?.reply()?.map_state == MapState::VIEWABLE)
}

/// The shown top-level window titled `title` owned by one of `pids` (the
/// app under test: an earlier test's app may still be on the display), if
/// there is one.
fn shown_window(
    conn: &RustConnection,
    root: Window,
    title: &str,
    pids: &[u32],
) -> Result<Option<Window>> {
    let atoms = [
        atom(conn, "_NET_WM_NAME")?,
        atom(conn, "UTF8_STRING")?,
        atom(conn, "_NET_WM_PID")?,
    ];
    for window in conn.query_tree(root)?.reply()?.children {
        match is_shown(conn, window, atoms, title, pids) {
            Ok(true) => return Ok(Some(window)),
            Ok(false) => {}
            // Listed, then destroyed before it was read (an app that was
            // just stopped): it is not the one.
            Err(ReplyError::X11Error(error)) if error.error_kind == ErrorKind::Window => {}
            Err(error) => return Err(error.into()),
        }
    }
    Ok(None)
}

/// Whether `window` is titled `title`, shown, and owned by one of `pids`.
fn is_shown(
    conn: &RustConnection,
    window: Window,
    [net_wm_name, utf8, net_wm_pid]: [u32; 3],
    title: &str,
    pids: &[u32],
) -> Result<bool, ReplyError> {
    let name = conn
        .get_property(false, window, net_wm_name, utf8, 0, 256)?
        .reply()?
        .value;
    let legacy = conn
        .get_property(false, window, AtomEnum::WM_NAME, AtomEnum::STRING, 0, 256)?
        .reply()?
        .value;
    if name != title.as_bytes() && legacy != title.as_bytes() {
        return Ok(false);
    }
    if conn.get_window_attributes(window)?.reply()?.map_state != MapState::VIEWABLE {
        return Ok(false);
    }
    let owner = conn
        .get_property(false, window, net_wm_pid, AtomEnum::CARDINAL, 0, 1)?
        .reply()?
        .value32()
        .and_then(|mut values| values.next());
    Ok(owner.is_some_and(|pid| pids.contains(&pid)))
}

/// Waits until a top-level window titled `title` of one of `pids` is shown
/// and returns it.
pub(crate) async fn wait_for_window(title: &str, pids: &[u32]) -> Result<Window> {
    let (conn, root) = connect()?;
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(window) = shown_window(&conn, root, title, pids)? {
            return Ok(window);
        }
        if Instant::now() > deadline {
            bail!("no window titled {title:?} was shown within {TIMEOUT:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The process that owns `window` (`_NET_WM_PID`, set by GTK).
pub(crate) fn window_pid(window: Window) -> Result<u32> {
    let (conn, _) = connect()?;
    let net_wm_pid = atom(&conn, "_NET_WM_PID")?;
    conn.get_property(false, window, net_wm_pid, AtomEnum::CARDINAL, 0, 1)?
        .reply()?
        .value32()
        .and_then(|mut values| values.next())
        .ok_or_else(|| anyhow!("window {window} has no _NET_WM_PID"))
}

/// Asks the shown top-level window titled `title` of one of `pids` to
/// close, as a window manager's close button does (`WM_DELETE_WINDOW`);
/// returns it once the X server has delivered the request.
pub(crate) fn close_window(title: &str, pids: &[u32]) -> Result<Window> {
    let (conn, root) = connect()?;
    let Some(window) = shown_window(&conn, root, title, pids)? else {
        bail!("no shown window titled {title:?}");
    };
    let protocols = atom(&conn, "WM_PROTOCOLS")?;
    let delete = atom(&conn, "WM_DELETE_WINDOW")?;
    let event = ClientMessageEvent::new(32, window, protocols, [delete, 0, 0, 0, 0]);
    conn.send_event(false, window, EventMask::NO_EVENT, event)?;
    // A round trip before the connection is dropped, as Xlib's
    // XCloseDisplay does. `flush` only writes to the socket: a busy X
    // server that wakes up to find the socket already hung up closes the
    // client without reading what it sent, so the close would never reach
    // the app.
    x11rb::wrapper::ConnectionExt::sync(&conn)?;
    Ok(window)
}

/// Closes the shown top-level window titled `title` of one of `pids` and
/// waits until it is hidden; returns it.
pub(crate) async fn close_until_hidden(title: &str, pids: &[u32]) -> Result<Window> {
    let window = close_window(title, pids)?;
    wait_until(window, false).await?;
    Ok(window)
}

/// Gives the keyboard focus to the shown window titled `title` of one of
/// `pids`, as a window manager does when the person clicks it.
pub(crate) fn focus_window(title: &str, pids: &[u32]) -> Result<()> {
    let (conn, root) = connect()?;
    let Some(window) = shown_window(&conn, root, title, pids)? else {
        bail!("no shown window titled {title:?}");
    };
    give_focus(&conn, window)
}

/// Gives `window` the keyboard focus, once the X server has done it.
fn give_focus(conn: &RustConnection, window: Window) -> Result<()> {
    conn.set_input_focus(InputFocus::POINTER_ROOT, window, x11rb::CURRENT_TIME)?;
    x11rb::wrapper::ConnectionExt::sync(conn)?;
    Ok(())
}

/// Takes the keyboard focus from every window, as switching to another
/// application does.
pub(crate) fn focus_nothing() -> Result<()> {
    let (conn, _) = connect()?;
    conn.set_input_focus(InputFocus::NONE, x11rb::NONE, x11rb::CURRENT_TIME)?;
    x11rb::wrapper::ConnectionExt::sync(&conn)?;
    Ok(())
}

/// Gives `window` the keyboard focus (there is no window manager to do it)
/// and presses `key` there through XTEST, as a person at the keyboard would.
fn press_key_in(window: Window, key: &str) -> Result<()> {
    let (conn, _) = connect()?;
    give_focus(&conn, window)?;
    press_key(key)
}

/// Gives `window` the keyboard focus and types `text` there through XTEST,
/// then Enter, as a person at the keyboard would.
pub(crate) fn type_in(window: Window, text: &str) -> Result<()> {
    let (conn, _) = connect()?;
    give_focus(&conn, window)?;
    xdotool(&["type", "--", text])?;
    xdotool(&["key", "Return"])
}

/// Gives `window` the focus, runs each of `steps` (xdotool's arguments:
/// `["key", "ctrl+v"]`, `["type", "--", "text"]`) and presses Enter.
pub(crate) fn keys_into(window: Window, steps: &[&[&str]]) -> Result<()> {
    let (conn, _) = connect()?;
    give_focus(&conn, window)?;
    for step in steps {
        xdotool(step)?;
    }
    xdotool(&["key", "Return"])
}

/// The X clipboard holding a text, served by `xclip` (package xclip) until
/// dropped.
pub(crate) struct Clipboard(std::process::Child);

impl Clipboard {
    /// Puts `text` on the clipboard; returns once the clipboard gives it.
    pub(crate) async fn holding(text: &str) -> Result<Self> {
        use std::io::Write;
        let mut child = std::process::Command::new("xclip")
            .args(["-selection", "clipboard", "-quiet", "-in"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .context("running xclip (package xclip)")?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(text.as_bytes())?;
        }
        let clipboard = Self(child);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let out = std::process::Command::new("xclip")
                .args(["-selection", "clipboard", "-out"])
                .output()
                .context("reading the clipboard with xclip")?;
            if out.status.success() && out.stdout == text.as_bytes() {
                return Ok(clipboard);
            }
            if Instant::now() > deadline {
                bail!("the clipboard did not hold {text:?} within {TIMEOUT:?}");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Clipboard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Presses `key` (e.g. `ctrl+shift+space`) through XTEST, wherever the
/// keyboard focus is: a global shortcut.
pub(crate) fn press_key(key: &str) -> Result<()> {
    xdotool(&["key", key])
}

fn xdotool(args: &[&str]) -> Result<()> {
    let status = std::process::Command::new("xdotool")
        .args(args)
        .status()
        .context("running xdotool (package xdotool)")?;
    if !status.success() {
        bail!("xdotool failed: {status}");
    }
    Ok(())
}

/// Answers the dialog `window` with `key` as a person would, pressing again
/// until it is gone: a key pressed before the dialog has taken the focus
/// is lost.
pub(crate) async fn answer_dialog(window: Window, key: &str) -> Result<()> {
    let (conn, _) = connect()?;
    let deadline = Instant::now() + TIMEOUT;
    loop {
        // A destroyed window is an error to ask about: gone either way.
        if !mapped(&conn, window).unwrap_or(false) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("the dialog did not close on {key}");
        }
        press_key_in(window, key)?;
        let settle = Instant::now() + Duration::from_millis(500);
        while Instant::now() < settle && mapped(&conn, window).unwrap_or(false) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Clicks notification `id` until a window titled `title` of one of
/// `pids` is shown — the one closed to the tray, or a new one made after it
/// was released (a click in the instant after showing the notification is
/// missed). Returns it.
pub(crate) async fn click_until_shown(
    server: &NotificationServer,
    id: u32,
    title: &str,
    pids: impl Fn() -> Vec<u32>,
) -> Result<Window> {
    let (conn, root) = connect()?;
    let deadline = Instant::now() + TIMEOUT;
    loop {
        server.click(id).map_err(|e| anyhow!(e))?;
        let settle = Instant::now() + Duration::from_millis(500);
        while Instant::now() < settle {
            if let Some(window) = shown_window(&conn, root, title, &pids())? {
                return Ok(window);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if Instant::now() > deadline {
            bail!("clicking the notification did not show a window titled {title:?}");
        }
    }
}

/// Polls until `window` is shown (`true`) or hidden (or gone: the app
/// releases a window closed to the tray).
pub(crate) async fn wait_until(window: Window, shown: bool) -> Result<()> {
    let (conn, _) = connect()?;
    let deadline = Instant::now() + TIMEOUT;
    while mapped(&conn, window).unwrap_or(false) != shown {
        if Instant::now() > deadline {
            bail!(
                "the window is still {}",
                if shown { "hidden" } else { "shown" }
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}
