use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use super::*;

/// Long enough for any machine to deliver an event; only a failing test waits it out.
const DEADLINE: Duration = Duration::from_secs(10);
/// How long to look for a callback that must not come.
const QUIET: Duration = Duration::from_millis(600);

fn watch(path: &Path) -> (ConfigWatcher, mpsc::Receiver<()>) {
    let (tx, rx) = mpsc::channel();
    let watcher = ConfigWatcher::start(path, move || {
        let _ = tx.send(());
    })
    .unwrap();
    (watcher, rx)
}

fn fired(rx: &mpsc::Receiver<()>) {
    rx.recv_timeout(DEADLINE)
        .expect("on_change was not called in time");
}

/// Waits for the burst to settle, then drains whatever it produced.
fn settle(rx: &mpsc::Receiver<()>) {
    while rx.recv_timeout(QUIET).is_ok() {}
}

#[test]
fn fires_on_create_write_rename_over_and_remove() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".mcp.json");
    let (_watcher, rx) = watch(&path);

    std::fs::write(&path, "{}\n").unwrap();
    fired(&rx);
    settle(&rx);

    std::fs::write(&path, "{\"mcpServers\": {}}\n").unwrap();
    fired(&rx);
    settle(&rx);

    // An editor's save: a new file beside it, renamed over it.
    let temp = dir.path().join(".mcp.json.swp");
    std::fs::write(&temp, "{\"mcpServers\": {\"a\": {\"command\": \"a\"}}}\n").unwrap();
    std::fs::rename(&temp, &path).unwrap();
    fired(&rx);
    settle(&rx);

    std::fs::remove_file(&path).unwrap();
    fired(&rx);
}

#[test]
fn a_burst_is_one_call_and_other_files_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".mcp.json");
    let (_watcher, rx) = watch(&path);

    std::fs::write(dir.path().join("other.json"), "{}").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/.mcp.json"), "{}").unwrap();
    assert!(rx.recv_timeout(QUIET).is_err(), "fired for another file");

    for i in 0..5 {
        std::fs::write(&path, format!("{{\"n\": {i}}}")).unwrap();
    }
    fired(&rx);
    assert!(rx.recv_timeout(QUIET).is_err(), "one burst, one call");
}

#[test]
fn dropping_stops_watching_and_a_missing_folder_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data/root/.mcp.json");
    let (watcher, rx) = watch(&path);
    assert!(path.parent().unwrap().is_dir());
    std::fs::write(&path, "{}").unwrap();
    fired(&rx);
    settle(&rx);
    drop(watcher);
    std::fs::write(&path, "{\"x\": 1}").unwrap();
    // The callback (and its sender) go away with the watcher's threads.
    assert!(
        !matches!(rx.recv_timeout(QUIET), Ok(())),
        "fired after drop"
    );
}
