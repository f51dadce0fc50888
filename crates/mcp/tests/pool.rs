//! The pool against a real child process: the fast, misbehaving test
//! server. Every wait is on the pool's change counter, bounded.

use std::collections::BTreeMap;
use std::time::Duration;

use pizza_mcp::{CallPart, LiveServer, McpError, McpPool, ServerSnapshot, ServerTransport};
use pizza_protocol::McpStatus;
use pizza_test_support::mcp::test_server_bin;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(20);
const CALL: Duration = Duration::from_secs(10);

fn server(id: &str, args: &[&str]) -> LiveServer {
    LiveServer {
        id: id.to_owned(),
        transport: ServerTransport::Stdio {
            command: test_server_bin().display().to_string(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: BTreeMap::new(),
            cwd: None,
        },
        enabled: true,
        problem: None,
    }
}

fn pool() -> McpPool {
    McpPool::new(|_, _| {})
}

async fn connected(pool: &McpPool, id: &str) -> ServerSnapshot {
    match pool.wait_for(id, WAIT, |s| s.status.is_connected()).await {
        Some(snapshot) => snapshot,
        None => panic!(
            "{id} did not connect: {:?}",
            pool.server(id).map(|s| s.status)
        ),
    }
}

async fn errored(pool: &McpPool, id: &str) -> String {
    let snapshot = pool
        .wait_for(id, WAIT, |s| matches!(s.status, McpStatus::Error { .. }))
        .await
        .unwrap_or_else(|| panic!("{id} did not fail: {:?}", pool.server(id).map(|s| s.status)));
    match snapshot.status {
        McpStatus::Error { message } => message,
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn tools_are_listed_and_called_with_every_kind_of_result() {
    let pool = pool();
    pool.apply(vec![server(
        "fast",
        &["--stderr-lines", "3", "--name", "fast"],
    )]);
    let snapshot = connected(&pool, "fast").await;
    let names: Vec<&str> = snapshot.tools.iter().map(|t| t.name.as_str()).collect();
    for tool in ["echo", "add", "slow", "image", "flip", "fail", "structured"] {
        assert!(names.contains(&tool), "{tool} missing from {names:?}");
    }
    assert!(
        snapshot
            .tools
            .iter()
            .all(|t| t.qualified_name.starts_with("fast__"))
    );
    assert_eq!(snapshot.instructions.as_deref(), Some("Test server fast."));
    assert_eq!(snapshot.stderr.len(), 3, "{:?}", snapshot.stderr);

    let echo = pool
        .call(
            "fast",
            "echo",
            json!({"text": "hello"}),
            CALL,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(echo.parts, vec![CallPart::Text("hello".into())]);
    assert!(!echo.is_error);

    let image = pool
        .call("fast", "image", json!({}), CALL, CancellationToken::new())
        .await
        .unwrap();
    assert!(
        matches!(&image.parts[0], CallPart::Image { mime, data } if mime == "image/png" && !data.is_empty())
    );

    let failed = pool
        .call("fast", "fail", json!({}), CALL, CancellationToken::new())
        .await
        .unwrap();
    assert!(
        failed.is_error,
        "isError reaches the caller as an errored result"
    );

    let structured = pool
        .call(
            "fast",
            "structured",
            json!({}),
            CALL,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert!(structured.structured.is_some());
    pool.shutdown().await;
}

#[tokio::test]
async fn a_cancelled_call_tells_the_server_and_a_slow_one_times_out() {
    let pool = pool();
    pool.apply(vec![server("slow", &[])]);
    connected(&pool, "slow").await;

    let cancel = CancellationToken::new();
    let call = pool.call("slow", "slow", json!({"seconds": 30}), CALL, cancel.clone());
    let canceller = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(call, canceller);
    assert!(matches!(result, Err(McpError::Cancelled)), "{result:?}");
    // The stderr tail is not a change the pool announces: read it until the
    // line is there, within the deadline.
    let deadline = tokio::time::Instant::now() + WAIT;
    while !pool
        .server("slow")
        .is_some_and(|s| s.stderr.iter().any(|l| l.starts_with("cancelled")))
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server never heard notifications/cancelled"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let result = pool
        .call(
            "slow",
            "slow",
            json!({"seconds": 30}),
            Duration::from_millis(300),
            CancellationToken::new(),
        )
        .await;
    assert!(
        matches!(result, Err(McpError::Timeout { .. })),
        "{result:?}"
    );
    pool.shutdown().await;
}

#[tokio::test]
async fn a_changed_tool_list_is_picked_up() {
    let pool = pool();
    pool.apply(vec![server("flip", &[])]);
    connected(&pool, "flip").await;
    pool.call("flip", "flip", json!({}), CALL, CancellationToken::new())
        .await
        .unwrap();
    let flipped = pool
        .wait_for("flip", WAIT, |s| {
            s.tools.iter().any(|t| t.name == "flipped")
        })
        .await;
    assert!(
        flipped.is_some(),
        "tools/list_changed did not refresh the tools"
    );
    pool.shutdown().await;
}

#[tokio::test]
async fn a_crashed_server_comes_back_by_itself() {
    let pool = pool();
    pool.apply(vec![server("crashy", &["--crash-after", "1"])]);
    connected(&pool, "crashy").await;
    pool.call(
        "crashy",
        "echo",
        json!({"text": "once"}),
        CALL,
        CancellationToken::new(),
    )
    .await
    .unwrap();
    let second = pool
        .call(
            "crashy",
            "echo",
            json!({"text": "twice"}),
            CALL,
            CancellationToken::new(),
        )
        .await;
    assert!(second.is_err(), "the server exits instead of answering");
    let crashed = pool
        .wait_for("crashy", WAIT, |s| {
            matches!(s.status, McpStatus::Crashed { .. })
        })
        .await
        .expect("crashed is shown");
    assert!(
        crashed.tools.is_empty(),
        "a crashed server's tools are dropped"
    );
    let McpStatus::Crashed { message } = crashed.status else {
        unreachable!()
    };
    assert!(message.contains("code 3"), "{message}");
    // The backoff's first wait is a second; then it is connected again.
    connected(&pool, "crashy").await;
    pool.shutdown().await;
}

#[tokio::test]
async fn servers_that_cannot_start_say_why_and_do_not_hold_up_the_others() {
    let pool = McpPool::with_limits(|_, _| {}, 3, Duration::from_secs(2));
    let mut missing = server("missing", &[]);
    missing.transport = ServerTransport::Stdio {
        command: "no-such-mcp-server-here".to_owned(),
        args: Vec::new(),
        env: BTreeMap::new(),
        cwd: None,
    };
    pool.apply(vec![
        server("hung", &["--hang-init"]),
        server("garbage", &["--garbage"]),
        missing,
        server("fine", &[]),
    ]);
    connected(&pool, "fine").await;
    assert_eq!(
        errored(&pool, "missing").await,
        "command not found: no-such-mcp-server-here"
    );
    let garbage = errored(&pool, "garbage").await;
    assert!(garbage.contains("not JSON-RPC"), "{garbage}");
    let hung = errored(&pool, "hung").await;
    assert!(hung.contains("within 2 s"), "{hung}");
    let echo = pool
        .call(
            "fine",
            "echo",
            json!({"text": "still here"}),
            CALL,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(echo.parts, vec![CallPart::Text("still here".into())]);
    pool.shutdown().await;
}

#[tokio::test]
async fn a_disabled_server_does_not_start_and_shutdown_leaves_no_process() {
    let pool = pool();
    let mut off = server("off", &[]);
    off.enabled = false;
    pool.apply(vec![off, server("on", &[])]);
    connected(&pool, "on").await;
    let off = pool
        .wait_for("off", WAIT, |s| s.status == McpStatus::Disabled)
        .await;
    assert!(off.is_some());
    let pid = pool
        .server("on")
        .and_then(|s| s.pid)
        .expect("a stdio server has a process");
    pool.shutdown().await;
    {
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists()
                || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .is_ok_and(|s| s.contains(") Z ")),
            "server process {pid} outlived the pool"
        );
    }
}

#[tokio::test]
async fn a_removed_server_stops_and_a_kept_one_keeps_its_connection() {
    let pool = pool();
    pool.apply(vec![server("a", &[]), server("b", &[])]);
    connected(&pool, "a").await;
    connected(&pool, "b").await;
    let before = pool.server("a").unwrap().tools;
    pool.apply(vec![server("a", &[])]);
    assert!(pool.server("b").is_none());
    let after = pool.server("a").unwrap();
    assert!(after.status.is_connected());
    assert!(
        std::sync::Arc::ptr_eq(&before, &after.tools),
        "a was not reconnected"
    );
    pool.shutdown().await;
}
