//! The app's notifier against a recording notification server on the test
//! session bus: what it sends (summary, body, actions, hints), availability
//! before and after a server appears, a click reaching the handler, and a
//! thread's newer outcome replacing its notification.
//!
//! Needs a session bus: `cargo xtask test` runs the tests under
//! `dbus-run-session` with no service directories, so no real notification
//! daemon is started behind the test's back. Without one this test fails.

// A test binary: a panic is how its helpers report a failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pizza_bot::DesktopNotifier;
use pizza_host::{Notification, NotificationKind, Notifier};
use pizza_test_support::notification_server::NotificationServer;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A safety net so a broken test fails instead of hanging; never a wait.
const STUCK: Duration = Duration::from_secs(10);

#[test]
fn notifications_reach_the_server_and_a_click_comes_back() {
    // No service yet: the notifier says so instead of failing later.
    assert!(!DesktopNotifier::new().available());
    assert!(
        DesktopNotifier::new()
            .show(Notification {
                thread_id: "t0".to_owned(),
                summary: "Run finished".to_owned(),
                body: "nobody listens".to_owned(),
                kind: NotificationKind::Finished,
                approval: None,
            })
            .is_err()
    );

    let server = NotificationServer::start().unwrap();
    let notifier = DesktopNotifier::new();
    assert!(notifier.available());
    let (clicks, clicked) = mpsc::channel();
    notifier.on_click(move |thread_id| {
        let _ = clicks.send(thread_id);
    });
    notifier
        .show(Notification {
            thread_id: "t1".to_owned(),
            summary: "Run finished".to_owned(),
            body: "Pizza & pasta\nDough at noon, <bake> at six.".to_owned(),
            kind: NotificationKind::Finished,
            approval: None,
        })
        .unwrap();
    let shown = server
        .wait_for(STUCK, |n| n.summary == "Run finished")
        .unwrap();
    assert_eq!(shown.app_name, "Pizza Bot");
    // The server renders no markup, so the text goes as it is.
    assert_eq!(shown.body, "Pizza & pasta\nDough at noon, <bake> at six.");
    assert_eq!(shown.actions, vec!["default".to_owned(), "Open".to_owned()]);
    assert_eq!(shown.replaces_id, 0);
    assert!(shown.hints.contains_key("category"), "{:?}", shown.hints);

    // Another action is not a click.
    server.invoke(shown.id, "dismiss-other").unwrap();
    // The client subscribes to clicks just after showing: a click sent
    // before that is missed, so click again until one arrives.
    let deadline = Instant::now() + STUCK;
    let thread_id = loop {
        server.click(shown.id).unwrap();
        match clicked.recv_timeout(Duration::from_millis(300)) {
            Ok(thread_id) => break thread_id,
            Err(_) if Instant::now() < deadline => {}
            Err(error) => panic!("no click came back: {error}"),
        }
    };
    assert_eq!(thread_id, "t1");

    // A newer outcome of the same thread replaces its notification.
    notifier
        .show(Notification {
            thread_id: "t1".to_owned(),
            summary: "Action required".to_owned(),
            body: "Pizza & pasta\nWrite file needs your approval.".to_owned(),
            kind: NotificationKind::ActionRequired,
            approval: None,
        })
        .unwrap();
    let replacing = server
        .wait_for(STUCK, |n| n.summary == "Action required")
        .unwrap();
    assert_eq!(replacing.replaces_id, shown.id);
    assert_eq!(replacing.id, shown.id);
}
