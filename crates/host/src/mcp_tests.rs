//! MCP servers through the host, against the real test server process:
//! `.mcp.json` read and followed on disk, a skill delegating to a server's
//! tool behind its gate, the enablement rules, secrets in the keychain and
//! redacted everywhere, drift.

use std::sync::Arc;
use std::time::Duration;

use pizza_llm::{FakeModel, FakeTurn};
use pizza_protocol::{
    AppEvent, Decision, ErrorCode, McpEntryValue, McpServerEntry, McpServerIdParams,
    McpServerListParams, McpServerSaveParams, McpServerSetEnabledParams, McpStatus,
    McpToolReviewParams, McpTransportKind, REDACTED, RunEvent, RunRespondParams,
    SkillReadinessState, SkillSetEnabledParams, ThreadGetParams,
};
use pizza_test_support::data_root::TempDataRoot;
use pizza_test_support::mcp::test_server_bin;
use serde_json::json;
use tokio::sync::broadcast;

use crate::runs::tests::{FakeProvider, start, subscribe, until_finished};
use crate::secrets::MemorySecrets;
use crate::skills::tests::{skill_md, write_skill};
use crate::{DataRoot, Host, HostOptions};

const WAIT: Duration = Duration::from_secs(20);

/// Writes `.mcp.json` into the (not yet created) data root.
fn write_config(root: &TempDataRoot, servers: &serde_json::Value) {
    std::fs::create_dir_all(root.path()).unwrap();
    std::fs::write(root.path().join(".mcp.json"), config(servers)).unwrap();
}

fn config(servers: &serde_json::Value) -> String {
    serde_json::to_string_pretty(&json!({"mcpServers": servers})).unwrap()
}

fn fast_entry() -> serde_json::Value {
    json!({"command": test_server_bin().display().to_string(), "args": ["--name", "fast"]})
}

async fn open(root: &TempDataRoot, model: &FakeModel, secrets: Arc<MemorySecrets>) -> Host {
    let host = Host::open(
        DataRoot::prepare(root.path()).unwrap(),
        HostOptions::default()
            .with_ollama_probe(None)
            .with_secrets(secrets),
    )
    .await
    .unwrap();
    host.model_catalog()
        .await
        .register(Arc::new(FakeProvider(model.clone())));
    host
}

/// Waits for `id`'s status to satisfy `done`, on the host's events.
async fn status(
    host: &Host,
    events: &mut broadcast::Receiver<AppEvent>,
    id: &str,
    done: impl Fn(&McpStatus) -> bool,
) -> McpStatus {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let list = host.mcp_server_list(McpServerListParams {}).await.unwrap();
        if let Some(server) = list.servers.iter().find(|s| s.id == id)
            && done(&server.status)
        {
            return server.status.clone();
        }
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(_) | Err(broadcast::error::RecvError::Lagged(_))) => {}
            other => panic!("{id} never reached the status: {other:?} / {list:?}"),
        }
    }
}

#[tokio::test]
async fn a_skill_delegates_to_an_mcp_tool_behind_its_gate() {
    let root = TempDataRoot::new().unwrap();
    write_config(&root, &json!({"fast": fast_entry()}));
    write_skill(
        &root.path().join("skills"),
        "echoer",
        &skill_md(
            "echoer",
            "tools: [\"mcp:fast:*\"]\ninterruptOn:\n  \"mcp:fast:echo\": true\n",
        ),
        &[],
    );
    let model = FakeModel::with_turns([
        FakeTurn::tool_call(
            "t1",
            "task",
            json!({"skill": "echoer", "ask": "echo hello"}),
        ),
        FakeTurn::tool_call("e1", "fast__echo", json!({"text": "hello"})),
        FakeTurn::text("The server echoed hello."),
        FakeTurn::text("It said hello."),
    ]);
    let host = open(&root, &model, Arc::default()).await;
    let mut events = host.subscribe();
    host.start_mcp().await.unwrap();
    status(&host, &mut events, "fast", McpStatus::is_connected).await;
    // The skill turns ready once the roster has the server's tools.
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let echoer = host
            .skill_list(pizza_protocol::SkillListParams {})
            .await
            .unwrap()
            .skills
            .into_iter()
            .find(|s| s.name == "echoer")
            .unwrap();
        if echoer.readiness.state == SkillReadinessState::Ready {
            break;
        }
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(_) | Err(broadcast::error::RecvError::Lagged(_))) => {}
            other => panic!("echoer never turned ready: {other:?} / {echoer:?}"),
        }
    }

    let started = host.run_start(start(None, "echo hello")).await.unwrap();
    let mut rx = subscribe(&host, &started.thread_id, None).await;
    let frames = until_finished(&mut rx).await;
    let interrupt = frames
        .iter()
        .find_map(|f| match &f.event {
            RunEvent::Interrupt { interrupt } => Some(interrupt.clone()),
            _ => None,
        })
        .expect("the gate on the MCP tool asks");
    let request = &interrupt.requests[0];
    assert_eq!(request.tool, "fast__echo");
    assert_eq!(request.skill.as_deref(), Some("echoer"));
    assert!(
        request.description.contains("echo on MCP server fast"),
        "{}",
        request.description
    );
    assert_eq!(request.arguments, json!({"text": "hello"}));

    host.run_respond(RunRespondParams {
        thread_id: started.thread_id.clone(),
        interrupt_id: interrupt.interrupt_id.clone(),
        decisions: [("e1".to_owned(), Decision::APPROVE)].into(),
    })
    .await
    .unwrap();
    until_finished(&mut rx).await;
    let detail = host
        .thread_get(ThreadGetParams {
            thread_id: started.thread_id.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    let calls: Vec<_> = detail
        .delegations
        .iter()
        .flat_map(|d| d.tool_calls.iter())
        .collect();
    let echo = calls
        .iter()
        .find(|c| c.name == "fast__echo")
        .expect("the subagent's call");
    assert_eq!(echo.result.as_deref(), Some("hello"));
    host.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn servers_an_enabled_skill_needs_stay_and_a_skill_needs_its_servers() {
    let root = TempDataRoot::new().unwrap();
    write_config(&root, &json!({"fast": fast_entry()}));
    write_skill(
        &root.path().join("skills"),
        "echoer",
        &skill_md("echoer", "tools: [\"mcp:fast:echo\"]\n"),
        &[],
    );
    write_skill(
        &root.path().join("skills"),
        "orphan",
        &skill_md("orphan", "tools: [\"mcp:nowhere:*\"]\n"),
        &[],
    );
    let host = open(&root, &FakeModel::new(), Arc::default()).await;
    let mut events = host.subscribe();
    host.start_mcp().await.unwrap();
    status(&host, &mut events, "fast", McpStatus::is_connected).await;

    let id = McpServerIdParams { id: "fast".into() };
    let err = host.mcp_server_delete(id.clone()).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::ResourceInUse);
    assert!(err.message.contains("echoer"), "{}", err.message);
    let err = host
        .mcp_server_set_enabled(McpServerSetEnabledParams {
            id: "fast".into(),
            enabled: false,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::ResourceInUse);

    let err = host
        .skill_set_enabled(SkillSetEnabledParams {
            name: "orphan".into(),
            enabled: true,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::DependencyDisabled);
    assert!(
        err.message.contains("nowhere (not configured)"),
        "{}",
        err.message
    );

    // Switched off, the skill no longer holds the server.
    host.skill_set_enabled(SkillSetEnabledParams {
        name: "echoer".into(),
        enabled: false,
    })
    .await
    .unwrap();
    let view = host
        .mcp_server_set_enabled(McpServerSetEnabledParams {
            id: "fast".into(),
            enabled: false,
        })
        .await
        .unwrap();
    assert!(!view.enabled);
    status(&host, &mut events, "fast", |s| *s == McpStatus::Disabled).await;
    let err = host
        .skill_set_enabled(SkillSetEnabledParams {
            name: "echoer".into(),
            enabled: true,
        })
        .await
        .unwrap_err();
    assert!(
        err.message.contains("fast (switched off)"),
        "{}",
        err.message
    );
    host.mcp_server_delete(id).await.unwrap();
    let written = std::fs::read_to_string(root.path().join(".mcp.json")).unwrap();
    assert!(!written.contains("\"fast\""), "{written}");
    host.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn secret_values_go_to_the_keychain_and_every_value_is_redacted() {
    let root = TempDataRoot::new().unwrap();
    let secrets = Arc::new(MemorySecrets::default());
    let host = open(&root, &FakeModel::new(), Arc::clone(&secrets)).await;
    let mut events = host.subscribe();
    host.start_mcp().await.unwrap();
    let entry = McpServerEntry {
        transport: McpTransportKind::Stdio,
        command: test_server_bin().display().to_string(),
        args: vec!["--name".into(), "fast".into()],
        cwd: None,
        url: String::new(),
        env: vec![
            McpEntryValue {
                name: "TOKEN".into(),
                value: Some("s3cret-token".into()),
                secret: true,
            },
            McpEntryValue {
                name: "MODE".into(),
                value: Some("plain".into()),
                secret: false,
            },
        ],
        headers: Vec::new(),
        enabled: true,
    };
    let saved = host
        .mcp_server_save(McpServerSaveParams {
            id: "fast".into(),
            entry: entry.clone(),
            previous_id: None,
        })
        .await
        .unwrap();
    assert!(saved.env.iter().all(|v| v.value == REDACTED));
    assert!(saved.env.iter().any(|v| v.name == "TOKEN" && v.secret));
    let written = std::fs::read_to_string(root.path().join(".mcp.json")).unwrap();
    assert!(
        !written.contains("s3cret-token"),
        "the file keeps a reference: {written}"
    );
    assert!(written.contains("${secret:"), "{written}");
    assert!(secrets.snapshot().values().any(|v| v == "s3cret-token"));
    status(&host, &mut events, "fast", McpStatus::is_connected).await;

    // Edited without retyping: the values stay.
    let mut kept = entry;
    for value in &mut kept.env {
        value.value = None;
    }
    kept.args.push("--stderr-lines".into());
    kept.args.push("1".into());
    host.mcp_server_save(McpServerSaveParams {
        id: "fast".into(),
        entry: kept,
        previous_id: None,
    })
    .await
    .unwrap();
    let rewritten = std::fs::read_to_string(root.path().join(".mcp.json")).unwrap();
    assert!(
        rewritten.contains("plain") && rewritten.contains("${secret:"),
        "{rewritten}"
    );

    let bad = McpServerEntry {
        transport: McpTransportKind::Http,
        command: String::new(),
        args: Vec::new(),
        cwd: None,
        url: "ftp://nope".into(),
        env: Vec::new(),
        headers: Vec::new(),
        enabled: true,
    };
    let err = host
        .mcp_server_save(McpServerSaveParams {
            id: "web".into(),
            entry: bad,
            previous_id: None,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(err.message.starts_with("url:"), "{}", err.message);
    assert_eq!(
        std::fs::read_to_string(root.path().join(".mcp.json")).unwrap(),
        rewritten
    );
    host.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn a_hand_edit_is_followed_and_a_broken_file_keeps_the_last_good_servers() {
    let root = TempDataRoot::new().unwrap();
    let file = root.path().join(".mcp.json");
    write_config(&root, &json!({"fast": fast_entry()}));
    let host = open(&root, &FakeModel::new(), Arc::default()).await;
    let mut events = host.subscribe();
    host.start_mcp().await.unwrap();
    status(&host, &mut events, "fast", McpStatus::is_connected).await;

    std::fs::write(&file, "{ \"mcpServers\": { \"fast\": ").unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    let list = loop {
        let list = host.mcp_server_list(McpServerListParams {}).await.unwrap();
        if list.config_error.is_some() {
            break list;
        }
        let _ = tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the broken file is reported");
    };
    assert_eq!(list.servers.len(), 1);
    assert!(
        list.servers[0].status.is_connected(),
        "the last good server stays live"
    );

    std::fs::write(
        &file,
        config(&json!({"fast": fast_entry(), "other": fast_entry()})),
    )
    .unwrap();
    status(&host, &mut events, "other", McpStatus::is_connected).await;
    let list = host.mcp_server_list(McpServerListParams {}).await.unwrap();
    assert!(list.config_error.is_none());
    host.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn a_changed_definition_is_flagged_and_asks_until_reviewed() {
    let root = TempDataRoot::new().unwrap();
    write_config(&root, &json!({"fast": fast_entry()}));
    // No interruptOn: only the drift makes the call ask.
    write_skill(
        &root.path().join("skills"),
        "echoer",
        &skill_md("echoer", "tools: [\"mcp:fast:*\"]\n"),
        &[],
    );
    let model = FakeModel::with_turns([
        FakeTurn::tool_call("t1", "task", json!({"skill": "echoer", "ask": "echo"})),
        FakeTurn::tool_call("e1", "fast__echo", json!({"text": "changed?"})),
    ]);
    let host = open(&root, &model, Arc::default()).await;
    // What the person reviewed earlier: `echo` described differently.
    let old = json!({"name": "echo", "description": "Echoes.", "inputSchema": {"type": "object"}});
    host.store()
        .set_mcp_tool_reviews(&[(
            "fast".into(),
            "echo".into(),
            pizza_mcp::definition_hash(&old),
            old.to_string(),
        )])
        .await
        .unwrap();
    host.close().await;
    let host = open(&root, &model, Arc::default()).await;
    let mut events = host.subscribe();
    host.start_mcp().await.unwrap();
    status(&host, &mut events, "fast", McpStatus::is_connected).await;
    let view = host.inner.mcp.view("fast").unwrap();
    let echo = view.tools.iter().find(|t| t.name == "echo").unwrap();
    let diff = echo.changed.as_deref().expect("echo is flagged");
    assert!(diff.contains("-  \"description\": \"Echoes.\""), "{diff}");
    assert!(
        view.tools
            .iter()
            .filter(|t| t.name != "echo")
            .all(|t| t.changed.is_none())
    );

    let deadline = tokio::time::Instant::now() + WAIT;
    while host
        .skill_list(pizza_protocol::SkillListParams {})
        .await
        .unwrap()
        .skills
        .iter()
        .any(|s| s.name == "echoer" && s.readiness.state != SkillReadinessState::Ready)
    {
        let _ = tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("echoer turns ready");
    }
    let started = host.run_start(start(None, "echo")).await.unwrap();
    let mut rx = subscribe(&host, &started.thread_id, None).await;
    let frames = until_finished(&mut rx).await;
    let asked = frames.iter().any(|f| matches!(
        &f.event,
        RunEvent::Interrupt { interrupt } if interrupt.requests.iter().any(|r| r.tool == "fast__echo")
    ));
    assert!(asked, "the drifted tool asks before it runs");

    let def = host
        .inner
        .mcp
        .pool()
        .server("fast")
        .unwrap()
        .tools
        .iter()
        .find(|t| t.name == "echo")
        .cloned()
        .unwrap();
    use pizza_tools::McpCallPolicy;
    assert!(host.inner.mcp.policy().needs_review(&def));
    let reviewed = host
        .mcp_tool_review(McpToolReviewParams {
            id: "fast".into(),
            tool: Some("echo".into()),
        })
        .await
        .unwrap();
    assert!(reviewed.tools.iter().all(|t| t.changed.is_none()));
    assert!(!host.inner.mcp.policy().needs_review(&def));
    host.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn an_import_previews_clashes_and_brings_in_what_was_chosen() {
    let root = TempDataRoot::new().unwrap();
    write_config(&root, &json!({"fast": fast_entry()}));
    let host = open(&root, &FakeModel::new(), Arc::default()).await;
    host.start_mcp().await.unwrap();
    let pasted = json!({
        "mcpServers": {
            "fast": {"command": "elsewhere"},
            "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}}
        },
        "globalShortcut": "Ctrl+Space"
    })
    .to_string();
    let source = pizza_protocol::McpImportSource {
        json: Some(pasted),
        ..Default::default()
    };
    let preview = host.mcp_import_preview(source.clone()).await.unwrap();
    let clashes: Vec<(&str, bool)> = preview
        .candidates
        .iter()
        .map(|c| (c.id.as_str(), c.clash))
        .collect();
    assert_eq!(clashes, [("fast", true), ("time", false)]);
    let time = preview.candidates.iter().find(|c| c.id == "time").unwrap();
    assert_eq!(time.summary, "uvx mcp-server-time");
    let list = host
        .mcp_import(pizza_protocol::McpImportParams {
            source,
            ids: vec!["time".into()],
        })
        .await
        .unwrap();
    let time = list.servers.iter().find(|s| s.id == "time").unwrap();
    assert_eq!(time.env[0].value, REDACTED);
    let written = std::fs::read_to_string(root.path().join(".mcp.json")).unwrap();
    assert!(
        written.contains("pizza-mcp-test-server") && written.contains("mcp-server-time"),
        "{written}"
    );
    let err = host
        .mcp_import_preview(pizza_protocol::McpImportSource {
            json: Some("{\"mcpServers\": {\"x\": {\"command\": 3}}}".into()),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(
        err.message.contains("mcpServers.x.command"),
        "{}",
        err.message
    );
    host.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn waking_connects_again_a_server_that_could_not_start() {
    let root = TempDataRoot::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let later = dir.path().join("server-installed-later");
    write_config(
        &root,
        &json!({"late": {"command": later.display().to_string(), "args": ["--name", "late"]}}),
    );
    let host = open(&root, &FakeModel::new(), Arc::default()).await;
    let mut events = host.subscribe();
    host.start_mcp().await.unwrap();
    let failed = status(&host, &mut events, "late", |s| {
        matches!(s, McpStatus::Error { .. })
    })
    .await;
    assert!(
        format!("{failed:?}").contains("command not found"),
        "{failed:?}"
    );
    std::os::unix::fs::symlink(test_server_bin(), &later).unwrap();
    host.power_changed(crate::PowerEvent::Woke);
    status(&host, &mut events, "late", McpStatus::is_connected).await;
    host.shutdown(Duration::from_secs(5)).await;
}
