//! Links inside rendered messages never navigate the app's own window: a
//! click is stopped here, and an `http`, `https` or `mailto` link goes to the
//! host, which opens it in the system's browser or mail app. The host checks
//! the link again and the app refuses any navigation away from its pages, so
//! this is the friendly path, not the only guard.

use crate::ipc::invoke;
use pizza_protocol::{LinkOpenParams, cmd, is_external_link};
use wasm_bindgen::JsCast;

/// Handles a click inside rendered Markdown when it is on a link; returns
/// whether it was.
pub(crate) fn follow_outside(ev: &web_sys::MouseEvent) -> bool {
    let Some(link) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|target| target.closest("a[href]").ok().flatten())
    else {
        return false;
    };
    ev.prevent_default();
    let Some(url) = link.get_attribute("href") else {
        return true;
    };
    if !is_external_link(&url) {
        return true;
    }
    leptos::task::spawn_local(async move {
        if let Err(error) = invoke::<cmd::LinkOpen>(&LinkOpenParams { url }).await {
            leptos::logging::warn!("{}", error.message);
        }
    });
    true
}
