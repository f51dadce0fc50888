use std::sync::mpsc;
use std::time::Duration;

use pizza_extensions::{UserSkillsWatcher, save_user_skill};

use super::support::skill_md;

#[test]
fn saving_a_skill_in_the_watched_folder_calls_back() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("skills");
    let (tx, rx) = mpsc::channel();
    let _watcher = UserSkillsWatcher::start(&user, move || {
        let _ = tx.send(());
    })
    .unwrap();
    save_user_skill(&user, "mine", &skill_md("mine", ""), vec![]).unwrap();
    // Waits for the event itself; the bound only keeps a broken watcher from hanging the suite.
    rx.recv_timeout(Duration::from_secs(10)).unwrap();
}
