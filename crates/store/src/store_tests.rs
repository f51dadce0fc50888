//! Open, migration and file-permission tests that need crate internals.

use std::path::Path;

use pretty_assertions::assert_eq;
use sqlx::{Connection, SqliteConnection};

use crate::migrate::{MIGRATIONS, Migration};
use crate::{DB_FILE_NAME, Error, SCHEMA_VERSION, Store, StoreOptions};

async fn raw(dir: &Path) -> SqliteConnection {
    let url = format!("sqlite://{}", dir.join(DB_FILE_NAME).display());
    SqliteConnection::connect(&url).await.unwrap()
}

async fn user_version(conn: &mut SqliteConnection) -> i64 {
    sqlx::query_scalar("PRAGMA user_version")
        .fetch_one(conn)
        .await
        .unwrap()
}

async fn table_exists(conn: &mut SqliteConnection, name: &str) -> bool {
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = ?")
        .bind(name)
        .fetch_one(conn)
        .await
        .unwrap();
    n > 0
}

const BAD: Migration = Migration {
    version: SCHEMA_VERSION + 1,
    name: "bad",
    sql: "CREATE TABLE extra (x INTEGER); INSERT INTO no_such_table VALUES (1);",
};

#[tokio::test]
async fn open_sets_pragmas_fts5_and_owner_only_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(store.reader())
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(store.reader())
        .await
        .unwrap();
    assert_eq!(fk, 1);
    let fts5: i64 = sqlx::query_scalar("SELECT sqlite_compileoption_used('ENABLE_FTS5')")
        .fetch_one(store.reader())
        .await
        .unwrap();
    assert_eq!(fts5, 1);
    store.set_setting("probe", &1).await.unwrap();

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for suffix in ["", "-wal", "-shm"] {
            let path = dir.path().join(format!("{DB_FILE_NAME}{suffix}"));
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", path.display());
        }
    }
    store.close().await;
}

/// Waits until every connection of `pool` is back in it: a connection
/// dropped goes back from a task of its own.
async fn all_idle(pool: &sqlx::SqlitePool) {
    tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while pool.num_idle() < pool.size() as usize {
            tokio::task::yield_now().await;
        }
    })
    .await
    .unwrap();
}

/// The statements the pool's idle connections keep, all told.
async fn idle_statements(pool: &sqlx::SqlitePool) -> usize {
    all_idle(pool).await;
    let mut idle = Vec::new();
    while let Some(conn) = pool.try_acquire() {
        idle.push(conn);
    }
    let mut kept = 0;
    for conn in &mut idle {
        // A connection's thread counts its statements after it answered;
        // a ping behind its last query waits for that.
        conn.ping().await.unwrap();
        kept += conn.cached_statements_size();
    }
    kept
}

#[tokio::test]
async fn idle_connections_give_back_their_statements_and_still_answer() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    store.set_setting("probe", &1).await.unwrap();
    let mut conn = store.reader().acquire().await.unwrap();
    for n in 0..5_i64 {
        let sum: i64 = sqlx::query_scalar(&format!("SELECT {n} + ?"))
            .bind(1_i64)
            .fetch_one(&mut *conn)
            .await
            .unwrap();
        assert_eq!(sum, n + 1);
    }
    drop(conn);
    assert!(idle_statements(store.reader()).await >= 5);
    // The writer and the reader just used, both idle.
    all_idle(store.reader()).await;
    all_idle(store.writer()).await;
    assert!(store.release_idle_memory().await.unwrap() >= 2);
    assert_eq!(idle_statements(store.reader()).await, 0);
    assert_eq!(store.setting::<i64>("probe").await.unwrap(), 1);
    store.set_setting("probe", &2).await.unwrap();
    assert_eq!(store.setting::<i64>("probe").await.unwrap(), 2);
    store.close().await;
}

#[tokio::test]
async fn reopening_keeps_data_and_version() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    store.set_setting("k", &"v").await.unwrap();
    store.close().await;
    let store = Store::open(dir.path()).await.unwrap();
    assert_eq!(store.setting::<String>("k").await.unwrap(), "v");
    store.close().await;
    assert_eq!(
        user_version(&mut raw(dir.path()).await).await,
        SCHEMA_VERSION
    );
}

#[tokio::test]
async fn newer_schema_is_refused_with_path_and_versions() {
    let dir = tempfile::tempdir().unwrap();
    Store::open(dir.path()).await.unwrap().close().await;
    let mut conn = raw(dir.path()).await;
    sqlx::raw_sql("PRAGMA user_version = 99")
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();

    let err = Store::open(dir.path()).await.unwrap_err();
    let Error::NewerSchema {
        path,
        found,
        supported,
    } = &err
    else {
        panic!("expected NewerSchema, got {err:?}");
    };
    assert_eq!(path, &dir.path().join(DB_FILE_NAME));
    assert_eq!((*found, *supported), (99, SCHEMA_VERSION));
    let text = err.to_string();
    assert!(text.contains(DB_FILE_NAME) && text.contains("99"), "{text}");
    // Refusing changed nothing.
    assert_eq!(user_version(&mut raw(dir.path()).await).await, 99);
}

#[tokio::test]
async fn failing_migration_on_existing_db_rolls_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    store.set_setting("kept", &true).await.unwrap();
    store.close().await;

    let migrations = [MIGRATIONS, &[BAD]].concat();
    let err = Store::open_with_migrations(dir.path(), StoreOptions::default(), &migrations)
        .await
        .unwrap_err();
    match &err {
        Error::Migration { version, name, .. } => {
            assert_eq!((*version, *name), (SCHEMA_VERSION + 1, "bad"));
        }
        other => panic!("expected Migration, got {other:?}"),
    }
    assert!(err.to_string().contains("no_such_table"), "{err}");

    let mut conn = raw(dir.path()).await;
    assert_eq!(user_version(&mut conn).await, SCHEMA_VERSION);
    assert!(!table_exists(&mut conn, "extra").await);
    conn.close().await.unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    assert!(store.setting::<bool>("kept").await.unwrap());
}

#[tokio::test]
async fn failing_migration_on_fresh_db_leaves_it_empty() {
    let dir = tempfile::tempdir().unwrap();
    let migrations = [MIGRATIONS, &[BAD]].concat();
    let err = Store::open_with_migrations(dir.path(), StoreOptions::default(), &migrations)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Migration { version, .. } if version == SCHEMA_VERSION + 1),
        "{err:?}"
    );
    let mut conn = raw(dir.path()).await;
    assert_eq!(user_version(&mut conn).await, 0);
    assert!(!table_exists(&mut conn, "threads").await);
    assert!(!table_exists(&mut conn, "extra").await);
}

/// A database written before runs carried `resumable`: its offers lived in
/// the `runs.resumable` settings blob (thread id → run id).
#[tokio::test]
async fn the_old_resumable_blob_moves_into_the_run_rows() {
    let dir = tempfile::tempdir().unwrap();
    let before_column = &MIGRATIONS[..2];
    let store = Store::open_with_migrations(dir.path(), StoreOptions::default(), before_column)
        .await
        .unwrap();
    let mut conn = raw(dir.path()).await;
    for (thread, run, status) in [
        ("ta", "ra", "interrupted"),
        ("tb", "rb", "interrupted"),
        ("tc", "rc", "succeeded"),
    ] {
        sqlx::query(
            "INSERT INTO threads (id, title, user_titled, source, created_at, last_activity_at) \
             VALUES (?, '', 0, 'user', 1, 1)",
        )
        .bind(thread)
        .execute(&mut conn)
        .await
        .unwrap();
        sqlx::query(
            "INSERT INTO runs (id, thread_id, status, source, started_at) VALUES (?, ?, ?, 'user', 1)",
        )
        .bind(run)
        .bind(thread)
        .bind(status)
        .execute(&mut conn)
        .await
        .unwrap();
    }
    // `tb` was resumed or discarded already: it is not in the blob.
    sqlx::query("INSERT INTO settings (key, value, updated_at) VALUES ('runs.resumable', ?, 1)")
        .bind(r#"{"ta":"ra","tc":"rc"}"#)
        .execute(&mut conn)
        .await
        .unwrap();
    drop(conn);
    store.close().await;

    let store = Store::open(dir.path()).await.unwrap();
    assert!(store.thread_resumable("ta").await.unwrap());
    assert!(!store.thread_resumable("tb").await.unwrap());
    // Only an interrupted run can be resumed.
    assert!(!store.thread_resumable("tc").await.unwrap());
    assert_eq!(
        store
            .setting_opt::<serde_json::Value>("runs.resumable")
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn a_damaged_resumable_blob_offers_nothing_and_does_not_block_the_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_with_migrations(dir.path(), StoreOptions::default(), &MIGRATIONS[..2])
        .await
        .unwrap();
    store
        .set_setting("runs.resumable", &"not an object")
        .await
        .unwrap();
    let mut conn = raw(dir.path()).await;
    sqlx::query("UPDATE settings SET value = '{broken' WHERE key = 'runs.resumable'")
        .execute(&mut conn)
        .await
        .unwrap();
    drop(conn);
    store.close().await;
    let store = Store::open(dir.path()).await.unwrap();
    assert_eq!(
        store.threads_with_queued().await.unwrap(),
        Vec::<String>::new()
    );
}

/// A database written before the store had its own transcript type opens,
/// and its messages read as the parts they meant: same text, same calls, a
/// tool result whose one string became one text part.
#[tokio::test]
async fn messages_written_before_the_transcript_type_read_the_same() {
    use crate::{NewThread, Part, ResultPart, Role};
    let dir = tempfile::tempdir().unwrap();
    let before = Store::open_with_migrations(dir.path(), StoreOptions::default(), &MIGRATIONS[..2])
        .await
        .unwrap();
    let thread = before.create_thread(NewThread::default()).await.unwrap();
    before.close().await;
    let mut conn = raw(dir.path()).await;
    let rows = [
        (
            1,
            "user",
            r#"[{"type":"text","text":"list it"}]"#,
            "list it",
            None,
            None,
        ),
        (
            2,
            "assistant",
            r#"[{"type":"reasoning","text":"hm"},{"type":"tool_call","id":"c1","name":"ls","arguments":{"path":"/"}}]"#,
            "",
            Some(r#"["c1"]"#),
            None,
        ),
        (
            3,
            "tool",
            r#"[{"type":"tool_result","call_id":"c1","content":"/notes.md","is_error":false}]"#,
            "/notes.md",
            None,
            Some("c1"),
        ),
        (4, "assistant", "not json at all", "the answer", None, None),
    ];
    for (seq, role, content, text, calls, answers) in rows {
        sqlx::query(
            "INSERT INTO messages (thread_id, seq, id, role, content, text, tool_call_ids, \
             tool_call_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)",
        )
        .bind(&thread.id)
        .bind(seq)
        .bind(format!("m{seq}"))
        .bind(role)
        .bind(content)
        .bind(text)
        .bind(calls)
        .bind(answers)
        .execute(&mut conn)
        .await
        .unwrap();
    }
    conn.close().await.unwrap();

    let store = Store::open(dir.path()).await.unwrap();
    let page = store.messages_before(&thread.id, None, 10).await.unwrap();
    let parts: Vec<(Role, Vec<Part>)> = page
        .messages
        .into_iter()
        .map(|m| (m.role, m.content))
        .collect();
    assert_eq!(
        parts,
        vec![
            (Role::User, vec![Part::text("list it")]),
            (
                Role::Assistant,
                vec![
                    Part::Reasoning {
                        text: "hm".into(),
                        signature: None,
                        encrypted: None
                    },
                    Part::ToolCall {
                        id: "c1".into(),
                        name: "ls".into(),
                        arguments: serde_json::json!({"path": "/"})
                    }
                ]
            ),
            (
                Role::Tool,
                vec![Part::ToolResult {
                    call_id: "c1".into(),
                    content: vec![ResultPart::text("/notes.md")],
                    is_error: false
                }]
            ),
            // A damaged row still shows, as its text.
            (Role::Assistant, vec![Part::text("the answer")]),
        ]
    );
    let hits = store.search("notes", 10).await.unwrap();
    assert_eq!(hits.len(), 1);
    store.close().await;
}

#[test]
fn sqlite_versions_below_the_floor_are_refused() {
    use crate::store::sqlite_supported;
    assert!(sqlite_supported("3.35.0"));
    assert!(sqlite_supported("3.40.1"));
    assert!(sqlite_supported("3.46.0"));
    assert!(sqlite_supported("4.0.0"));
    assert!(!sqlite_supported("3.34.1"));
    assert!(!sqlite_supported("3.9.2"));
    assert!(!sqlite_supported("garbage"));
}

#[tokio::test]
async fn the_linked_sqlite_is_one_the_store_runs_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let version: String = sqlx::query_scalar("SELECT sqlite_version()")
        .fetch_one(store.reader())
        .await
        .unwrap();
    assert!(crate::store::sqlite_supported(&version), "{version}");
    let fts5: i64 = sqlx::query_scalar("SELECT sqlite_compileoption_used('ENABLE_FTS5')")
        .fetch_one(store.reader())
        .await
        .unwrap();
    assert_eq!(fts5, 1, "SQLite {version} has no FTS5");
}
