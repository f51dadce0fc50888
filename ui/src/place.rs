//! Where the main window is, kept by the host: a window made again after it
//! was released (closed to the tray), or at the next start, gets the screen
//! and thread the person left in its page's address
//! (src-tauri/src/main_window.rs) and mounts there, so its first paint is
//! that place. The first painted inbox is reported for the start-up figures.

use crate::ipc::invoke;
use crate::screen::Screen;
use crate::screens::inbox::state::Inbox;
use crate::screens::settings::Section;
use crate::snapshot::Part;
use leptos::prelude::*;
use pizza_protocol::{ThreadView, WindowPaintedParams, WindowPlace, WindowScreen, cmd};
use std::cell::Cell;

fn to_wire(screen: Screen) -> WindowScreen {
    match screen {
        Screen::Inbox => WindowScreen::Inbox,
        Screen::Skills => WindowScreen::Skills,
        Screen::Mcp => WindowScreen::Mcp,
        Screen::Automations => WindowScreen::Automations,
        Screen::Settings => WindowScreen::Settings,
    }
}

fn from_wire(screen: WindowScreen) -> Screen {
    match screen {
        WindowScreen::Inbox => Screen::Inbox,
        WindowScreen::Skills => Screen::Skills,
        WindowScreen::Mcp => Screen::Mcp,
        WindowScreen::Automations => Screen::Automations,
        WindowScreen::Settings => Screen::Settings,
    }
}

/// Where the host made this window (`?screen=…&thread=…`); the inbox, with
/// no thread open, when the address says nothing it knows.
pub(crate) fn from_address() -> WindowPlace {
    let query = window()
        .location()
        .search()
        .ok()
        .and_then(|search| web_sys::UrlSearchParams::new_with_str(&search).ok());
    let Some(query) = query else {
        return WindowPlace::default();
    };
    WindowPlace {
        screen: query
            .get("screen")
            .and_then(|name| WindowScreen::from_name(&name))
            .unwrap_or_default(),
        thread_id: query.get("thread").filter(|id| !id.is_empty()),
    }
}

/// The screen to mount on.
pub(crate) fn screen_of(place: &WindowPlace) -> Screen {
    from_wire(place.screen)
}

/// Opens the place's thread, then tells the host every move.
pub(crate) fn restore_and_follow(place: WindowPlace, screen: RwSignal<Screen>, inbox: Inbox) {
    if let Some(part) = page_part(place.screen) {
        crate::snapshot::awaits(part);
    }
    if let Some(thread_id) = place.thread_id {
        crate::snapshot::awaits(Part::Thread);
        inbox.open(thread_id, None);
    }
    Effect::new(move |_| {
        let place = WindowPlace {
            screen: to_wire(screen.get()),
            thread_id: inbox.selected.get(),
        };
        leptos::task::spawn_local(async move {
            let _ = invoke::<cmd::WindowPlaceSet>(&place).await;
        });
    });
}

/// What of a screen other than the inbox its snapshot waits for.
fn page_part(screen: WindowScreen) -> Option<Part> {
    match screen {
        WindowScreen::Inbox => None,
        WindowScreen::Skills => Some(Part::Skills),
        WindowScreen::Mcp => Some(Part::Mcp),
        WindowScreen::Automations => Some(Part::Automations),
        WindowScreen::Settings => Some(Part::Settings),
    }
}

/// Whether a window made on this window's place (screen and thread) would
/// mount as this one is: the list unfiltered, and Settings on its first
/// section. A snapshot of anything else would jump as the page mounts.
pub(crate) fn mounts_as_is(screen: Screen, inbox: Inbox, section: Section) -> bool {
    match screen {
        Screen::Inbox => {
            inbox.view.get_untracked() == ThreadView::All
                && inbox.folder.with_untracked(Option::is_none)
                && inbox.search.with_untracked(Option::is_none)
        }
        Screen::Settings => section == Section::default(),
        Screen::Skills | Screen::Mcp | Screen::Automations => true,
    }
}

thread_local! {
    static PAINTED: Cell<bool> = const { Cell::new(false) };
    static APP_MS: Cell<u64> = const { Cell::new(0) };
}

/// Milliseconds since the page started loading.
fn page_now() -> u64 {
    window()
        .performance()
        .map_or(0.0, |performance| performance.now())
        .max(0.0)
        .round() as u64
}

/// Whether the UI's code came from the app's web process extension
/// (`ui/first_paint.js` says so), not fetched.
fn module_handed() -> bool {
    js_sys::Reflect::get(&window(), &"pizzaUiModuleHanded".into())
        .ok()
        .and_then(|handed| handed.as_bool())
        .unwrap_or(false)
}

/// Called first thing when the UI's code runs (after the page, its script
/// and the wasm module have loaded and compiled).
pub(crate) fn app_started() {
    APP_MS.set(page_now());
}

/// Called when the thread list first has its threads: once the browser has
/// painted them, the host logs the time since the page started, with when
/// the UI's code started and the list arrived.
pub(crate) fn inbox_painted() {
    when_painted(false, |params| {
        leptos::task::spawn_local(async move {
            let _ = invoke::<cmd::WindowPainted>(&params).await;
        });
    });
}

/// Once per page, when the browser has painted what the page is for (the
/// inbox's list, or the quick-ask window's input): `then` gets the figures
/// to tell the host.
pub(crate) fn when_painted(quick_ask: bool, then: impl FnOnce(WindowPaintedParams) + 'static) {
    if PAINTED.replace(true) {
        return;
    }
    let list_ms = page_now();
    request_animation_frame(move || {
        // The frame after the one that painted the list.
        request_animation_frame(move || {
            let params = WindowPaintedParams {
                page_ms: page_now(),
                quick_ask,
                app_ms: APP_MS.get(),
                list_ms,
                snapshot_ms: crate::snapshot::painted_ms().filter(|_| !quick_ask),
                module_handed: module_handed(),
            };
            then(params);
        });
    });
}
