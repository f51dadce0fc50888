use std::path::Path;
use std::sync::Arc;

use pizza_store::{
    Clock, CommittedStep, Error, FileChange, ManualClock, NewMessage, NewThread, Part, ResultPart,
    Role, StepCommit, Store, StoreOptions, Thread,
};
use serde_json::json;
use sqlx::{Connection, SqliteConnection};
use tempfile::TempDir;

pub(crate) const T0: i64 = 1_700_000_000_000;

pub(crate) struct TestStore {
    pub(crate) dir: TempDir,
    pub(crate) store: Store,
    pub(crate) clock: Arc<ManualClock>,
}

impl TestStore {
    /// Commits a step that must succeed.
    pub(crate) async fn commit(&self, thread_id: &str, step: StepCommit) -> CommittedStep {
        self.store.commit_step(thread_id, step).await.unwrap()
    }
}

/// Checks that `err` says the `what` asked for does not exist.
pub(crate) fn assert_not_found(err: &Error, what: &str) {
    assert!(
        matches!(err, Error::NotFound { what: found, .. } if *found == what),
        "{err:?}"
    );
}

pub(crate) async fn open() -> TestStore {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(T0));
    let store = open_at(dir.path(), clock.clone()).await;
    TestStore { dir, store, clock }
}

pub(crate) async fn open_at(dir: &Path, clock: Arc<dyn Clock>) -> Store {
    Store::open_with(
        dir,
        StoreOptions {
            clock,
            ..StoreOptions::default()
        },
    )
    .await
    .unwrap()
}

pub(crate) fn content(text: &str) -> Vec<Part> {
    vec![Part::text(text)]
}

pub(crate) fn user(text: &str) -> NewMessage {
    NewMessage::new(Role::User, content(text), text)
}

pub(crate) fn assistant(text: &str) -> NewMessage {
    NewMessage::new(Role::Assistant, content(text), text)
}

pub(crate) fn calls(ids: &[&str]) -> NewMessage {
    let parts = ids
        .iter()
        .map(|id| Part::ToolCall {
            id: (*id).to_owned(),
            name: "ls".to_owned(),
            arguments: json!({}),
        })
        .collect();
    NewMessage::new(Role::Assistant, parts, "").with_tool_calls(ids.iter().copied())
}

pub(crate) fn tool(call: &str, text: &str) -> NewMessage {
    let parts = vec![Part::ToolResult {
        call_id: call.to_owned(),
        content: vec![ResultPart::text(text)],
        is_error: false,
    }];
    NewMessage::new(Role::Tool, parts, text).answering(call)
}

pub(crate) fn step(messages: Vec<NewMessage>) -> StepCommit {
    StepCommit {
        messages,
        ..StepCommit::default()
    }
}

pub(crate) fn step_with_files(messages: Vec<NewMessage>, files: Vec<FileChange>) -> StepCommit {
    StepCommit {
        messages,
        files,
        ..StepCommit::default()
    }
}

pub(crate) async fn new_thread(store: &Store) -> Thread {
    store.create_thread(NewThread::default()).await.unwrap()
}

/// Row counts of every table, to prove a refused call wrote nothing.
pub(crate) async fn row_counts(dir: &Path) -> Vec<(String, i64)> {
    let url = format!("sqlite://{}", dir.join(pizza_store::DB_FILE_NAME).display());
    let mut conn = SqliteConnection::connect(&url).await.unwrap();
    let mut out = Vec::new();
    for table in [
        "folders",
        "threads",
        "messages",
        "messages_fts",
        "checkpoints",
        "thread_files",
        "runs",
        "activity",
        "settings",
        "triggers",
        "trigger_occurrences",
        "queued_messages",
        "attachments",
        "thread_attachments",
    ] {
        let n: i64 = sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {table}"))
            .fetch_one(&mut conn)
            .await
            .unwrap();
        out.push((table.to_owned(), n));
    }
    let threads: Vec<(String, i64, String)> =
        sqlx::query_as("SELECT id, last_activity_at, preview FROM threads ORDER BY id")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    for (id, at, preview) in threads {
        out.push((format!("{id}:{preview}"), at));
    }
    conn.close().await.unwrap();
    out
}

pub(crate) fn cron_trigger(name: &str) -> pizza_store::NewTrigger {
    pizza_store::NewTrigger {
        name: name.to_owned(),
        kind: pizza_store::TriggerKind::Cron,
        prompt: "Summarise my inbox".to_owned(),
        model: None,
        enabled: true,
        cron: Some("0 9 * * 1-5".to_owned()),
        timezone: Some("Europe/Paris".to_owned()),
        webhook_secret: None,
    }
}

pub(crate) fn webhook_trigger(name: &str) -> pizza_store::NewTrigger {
    pizza_store::NewTrigger {
        name: name.to_owned(),
        kind: pizza_store::TriggerKind::Webhook,
        prompt: String::new(),
        model: Some("claude-sonnet".to_owned()),
        enabled: true,
        cron: None,
        timezone: None,
        webhook_secret: Some(pizza_store::SecretHash {
            hash: vec![7; 32],
            salt: vec![9; 16],
        }),
    }
}
