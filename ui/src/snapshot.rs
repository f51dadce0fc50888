//! The main window's look, kept by the host for the next window to show at
//! once while its page starts (`ui/snapshot.js` shows and takes it; the
//! host drops it when what it shows may change, `window_snapshot.rs`).

use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{WindowSnapshot, cmd};
use std::cell::Cell;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["window", "pizzaSnapshot"], js_name = reveal)]
    fn js_reveal() -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["window", "pizzaSnapshot"], js_name = watch)]
    fn js_watch(send: &Closure<dyn Fn(Option<String>)>) -> Result<(), JsValue>;
}

/// A part of the page's first look that the snapshot stays for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Part {
    /// The thread list (every window).
    List = 1,
    /// The thread the window was made on, if any.
    Thread = 2,
    /// The screen the window was made on, when it is not the inbox: that
    /// page's own list (the skills, the MCP servers, the automations) or,
    /// for Settings, the settings.
    Skills = 4,
    Mcp = 8,
    Automations = 16,
    Settings = 32,
}

thread_local! {
    /// The parts not painted yet: the list, and what `awaits` adds for
    /// the place the window was made on.
    static AWAITED: Cell<u8> = const { Cell::new(Part::List as u8) };
}

/// The window was made on a place whose snapshot shows `part` too (a
/// thread's messages, a screen's list): the snapshot stays until the page
/// has rendered it as well. Each comes in its own answer, in no set order
/// with the thread list's: going with the list alone, the cover could give
/// way to an empty pane ("No skills yet…") for a moment.
pub(crate) fn awaits(part: Part) {
    AWAITED.set(AWAITED.get() | part as u8);
}

/// `part` is rendered, or has failed (it then says so): the snapshot goes
/// once nothing else is awaited. Later calls do nothing.
pub(crate) fn painted(part: Part) {
    if AWAITED.get() == 0 {
        return;
    }
    let left = AWAITED.get() & !(part as u8);
    AWAITED.set(left);
    if left == 0 {
        reveal();
    }
}

/// Removes the last window's snapshot, in the frame that paints what was
/// just rendered (the page's own look, or why it has none).
pub(crate) fn reveal() {
    request_animation_frame(|| {
        let _ = js_reveal();
    });
}

/// Sends the host what the window shows whenever it settles after a change
/// and when the window is hidden, for the page's life; nothing (the host
/// forgets the last) while a window made on its place would not mount as
/// it is (`mounts_as_is`).
pub(crate) fn follow(mounts_as_is: impl Fn() -> bool + 'static) {
    let send = Closure::<dyn Fn(Option<String>)>::new(move |html: Option<String>| {
        let html = html.filter(|_| mounts_as_is());
        leptos::task::spawn_local(async move {
            let _ = invoke::<cmd::WindowSnapshotSet>(&WindowSnapshot { html }).await;
        });
    });
    if js_watch(&send).is_ok() {
        send.forget();
    }
}

/// When the snapshot was painted, in milliseconds since the page started;
/// none without one.
pub(crate) fn painted_ms() -> Option<u64> {
    let painted =
        js_sys::Reflect::get(&window(), &JsValue::from_str("pizzaSnapshotPainted")).ok()?;
    painted.as_f64().map(|ms| ms.max(0.0).round() as u64)
}
