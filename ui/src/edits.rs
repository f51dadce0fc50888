//! The page's undo history, forgotten when what it holds is gone.
//!
//! WebKitGTK keeps each typing in a text field as a step of the page's undo
//! history, in the web process (the edit and the nodes it touched) and in
//! the app's (a proxy for each), until the page navigates. This page never
//! navigates, so it held every message ever typed in a composer: ~13 KB of
//! the web process's memory per message of 25 characters, and with it the
//! whole text area of each composer since removed (measured with WebDriver
//! typing into a bare text area and into the composer: the web process's
//! anonymous memory grew 5.4 MiB over 400 typings, and did not grow with
//! the history forgotten after each one).
//!
//! No DOM call clears that history, but a frame leaving the page does
//! (WebKit's `FrameLoader::closeURL` clears the undo history of the page
//! the frame belonged to): forgetting makes an empty, hidden frame and
//! removes it at once. It is done when the text it would undo is gone: a
//! message sent (the composer emptied), a composer removed (another thread
//! opened, or another screen shown), quick-ask's question asked.

use leptos::prelude::document;

/// Clears the page's undo history (every text field's).
pub(crate) fn forget() {
    let document = document();
    let (Ok(frame), Some(body)) = (document.create_element("iframe"), document.body()) else {
        return;
    };
    // An empty frame loads nothing (`about:blank`) and is never drawn.
    if frame.set_attribute("hidden", "").is_err() || body.append_child(&frame).is_err() {
        return;
    }
    frame.remove();
}
