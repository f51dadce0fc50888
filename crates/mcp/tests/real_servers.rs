//! The pool against the reference servers `cargo xtask test` installs:
//! server-everything over stdio, streamable HTTP and legacy SSE,
//! server-filesystem and mcp-server-time.

use std::collections::BTreeMap;
use std::time::Duration;

use pizza_mcp::{CallPart, LiveServer, McpPool, ServerTransport};
use pizza_test_support::mcp::{EverythingHttp, HttpMode, McpServers, mcp_servers};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(30);
const CALL: Duration = Duration::from_secs(20);

fn servers() -> McpServers {
    mcp_servers().unwrap_or_else(|e| panic!("{e}"))
}

fn stdio(id: &str, command: &std::path::Path, args: &[String]) -> LiveServer {
    LiveServer {
        id: id.to_owned(),
        transport: ServerTransport::Stdio {
            command: command.display().to_string(),
            args: args.to_vec(),
            env: BTreeMap::new(),
            cwd: None,
        },
        enabled: true,
        problem: None,
    }
}

fn remote(id: &str, transport: ServerTransport) -> LiveServer {
    LiveServer {
        id: id.to_owned(),
        transport,
        enabled: true,
        problem: None,
    }
}

async fn text_of(pool: &McpPool, server: &str, tool: &str, args: serde_json::Value) -> String {
    let out = pool
        .call(server, tool, args, CALL, CancellationToken::new())
        .await
        .unwrap_or_else(|e| panic!("{server} {tool}: {e}"));
    assert!(!out.is_error, "{server} {tool} failed: {out:?}");
    out.parts
        .iter()
        .filter_map(|p| match p {
            CallPart::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

async fn connected(pool: &McpPool, id: &str) -> pizza_mcp::ServerSnapshot {
    pool.wait_for(id, WAIT, |s| s.status.is_connected())
        .await
        .unwrap_or_else(|| {
            panic!(
                "{id} did not connect: {:?}",
                pool.server(id).map(|s| (s.status, s.stderr))
            )
        })
}

#[tokio::test]
async fn server_everything_on_each_transport() {
    let servers = servers();
    let mut http = EverythingHttp::start(&servers, HttpMode::StreamableHttp).unwrap();
    let mut sse = EverythingHttp::start(&servers, HttpMode::Sse).unwrap();
    let pool = McpPool::new(|_, _| {});
    pool.apply(vec![
        stdio(
            "everything",
            &servers.node,
            &[servers.everything.display().to_string(), "stdio".to_owned()],
        ),
        remote(
            "web",
            ServerTransport::Http {
                url: http.url.clone(),
                headers: BTreeMap::new(),
            },
        ),
        remote(
            "legacy",
            ServerTransport::Sse {
                url: sse.url.clone(),
                headers: BTreeMap::new(),
            },
        ),
    ]);
    for id in ["everything", "web", "legacy"] {
        let snapshot = connected(&pool, id).await;
        assert!(
            snapshot.tools.iter().any(|t| t.name == "echo"),
            "{id}: {:?}",
            snapshot.tools.iter().map(|t| &t.name).collect::<Vec<_>>()
        );
        let echoed = text_of(&pool, id, "echo", json!({"message": format!("hi {id}")})).await;
        assert!(echoed.contains(&format!("hi {id}")), "{id}: {echoed}");
    }
    // An image result, and the environment a stdio server sees.
    let out = pool
        .call(
            "everything",
            "get-tiny-image",
            json!({}),
            CALL,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert!(
        out.parts
            .iter()
            .any(|p| matches!(p, CallPart::Image { mime, .. } if mime == "image/png")),
        "{out:?}"
    );
    let env = text_of(&pool, "everything", "get-env", json!({})).await;
    assert!(env.contains("\"PATH\""), "{env}");
    assert!(
        !env.contains("CARGO_PKG_NAME"),
        "only allowlisted variables reach a server: {env}"
    );
    pool.shutdown().await;
    http.kill();
    sse.kill();
}

#[tokio::test]
async fn server_filesystem_and_mcp_server_time() {
    let servers = servers();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("menu.txt"), "margherita\n").unwrap();
    let allowed = std::fs::canonicalize(dir.path()).unwrap();
    let pool = McpPool::new(|_, _| {});
    pool.apply(vec![
        stdio(
            "files",
            &servers.node,
            &[
                servers.filesystem.display().to_string(),
                allowed.display().to_string(),
            ],
        ),
        stdio(
            "time",
            &servers.time,
            &["--local-timezone".to_owned(), "UTC".to_owned()],
        ),
    ]);
    connected(&pool, "files").await;
    let read = text_of(
        &pool,
        "files",
        "read_text_file",
        json!({"path": allowed.join("menu.txt").display().to_string()}),
    )
    .await;
    assert!(read.contains("margherita"), "{read}");
    let refused = pool
        .call(
            "files",
            "read_text_file",
            json!({"path": "/etc/hostname"}),
            CALL,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert!(
        refused.is_error,
        "outside its folder the server refuses: {refused:?}"
    );

    let time = connected(&pool, "time").await;
    assert!(time.tools.iter().any(|t| t.name == "get_current_time"));
    let now = text_of(
        &pool,
        "time",
        "get_current_time",
        json!({"timezone": "UTC"}),
    )
    .await;
    assert!(now.contains("UTC"), "{now}");
    pool.shutdown().await;
}
