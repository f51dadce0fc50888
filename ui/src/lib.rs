//! The Pizza Bot window: a Leptos client-side app. It talks to the host only
//! through the typed commands of `pizza-protocol` (see [`ipc::invoke`]).

// Leptos' `#[component]` emits `pub` props structs inside private modules.
#![allow(unreachable_pub)]
// Component props are owned values by design (Leptos moves them into views).
#![allow(clippy::needless_pass_by_value)]

mod app;
mod app_state;
mod clock;
mod components;
mod edits;
mod events;
mod ipc;
mod keys;
mod latest;
mod leaving;
mod links;
mod markdown;
mod notify;
mod outbox;
mod place;
mod quick_ask;
mod screen;
mod screens;
mod shell;
mod snapshot;
mod theme;

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(start)]
pub fn start() {
    place::app_started();
    if !quick_ask::is_quick_ask() {
        screens::inbox::state::send_first_page_ahead();
    }
    leptos::mount::mount_to_body(app::App);
}
