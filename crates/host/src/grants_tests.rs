//! Grant commands and a run that uses a granted folder, against a real temp
//! store and real folders; the model is scripted.

use super::*;
use futures::FutureExt;
use futures::future::BoxFuture;
use pizza_llm::{FakeModel, FakeTurn, ModelClient, ModelDescriptor, ModelRequest};
use pizza_protocol::{
    RunEvent, RunEventFrame, RunStartParams, RunStatus, SettingsPatch, ThreadSubscribeParams,
};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::{Notify, mpsc};

/// A safety net so a broken test fails instead of hanging; never a wait.
const STUCK: Duration = Duration::from_secs(10);

/// A scripted model whose second call waits until the test says go, so the
/// test can change grants between two steps of one run.
#[derive(Debug)]
struct GatedModel {
    model: FakeModel,
    calls: AtomicUsize,
    reached: Notify,
    go: Notify,
}

impl ModelClient for GatedModel {
    fn stream(
        &self,
        request: ModelRequest,
        cancel: pizza_llm::CancellationToken,
    ) -> BoxFuture<'_, pizza_llm::Result<pizza_llm::EventStream>> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        async move {
            if call == 1 {
                self.reached.notify_one();
                self.go.notified().await;
            }
            self.model.stream(request, cancel).await
        }
        .boxed()
    }
}

impl pizza_providers::Provider for GatedModel {
    fn provider_id(&self) -> &str {
        "fake"
    }

    fn list_models(&self) -> BoxFuture<'_, pizza_llm::Result<Vec<ModelDescriptor>>> {
        async { Ok(vec![ModelDescriptor::bare("m")]) }.boxed()
    }
}

use crate::tests::open;

/// A real folder beside (not inside) the data root.
fn folder(root: &TempDataRoot, rel: &str) -> PathBuf {
    let dir = root.base().join(rel);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::canonicalize(dir).unwrap()
}

fn add(path: &Path, access: Option<GrantAccess>, id: Option<&str>) -> GrantAddParams {
    GrantAddParams {
        path: path.display().to_string(),
        access,
        id: id.map(str::to_owned),
        acknowledge_data_root: false,
    }
}

fn update(id: &str, access: GrantAccess) -> GrantUpdateParams {
    GrantUpdateParams {
        id: id.to_owned(),
        access,
        acknowledge_data_root: false,
    }
}

async fn list(host: &Host) -> Vec<(String, GrantAccess)> {
    host.grant_list(GrantListParams {})
        .await
        .unwrap()
        .grants
        .into_iter()
        .map(|g| (g.id, g.access))
        .collect()
}

#[tokio::test]
async fn add_update_remove_with_suggested_ids_and_canonical_paths() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let notes = folder(&root, "My Notes");
    // A path with a trailing `.` segment is stored canonical.
    let granted = host
        .grant_add(add(&notes.join("."), None, None))
        .await
        .unwrap();
    assert_eq!(granted.path, notes.display().to_string());
    assert_eq!(
        granted.access,
        GrantAccess::ReadOnly,
        "read-only by default"
    );
    assert_eq!(granted.id, "my-notes");

    let other = folder(&root, "elsewhere/My Notes");
    let second = host
        .grant_add(add(&other, Some(GrantAccess::ReadWrite), None))
        .await
        .unwrap();
    assert_ne!(second.id, "my-notes", "a suggested id is unique");
    let third = host
        .grant_add(add(&folder(&root, "code"), None, Some("src")))
        .await
        .unwrap();
    assert_eq!(third.id, "src");

    let changed = host
        .grant_update(update("my-notes", GrantAccess::ReadWrite))
        .await
        .unwrap();
    assert_eq!(changed.access, GrantAccess::ReadWrite);
    host.grant_remove(GrantRemoveParams {
        id: second.id.clone(),
    })
    .await
    .unwrap();
    assert_eq!(
        list(&host).await,
        vec![
            ("my-notes".to_owned(), GrantAccess::ReadWrite),
            ("src".to_owned(), GrantAccess::ReadOnly)
        ]
    );
    let err = host
        .grant_remove(GrantRemoveParams { id: second.id })
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);

    host.close().await;
    let host = open(&root).await;
    assert_eq!(list(&host).await.len(), 2, "grants survive a restart");
}

#[tokio::test]
async fn bad_input_and_overlaps_are_refused_and_change_nothing() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let outer = folder(&root, "work");
    let inner = folder(&root, "work/project");
    host.grant_add(add(&outer, None, Some("work")))
        .await
        .unwrap();
    let before = host.grant_list(GrantListParams {}).await.unwrap();

    let file = root.base().join("a-file.txt");
    std::fs::write(&file, "x").unwrap();
    for (params, code) in [
        (add(Path::new(""), None, None), ErrorCode::InvalidInput),
        (
            add(Path::new("relative/dir"), None, None),
            ErrorCode::InvalidInput,
        ),
        (
            add(&root.base().join("missing"), None, None),
            ErrorCode::InvalidInput,
        ),
        (add(&file, None, None), ErrorCode::InvalidInput),
        (add(&inner, None, Some("Bad Id")), ErrorCode::InvalidInput),
        (
            add(&inner, None, Some(&"x".repeat(49))),
            ErrorCode::InvalidInput,
        ),
        // The same folder again, and the same id for another folder.
        (
            add(&outer, Some(GrantAccess::ReadWrite), None),
            ErrorCode::Conflict,
        ),
        (
            add(&inner, Some(GrantAccess::ReadWrite), Some("work")),
            ErrorCode::Conflict,
        ),
        // Same access inside a granted folder is redundant.
        (add(&inner, None, None), ErrorCode::Conflict),
    ] {
        let err = host.grant_add(params.clone()).await.unwrap_err();
        assert_eq!(err.code, code, "{params:?}: {err:?}");
        assert_eq!(err.reason, None);
        assert!(err.message.ends_with('.'), "a sentence: {}", err.message);
    }
    assert_eq!(host.grant_list(GrantListParams {}).await.unwrap(), before);

    // Additive: a writable folder inside a read-only one is fine…
    host.grant_add(add(&inner, Some(GrantAccess::ReadWrite), Some("project")))
        .await
        .unwrap();
    // …but a writable outer folder would make the inner one redundant.
    let err = host
        .grant_update(update("work", GrantAccess::ReadWrite))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    // And a read-only folder inside a writable one would mislead.
    let err = host
        .grant_update(update("project", GrantAccess::ReadOnly))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    let err = host
        .grant_update(update("nope", GrantAccess::ReadOnly))
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(
        list(&host).await,
        vec![
            ("project".to_owned(), GrantAccess::ReadWrite),
            ("work".to_owned(), GrantAccess::ReadOnly)
        ]
    );
}

#[tokio::test]
async fn the_data_root_needs_an_acknowledgement() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let data = std::fs::canonicalize(root.path()).unwrap();
    // The data root's parent contains it; a folder inside it is inside it.
    for path in [
        root.base().to_path_buf(),
        data.join("memories"),
        data.clone(),
    ] {
        std::fs::create_dir_all(&path).unwrap();
        let err = host.grant_add(add(&path, None, None)).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict, "{path:?}");
        assert_eq!(err.reason, Some(ErrorReason::OverlapsDataRoot), "{path:?}");
    }
    assert_eq!(list(&host).await, Vec::new());

    let mut params = add(&data, None, Some("app-data"));
    params.acknowledge_data_root = true;
    host.grant_add(params).await.unwrap();
    // Making it writable asks again.
    let err = host
        .grant_update(update("app-data", GrantAccess::ReadWrite))
        .await
        .unwrap_err();
    assert_eq!(err.reason, Some(ErrorReason::OverlapsDataRoot));
    assert_eq!(
        list(&host).await,
        vec![("app-data".to_owned(), GrantAccess::ReadOnly)]
    );
    let mut params = update("app-data", GrantAccess::ReadWrite);
    params.acknowledge_data_root = true;
    host.grant_update(params).await.unwrap();
    assert_eq!(
        list(&host).await,
        vec![("app-data".to_owned(), GrantAccess::ReadWrite)]
    );
}

async fn next(rx: &mut mpsc::Receiver<RunEventFrame>) -> RunEvent {
    tokio::time::timeout(STUCK, rx.recv())
        .await
        .expect("no frame in time")
        .expect("subscription ended")
        .event
}

/// `(result, is_error)` of each finished tool call, until the run finishes.
async fn tool_results(
    rx: &mut mpsc::Receiver<RunEventFrame>,
    until_calls: usize,
) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    while out.len() < until_calls {
        match next(rx).await {
            RunEvent::ToolFinished {
                result, is_error, ..
            } => out.push((result, is_error)),
            RunEvent::RunFinished { status, error } => {
                panic!("run finished early: {status:?} {error:?}")
            }
            _ => {}
        }
    }
    out
}

#[tokio::test]
async fn a_run_reads_a_granted_folder_until_the_grant_is_removed() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let notes = folder(&root, "notes");
    std::fs::write(notes.join("notes.txt"), "buy flour").unwrap();
    host.grant_add(add(&notes, None, Some("notes")))
        .await
        .unwrap();

    let read = json!({ "file_path": "/local/notes/notes.txt" });
    let model = FakeModel::with_turns([
        FakeTurn::tool_call("c1", "read_file", read.clone()),
        FakeTurn::tool_call("c2", "read_file", read),
        FakeTurn::text("Done."),
    ]);
    let gated = Arc::new(GatedModel {
        model: model.clone(),
        calls: AtomicUsize::new(0),
        reached: Notify::new(),
        go: Notify::new(),
    });
    host.model_catalog().await.register(gated.clone());

    let started = host
        .run_start(RunStartParams {
            thread_id: None,
            text: "read my notes".to_owned(),
            model: Some("fake:m".to_owned()),
            attachments: Vec::new(),
        })
        .await
        .unwrap();
    let (_, mut rx) = host
        .thread_subscribe(ThreadSubscribeParams {
            thread_id: started.thread_id.clone(),
            since: None,
        })
        .await
        .unwrap();
    let first = tool_results(&mut rx, 1).await;
    assert!(!first[0].1, "{first:?}");
    assert!(first[0].0.contains("buy flour"), "{first:?}");

    // The run is between two steps: its second model call waits here.
    tokio::time::timeout(STUCK, gated.reached.notified())
        .await
        .unwrap();
    host.grant_remove(GrantRemoveParams { id: "notes".into() })
        .await
        .unwrap();
    gated.go.notify_one();

    let second = tool_results(&mut rx, 1).await;
    assert!(second[0].1, "refused after removal: {second:?}");
    assert!(!second[0].0.contains("buy flour"), "{second:?}");
    loop {
        if let RunEvent::RunFinished { status, .. } = next(&mut rx).await {
            assert_eq!(status, RunStatus::Succeeded);
            break;
        }
    }

    // The grants line is in each call's prompt while the grant exists, and
    // never stored; memory is off, so no memory addendum.
    let systems: Vec<String> = model
        .requests()
        .into_iter()
        .map(|r| r.system.unwrap_or_default())
        .collect();
    assert_eq!(systems.len(), 3);
    assert!(systems[0].contains("/local/notes/"), "{}", systems[0]);
    assert!(!systems[2].contains("/local/notes/"), "{}", systems[2]);
    assert!(
        systems
            .iter()
            .all(|s| !s.contains(pizza_tools::MEMORY_PROMPT))
    );
    let stored = host.store().state(&started.thread_id, None).await.unwrap();
    assert!(
        stored
            .messages
            .iter()
            .all(|m| !m.text.contains("Granted folders"))
    );
}

#[tokio::test]
async fn the_memory_prompt_and_folder_only_while_memory_is_on() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let model = FakeModel::with_turns([
        FakeTurn::text("Off."),
        FakeTurn::text("Memory check"),
        FakeTurn::tool_call(
            "c1",
            "write_file",
            json!({ "file_path": "/memories/tea.md", "content": "Likes tea." }),
        ),
        FakeTurn::text("Remembered."),
    ]);
    let gated = Arc::new(GatedModel {
        model: model.clone(),
        // Never gate: this test changes the setting between runs.
        calls: AtomicUsize::new(2),
        reached: Notify::new(),
        go: Notify::new(),
    });
    host.model_catalog().await.register(gated);
    let mut events = host.subscribe();
    let run = |thread_id: Option<String>| RunStartParams {
        thread_id,
        text: "hello".to_owned(),
        model: Some("fake:m".to_owned()),
        attachments: Vec::new(),
    };
    let subscribe = |thread_id: &str| {
        host.thread_subscribe(ThreadSubscribeParams {
            thread_id: thread_id.to_owned(),
            since: None,
        })
    };
    let first = host.run_start(run(None)).await.unwrap();
    let thread = first.thread_id.clone();
    let (_, mut rx) = subscribe(&thread).await.unwrap();
    while !matches!(next(&mut rx).await, RunEvent::RunFinished { .. }) {}
    // Run-end maintenance (the title call) is done before the next run.
    loop {
        let event = tokio::time::timeout(STUCK, events.recv())
            .await
            .unwrap()
            .unwrap();
        if matches!(&event, pizza_protocol::AppEvent::Activity { run_id: Some(r), .. } if *r == first.run_id)
        {
            break;
        }
    }

    host.settings_update(SettingsPatch {
        memories_enabled: Some(true),
        ..SettingsPatch::default()
    })
    .await
    .unwrap();
    host.run_start(run(Some(thread.clone()))).await.unwrap();
    let interrupt = loop {
        match next(&mut rx).await {
            RunEvent::Interrupt { interrupt } => break interrupt,
            RunEvent::RunFinished { status, error } => panic!("{status:?} {error:?}"),
            _ => {}
        }
    };
    // The write waits for approval; the run stops there.
    while !matches!(
        next(&mut rx).await,
        RunEvent::RunFinished {
            status: RunStatus::Interrupted,
            ..
        }
    ) {}
    host.run_respond(pizza_protocol::RunRespondParams {
        thread_id: thread.clone(),
        interrupt_id: interrupt.interrupt_id,
        decisions: [("c1".to_owned(), pizza_protocol::Decision::APPROVE)].into(),
    })
    .await
    .unwrap();
    loop {
        match next(&mut rx).await {
            RunEvent::RunFinished {
                status: RunStatus::Succeeded,
                ..
            } => break,
            RunEvent::RunFinished { status, error } => panic!("{status:?} {error:?}"),
            _ => {}
        }
    }
    assert_eq!(
        std::fs::read_to_string(root.path().join("memories/tea.md")).unwrap(),
        "Likes tea."
    );

    let systems: Vec<String> = model
        .requests()
        .into_iter()
        .map(|r| r.system.unwrap_or_default())
        .collect();
    assert!(!systems[0].contains(pizza_tools::MEMORY_PROMPT));
    assert!(systems[2].contains(pizza_tools::MEMORY_PROMPT));
    assert!(systems[3].contains(pizza_tools::MEMORY_PROMPT));
}
