//! The shortcut and quick-ask commands against a recording shell.

use super::*;
use crate::runs::tests::open;
use pizza_llm::FakeModel;
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;

/// Records calls; `Ctrl+Alt+T` is taken and anything without `+` is invalid,
/// as the window system would answer.
#[derive(Default)]
struct RecordingShell {
    calls: Mutex<Vec<String>>,
    unsupported: Option<String>,
    typed_ahead: Mutex<Option<TypedAhead>>,
}

impl RecordingShell {
    fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

impl DesktopShell for RecordingShell {
    fn open_thread(&self, thread_id: &str) {
        self.calls.lock().unwrap().push(format!("open {thread_id}"));
    }

    fn hide_quick_ask(&self) {
        self.calls.lock().unwrap().push("hide".to_owned());
    }

    fn take_typed_ahead(&self) -> TypedAhead {
        self.typed_ahead.lock().unwrap().take().unwrap_or_default()
    }

    fn set_quick_ask_shortcut(&self, accelerator: Option<&str>) -> Result<(), ShortcutError> {
        match accelerator {
            Some("Ctrl+Alt+T") => Err(ShortcutError::Taken("Ctrl+Alt+T".to_owned())),
            Some(a) if !a.contains('+') => Err(ShortcutError::Invalid(a.to_owned())),
            other => {
                self.calls
                    .lock()
                    .unwrap()
                    .push(format!("shortcut {}", other.unwrap_or("off")));
                Ok(())
            }
        }
    }

    fn shortcuts_unsupported(&self) -> Option<String> {
        self.unsupported.clone()
    }

    fn open_link(&self, url: &str) -> Result<(), String> {
        self.calls.lock().unwrap().push(format!("link {url}"));
        Ok(())
    }
}

#[tokio::test]
async fn the_default_shortcut_is_registered_and_a_refused_one_changes_nothing() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::new()).await;
    let shell = Arc::new(RecordingShell::default());
    let status = host.set_desktop_shell(shell.clone()).await;
    assert_eq!(
        status,
        ShortcutStatus {
            accelerator: Some(DEFAULT_QUICK_ASK_SHORTCUT.to_owned()),
            active: true,
            problem: None,
            supported: true,
        }
    );

    let taken = host
        .shortcut_set(ShortcutSetParams {
            accelerator: Some("Ctrl+Alt+T".to_owned()),
        })
        .await
        .unwrap_err();
    assert_eq!(taken.code, ErrorCode::ResourceInUse);
    assert!(taken.message.contains("already used"), "{}", taken.message);
    let invalid = host
        .shortcut_set(ShortcutSetParams {
            accelerator: Some("Banana".to_owned()),
        })
        .await
        .unwrap_err();
    assert_eq!(invalid.code, ErrorCode::InvalidInput);
    assert_eq!(
        host.shortcut_get(ShortcutGetParams {}).await.unwrap(),
        status
    );

    let changed = host
        .shortcut_set(ShortcutSetParams {
            accelerator: Some(" Ctrl+Alt+K ".to_owned()),
        })
        .await
        .unwrap();
    assert_eq!(changed.accelerator.as_deref(), Some("Ctrl+Alt+K"));
    assert!(changed.active);
    host.close().await;

    // The choice survives a restart and is registered again.
    let host = open(&root, &FakeModel::new()).await;
    let shell = Arc::new(RecordingShell::default());
    let status = host.set_desktop_shell(shell.clone()).await;
    assert_eq!(status.accelerator.as_deref(), Some("Ctrl+Alt+K"));
    assert_eq!(shell.calls(), ["shortcut Ctrl+Alt+K"]);
}

#[tokio::test]
async fn turning_the_shortcut_off_is_kept_and_unsupported_systems_say_so() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::new()).await;
    let shell = Arc::new(RecordingShell::default());
    host.set_desktop_shell(shell.clone()).await;
    let off = host
        .shortcut_set(ShortcutSetParams { accelerator: None })
        .await
        .unwrap();
    assert_eq!((off.accelerator, off.active), (None, false));
    host.close().await;

    let host = open(&root, &FakeModel::new()).await;
    let shell = Arc::new(RecordingShell {
        unsupported: Some("Global shortcuts need X11.".to_owned()),
        ..RecordingShell::default()
    });
    let status = host.set_desktop_shell(shell.clone()).await;
    assert!(!status.supported && !status.active);
    assert_eq!(
        status.problem.as_deref(),
        Some("Global shortcuts need X11.")
    );
    let refused = host
        .shortcut_set(ShortcutSetParams {
            accelerator: Some("Ctrl+Alt+K".to_owned()),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::DependencyDisabled);
    assert!(shell.calls().is_empty());
}

#[tokio::test]
async fn quick_ask_commands_reach_the_shell_and_check_the_thread() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::new()).await;
    let without = host
        .quick_ask_hide(QuickAskHideParams {})
        .await
        .unwrap_err();
    assert_eq!(without.code, ErrorCode::General);
    let typed = TypedAhead {
        text: "Plan the bake".to_owned(),
        send: true,
    };
    let shell = Arc::new(RecordingShell {
        typed_ahead: Mutex::new(Some(typed.clone())),
        ..RecordingShell::default()
    });
    host.set_desktop_shell(shell.clone()).await;
    let thread = host
        .thread_create(pizza_protocol::ThreadCreateParams::default())
        .await
        .unwrap();
    // What was typed ahead is the page's once.
    for expected in [typed, TypedAhead::default()] {
        let taken = host
            .quick_ask_typed_ahead(QuickAskTypedAheadParams {})
            .await
            .unwrap();
        assert_eq!(taken, expected);
    }
    host.quick_ask_hide(QuickAskHideParams {}).await.unwrap();
    host.quick_ask_open_thread(QuickAskOpenThreadParams {
        thread_id: thread.id.clone(),
    })
    .await
    .unwrap();
    let missing = host
        .quick_ask_open_thread(QuickAskOpenThreadParams {
            thread_id: "nope".to_owned(),
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
    assert_eq!(
        shell.calls(),
        [
            format!("shortcut {DEFAULT_QUICK_ASK_SHORTCUT}"),
            "hide".to_owned(),
            format!("open {}", thread.id)
        ]
    );
}

#[tokio::test]
async fn only_web_and_mail_links_reach_the_shell() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::new()).await;
    let shell = Arc::new(RecordingShell::default());
    host.set_desktop_shell(shell.clone()).await;
    let link = |url: &str| {
        host.link_open(LinkOpenParams {
            url: url.to_owned(),
        })
    };
    for refused in [
        "file:///etc/passwd",
        "javascript:alert(1)",
        "tauri://localhost/",
    ] {
        let error = link(refused).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidInput, "{refused}");
    }
    link("https://example.com/dough").await.unwrap();
    link("mailto:pizza@example.com").await.unwrap();
    assert_eq!(
        shell.calls(),
        [
            format!("shortcut {DEFAULT_QUICK_ASK_SHORTCUT}"),
            "link https://example.com/dough".to_owned(),
            "link mailto:pizza@example.com".to_owned(),
        ]
    );
}
