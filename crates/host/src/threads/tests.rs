use crate::Host;
use pizza_protocol::{
    ApiError, AppEvent, ErrorCode, ExportChooseParams, ExportFormat, ExportTarget,
    FolderCreateParams, FolderDeleteParams, FolderListParams, FolderMove, FolderUpdateParams,
    MessagePart, Role, ThreadCreateParams, ThreadExportParams, ThreadForkParams, ThreadGetParams,
    ThreadIdParams, ThreadListParams, ThreadSearchParams, ThreadUpdateParams, ThreadView,
};
use pizza_store::{NewMessage, Role as StoreRole, StepCommit};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::tests::open;

fn text(role: StoreRole, text: &str) -> NewMessage {
    NewMessage::new(role, vec![pizza_store::Part::text(text)], text)
}

/// A thread with a question, a tool call, its result and an answer.
async fn seeded(host: &Host, title: &str) -> String {
    let thread = host
        .thread_create(ThreadCreateParams {
            title: Some(title.to_owned()),
            folder_id: None,
        })
        .await
        .unwrap();
    let call = NewMessage::new(
        StoreRole::Assistant,
        vec![pizza_store::Part::ToolCall {
            id: "c1".into(),
            name: "read_file".into(),
            arguments: json!({"path": "/notes.txt"}),
        }],
        "",
    )
    .with_tool_calls(["c1"]);
    let result = NewMessage::new(
        StoreRole::Tool,
        vec![pizza_store::Part::ToolResult {
            call_id: "c1".into(),
            content: vec![pizza_store::ResultPart::text("pepperoni and basil")],
            is_error: false,
        }],
        "pepperoni and basil",
    )
    .answering("c1");
    host.store()
        .commit_step(
            &thread.id,
            StepCommit {
                messages: vec![
                    text(StoreRole::User, "What toppings are in my notes?"),
                    call,
                    result,
                    text(
                        StoreRole::Assistant,
                        "Your notes list **pepperoni** and basil.",
                    ),
                ],
                ..StepCommit::default()
            },
        )
        .await
        .unwrap();
    thread.id
}

#[tokio::test]
async fn list_get_and_counts() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let a = seeded(&host, "Toppings").await;
    let b = seeded(&host, "Crusts").await;
    host.thread_update(ThreadUpdateParams {
        thread_id: b.clone(),
        unread: Some(true),
        ..ThreadUpdateParams::default()
    })
    .await
    .unwrap();

    let all = host.thread_list(ThreadListParams::default()).await.unwrap();
    assert_eq!(
        all.threads
            .iter()
            .map(|t| t.title.as_str())
            .collect::<Vec<_>>(),
        ["Crusts", "Toppings"]
    );
    assert_eq!(
        (all.counts.all, all.counts.unread, all.counts.action),
        (2, 1, 0)
    );
    let unread = host
        .thread_list(ThreadListParams {
            view: ThreadView::Unread,
            ..ThreadListParams::default()
        })
        .await
        .unwrap();
    assert_eq!(unread.threads.len(), 1);
    assert_eq!(unread.threads[0].id, b);

    let detail = host
        .thread_get(ThreadGetParams {
            thread_id: a.clone(),
            before_seq: None,
            limit: Some(2),
        })
        .await
        .unwrap();
    assert!(detail.has_more_before);
    assert_eq!(detail.messages.len(), 2);
    assert_eq!(detail.messages[1].role, Role::Assistant);
    assert_eq!(
        detail.messages[1].parts,
        vec![MessagePart::Text {
            text: "Your notes list **pepperoni** and basil.".to_owned()
        }]
    );
    assert_eq!(
        detail.thread.preview,
        "Your notes list **pepperoni** and basil."
    );
    let earlier = host
        .thread_get(ThreadGetParams {
            thread_id: a,
            before_seq: Some(detail.messages[0].seq),
            limit: Some(10),
        })
        .await
        .unwrap();
    assert_eq!(earlier.messages.len(), 2);
    assert!(!earlier.has_more_before);
}

#[tokio::test]
async fn search_returns_highlighted_runs_with_titles() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let id = seeded(&host, "Toppings").await;
    let hits = host
        .thread_search(ThreadSearchParams {
            q: "pepperoni".to_owned(),
            limit: None,
        })
        .await
        .unwrap();
    assert!(!hits.is_empty());
    let hit = &hits[0];
    assert_eq!(hit.thread_id, id);
    assert_eq!(hit.thread_title, "Toppings");
    assert!(
        hit.snippet
            .iter()
            .any(|p| p.hit && p.text.to_lowercase().contains("pepperoni"))
    );

    for q in ["", "   ", "\"*"] {
        let err = host
            .thread_search(ThreadSearchParams {
                q: q.to_owned(),
                limit: None,
            })
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput, "{q:?}");
    }
}

#[tokio::test]
async fn folders_move_threads_and_return_them_on_delete() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let id = seeded(&host, "Toppings").await;
    let folder = host
        .folder_create(FolderCreateParams {
            name: "Recipes".to_owned(),
        })
        .await
        .unwrap();
    let dup = host
        .folder_create(FolderCreateParams {
            name: "recipes".to_owned(),
        })
        .await
        .unwrap_err();
    assert_eq!(dup.code, ErrorCode::Conflict);
    let long = host
        .folder_create(FolderCreateParams {
            name: "x".repeat(81),
        })
        .await
        .unwrap_err();
    assert_eq!(long.code, ErrorCode::InvalidInput);
    assert_eq!(
        host.folder_list(FolderListParams {}).await.unwrap().len(),
        1
    );

    let moved = host
        .thread_update(ThreadUpdateParams {
            thread_id: id.clone(),
            folder: Some(FolderMove {
                folder_id: Some(folder.id.clone()),
            }),
            ..ThreadUpdateParams::default()
        })
        .await
        .unwrap();
    assert_eq!(moved.folder_id.as_deref(), Some(folder.id.as_str()));
    let in_folder = host
        .thread_list(ThreadListParams {
            folder_id: Some(folder.id.clone()),
            ..ThreadListParams::default()
        })
        .await
        .unwrap();
    assert_eq!(in_folder.threads.len(), 1);

    let renamed = host
        .folder_update(FolderUpdateParams {
            folder_id: folder.id.clone(),
            name: Some("Pizza".to_owned()),
            sort_order: None,
        })
        .await
        .unwrap();
    assert_eq!(renamed.name, "Pizza");

    host.folder_delete(FolderDeleteParams {
        folder_id: folder.id,
    })
    .await
    .unwrap();
    let back = host
        .thread_get(ThreadGetParams {
            thread_id: id,
            ..ThreadGetParams::default()
        })
        .await
        .unwrap();
    assert_eq!(back.thread.folder_id, None);
}

#[tokio::test]
async fn fork_pin_rename_delete_and_bad_ids() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let id = seeded(&host, "Toppings").await;
    let detail = host
        .thread_get(ThreadGetParams {
            thread_id: id.clone(),
            ..ThreadGetParams::default()
        })
        .await
        .unwrap();
    let call = &detail.messages[1];
    let inside = host
        .thread_fork(ThreadForkParams {
            thread_id: id.clone(),
            message_id: call.id.clone(),
        })
        .await
        .unwrap_err();
    assert_eq!(inside.code, ErrorCode::InvalidInput);

    let answer = &detail.messages[3];
    let fork = host
        .thread_fork(ThreadForkParams {
            thread_id: id.clone(),
            message_id: answer.id.clone(),
        })
        .await
        .unwrap();
    assert_eq!(fork.parent_thread_id.as_deref(), Some(id.as_str()));
    assert_eq!(fork.title, "Toppings (fork)");
    let forked = host
        .thread_get(ThreadGetParams {
            thread_id: fork.id.clone(),
            ..ThreadGetParams::default()
        })
        .await
        .unwrap();
    assert_eq!(forked.messages.len(), 4);
    assert!(
        !host
            .thread_history(ThreadIdParams {
                thread_id: id.clone()
            })
            .await
            .unwrap()
            .is_empty()
    );

    let updated = host
        .thread_update(ThreadUpdateParams {
            thread_id: id.clone(),
            title: Some("Best toppings".to_owned()),
            pinned: Some(true),
            ..ThreadUpdateParams::default()
        })
        .await
        .unwrap();
    assert!(updated.pinned);
    assert_eq!(updated.title, "Best toppings");

    host.thread_delete(ThreadIdParams {
        thread_id: id.clone(),
    })
    .await
    .unwrap();
    for err in [
        host.thread_get(ThreadGetParams {
            thread_id: id.clone(),
            ..ThreadGetParams::default()
        })
        .await
        .unwrap_err(),
        host.thread_delete(ThreadIdParams {
            thread_id: id.clone(),
        })
        .await
        .unwrap_err(),
        host.thread_update(ThreadUpdateParams {
            thread_id: "nope".to_owned(),
            pinned: Some(true),
            ..ThreadUpdateParams::default()
        })
        .await
        .unwrap_err(),
        host.folder_delete(FolderDeleteParams {
            folder_id: "nope".to_owned(),
        })
        .await
        .unwrap_err(),
    ] {
        assert_eq!(err.code, ErrorCode::NotFound, "{err:?}");
    }
    // The fork outlives its parent.
    assert_eq!(
        host.thread_list(ThreadListParams::default())
            .await
            .unwrap()
            .counts
            .all,
        1
    );
}

/// A save dialog that answers the paths it is given, in order (then cancels).
#[derive(Default)]
pub(crate) struct ChosenFiles(
    pub(crate) std::sync::Mutex<std::collections::VecDeque<std::path::PathBuf>>,
);

impl crate::DesktopShell for ChosenFiles {
    fn open_thread(&self, _thread_id: &str) {}
    fn hide_quick_ask(&self) {}
    fn set_quick_ask_shortcut(&self, _: Option<&str>) -> Result<(), crate::ShortcutError> {
        Ok(())
    }
    fn shortcuts_unsupported(&self) -> Option<String> {
        None
    }
    fn choose_save_file(&self, dialog: crate::SaveDialog) -> Option<std::path::PathBuf> {
        assert!(!dialog.suggested_name.contains('/'), "{dialog:?}");
        self.0.lock().unwrap().pop_front()
    }
}

/// A host whose save dialog answers `paths`, one per `export_choose`.
async fn with_dialog(host: &Host, paths: &[std::path::PathBuf]) {
    host.set_desktop_shell(std::sync::Arc::new(ChosenFiles(std::sync::Mutex::new(
        paths.iter().cloned().collect(),
    ))))
    .await;
}

async fn choose(host: &Host, format: ExportFormat) -> Result<Option<ExportTarget>, ApiError> {
    host.export_choose(ExportChooseParams {
        format,
        suggested_name: Some("Toppings/and more".to_owned()),
    })
    .await
}

#[tokio::test]
async fn export_markdown_and_jsonl() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let id = seeded(&host, "Toppings").await;
    let md = root.base().join("toppings.md");
    let jsonl = root.base().join("toppings.jsonl");
    let bad = [
        std::path::PathBuf::from("relative.md"),
        root.base().to_owned(),
        root.base().join("missing/x.md"),
    ];
    let answers: Vec<_> = [md.clone(), jsonl.clone()]
        .into_iter()
        .chain(bad.iter().cloned())
        .collect();
    with_dialog(&host, &answers).await;
    let token = choose(&host, ExportFormat::Markdown)
        .await
        .unwrap()
        .unwrap()
        .token;
    let written = host
        .thread_export(ThreadExportParams {
            thread_id: id.clone(),
            format: ExportFormat::Markdown,
            token,
        })
        .await
        .unwrap();
    let text = std::fs::read_to_string(&md).unwrap();
    assert_eq!(written.bytes, text.len() as u64);
    assert!(text.starts_with("# Toppings\n"));
    assert!(text.contains("## You\n\nWhat toppings are in my notes?"));
    assert!(text.contains("**Tool call** `read_file`"));
    assert!(text.contains("Your notes list **pepperoni** and basil."));

    let token = choose(&host, ExportFormat::Jsonl)
        .await
        .unwrap()
        .unwrap()
        .token;
    host.thread_export(ThreadExportParams {
        thread_id: id.clone(),
        format: ExportFormat::Jsonl,
        token,
    })
    .await
    .unwrap();
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["role"], "user");

    for bad in bad {
        let err = choose(&host, ExportFormat::Markdown).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput, "{}", bad.display());
    }
    // The dialog cancelled: nothing chosen, nothing to export to.
    assert_eq!(choose(&host, ExportFormat::Markdown).await.unwrap(), None);
}

#[tokio::test]
async fn an_export_needs_a_fresh_choice_from_the_dialog() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let id = seeded(&host, "Toppings").await;
    let export = |token: &str| {
        host.thread_export(ThreadExportParams {
            thread_id: id.clone(),
            format: ExportFormat::Markdown,
            token: token.to_owned(),
        })
    };
    // No shell, no dialog: nothing can be chosen.
    assert!(choose(&host, ExportFormat::Markdown).await.is_err());
    // A token the page made up (or a path passed as one) is refused.
    let target = root.base().join("chosen.md");
    for forged in [
        "",
        "0123456789abcdef0123456789abcdef",
        &target.display().to_string(),
    ] {
        let refused = export(forged).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::PermissionDenied, "{forged}");
    }
    assert!(!target.exists());

    with_dialog(&host, std::slice::from_ref(&target)).await;
    let chosen = choose(&host, ExportFormat::Markdown)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(chosen.path, target.display().to_string());
    assert_ne!(chosen.token, chosen.path);
    export(&chosen.token).await.unwrap();
    assert!(target.exists());
    // Once only.
    std::fs::remove_file(&target).unwrap();
    let again = export(&chosen.token).await.unwrap_err();
    assert_eq!(again.code, ErrorCode::PermissionDenied);
    assert!(!target.exists());
}

#[tokio::test]
async fn changes_are_announced() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let mut events = host.subscribe();
    let thread = host
        .thread_create(ThreadCreateParams::default())
        .await
        .unwrap();
    assert_eq!(
        events.recv().await.unwrap(),
        AppEvent::ThreadsChanged {
            thread_id: Some(thread.id)
        }
    );
    host.folder_create(FolderCreateParams {
        name: "Work".to_owned(),
    })
    .await
    .unwrap();
    assert_eq!(
        events.recv().await.unwrap(),
        AppEvent::ThreadsChanged { thread_id: None }
    );
}
