//! The window scope table against the UI: the quick-ask window's scope is
//! exactly the commands its UI can call, read from the UI's source (its own
//! module, the feed components it renders, and the run-state methods they
//! call), and every window is refused what its scope leaves out.

use super::*;
use pizza_protocol::{COMMANDS, ErrorCode, QUICK_ASK_COMMANDS};
use pizza_test_support::data_root::TempDataRoot;
use std::path::PathBuf;

/// The UI's source folder.
fn ui_src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ui/src")
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(ui_src().join(relative))
        .unwrap_or_else(|e| panic!("reading ui/src/{relative}: {e}"))
}

/// `RunStart` → `run_start`.
fn wire_name(marker: &str) -> String {
    let mut name = String::new();
    for c in marker.chars() {
        if c.is_ascii_uppercase() {
            if !name.is_empty() {
                name.push('_');
            }
            name.push(c.to_ascii_lowercase());
        } else {
            name.push(c);
        }
    }
    name
}

/// The commands `source` names as `cmd::X`.
fn commands_in(source: &str) -> BTreeSet<String> {
    source
        .match_indices("cmd::")
        .map(|(at, _)| {
            source[at + 5..]
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect::<String>()
        })
        .filter(|marker| marker.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(|marker| {
            let name = wire_name(&marker);
            assert!(
                COMMANDS.contains(&name.as_str()),
                "cmd::{marker} is not {name}"
            );
            name
        })
        .collect()
}

/// The functions of `source` by name, each with its body (up to the next
/// function at the same or an outer indentation).
fn functions(source: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = Vec::new();
    for line in source.lines() {
        let trimmed = line.trim_start();
        let signature = trimmed
            .strip_prefix("pub(crate) fn ")
            .or_else(|| trimmed.strip_prefix("fn "))
            .or_else(|| trimmed.strip_prefix("pub(crate) async fn "))
            .or_else(|| trimmed.strip_prefix("async fn "));
        let top_level = line.len() - trimmed.len() <= 4;
        match signature {
            Some(rest) if top_level => {
                let name = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                found.push((name, String::new()));
            }
            _ => {
                if let Some((_, body)) = found.last_mut() {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    found
}

/// Whether `source` calls `name` as a function or method.
fn calls(source: &str, name: &str) -> bool {
    source.match_indices(&format!("{name}(")).any(|(at, _)| {
        source[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
    })
}

/// Every command the quick-ask window's UI can call.
fn quick_ask_ui_commands() -> BTreeSet<String> {
    // Rendered by the quick-ask window, and only what it renders there.
    let own = [
        "app.rs",
        "outbox.rs",
        "quick_ask.rs",
        "links.rs",
        "components/attachments.rs",
        "screens/inbox/live.rs",
        "screens/inbox/approval.rs",
        "screens/inbox/approval_edit.rs",
        "screens/inbox/message.rs",
    ]
    .map(read)
    .join("\n");
    let mut used = commands_in(&own);
    // The run state those files drive is shared with the main window: only
    // the functions they reach count, followed through calls inside it.
    let stream = functions(&read("screens/inbox/stream.rs"));
    let mut reached: BTreeSet<&str> = ["new"].into();
    let mut frontier: Vec<&str> = stream
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| calls(&own, name))
        .collect();
    frontier.push("new");
    while let Some(name) = frontier.pop() {
        reached.insert(name);
        for (_, body) in stream.iter().filter(|(n, _)| n == name) {
            used.extend(commands_in(body));
            for (callee, _) in &stream {
                if !reached.contains(callee.as_str()) && calls(body, callee) {
                    frontier.push(callee);
                }
            }
        }
    }
    used
}

#[test]
fn the_quick_ask_scope_is_what_its_ui_calls() {
    let table: BTreeSet<String> = QUICK_ASK_COMMANDS.iter().map(|&c| c.to_owned()).collect();
    assert_eq!(quick_ask_ui_commands(), table);
}

#[test]
fn the_main_window_may_call_whatever_the_ui_names() {
    fn sources(dir: &std::path::Path, out: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut all = String::new();
    sources(&ui_src(), &mut all);
    for name in commands_in(&all) {
        assert!(WindowScope::Main.allows(&name), "main cannot {name}");
    }
}

#[tokio::test]
async fn a_command_outside_the_windows_scope_is_permission_denied() {
    let root = TempDataRoot::new().unwrap();
    let data_root = pizza_host::DataRoot::prepare(root.path()).unwrap();
    let slot = HostSlot::Ready(
        Host::open(
            data_root,
            pizza_host::HostOptions::default().with_ollama_probe(None),
        )
        .await
        .unwrap(),
    );
    let registry = CommandRegistry::new();
    let from = |window: &str| Call {
        window: window.to_owned(),
        outbox: None,
        channel: None,
    };
    let thread = registry
        .dispatch(&slot, "thread_create", serde_json::json!({}))
        .await
        .unwrap();
    let id = serde_json::json!({"thread_id": thread["id"]});

    // Quick-ask may ask what the app is, but not delete or change settings.
    registry
        .dispatch_with(&slot, "app_info", Value::Null, from("quick-ask"))
        .await
        .unwrap();
    for (name, params) in [
        ("thread_delete", id.clone()),
        ("settings_update", serde_json::json!({"theme": "dark"})),
        ("grant_remove", serde_json::json!({"id": "g1"})),
        ("export_choose", serde_json::json!({"format": "markdown"})),
    ] {
        let refused = registry
            .dispatch_with(&slot, name, params, from("quick-ask"))
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::PermissionDenied, "{name}");
    }
    // A webview the app did not make may call nothing.
    let stranger = registry
        .dispatch_with(&slot, "app_info", Value::Null, from("devtools"))
        .await
        .unwrap_err();
    assert_eq!(stranger.code, ErrorCode::PermissionDenied);

    // Nothing happened: the thread is there and the theme unchanged.
    registry
        .dispatch(&slot, "thread_get", id.clone())
        .await
        .unwrap();
    let settings = registry
        .dispatch(&slot, "settings_get", Value::Null)
        .await
        .unwrap();
    assert_eq!(settings["theme"], "system");
    // The main window may.
    registry.dispatch(&slot, "thread_delete", id).await.unwrap();
}

#[tokio::test]
async fn an_export_path_sent_by_the_page_is_refused() {
    let root = TempDataRoot::new().unwrap();
    let data_root = pizza_host::DataRoot::prepare(root.path()).unwrap();
    let slot = HostSlot::Ready(
        Host::open(
            data_root,
            pizza_host::HostOptions::default().with_ollama_probe(None),
        )
        .await
        .unwrap(),
    );
    let registry = CommandRegistry::new();
    let thread = registry
        .dispatch(&slot, "thread_create", serde_json::json!({}))
        .await
        .unwrap();
    let target = root.base().join("stolen.md");
    let with_path = registry
        .dispatch(
            &slot,
            "thread_export",
            serde_json::json!({"thread_id": thread["id"], "format": "markdown", "path": target}),
        )
        .await
        .unwrap_err();
    assert_eq!(with_path.code, ErrorCode::InvalidInput);
    let as_token = registry
        .dispatch(
            &slot,
            "thread_export",
            serde_json::json!({"thread_id": thread["id"], "format": "markdown", "token": target}),
        )
        .await
        .unwrap_err();
    assert_eq!(as_token.code, ErrorCode::PermissionDenied);
    assert!(!target.exists());
}

#[test]
fn no_window_may_use_tauri_events() {
    // A page hears the host through its outbox (outbox.rs). Tauri's events
    // run a script in the page for each listener and event, which starts a
    // JavaScript engine in the app's process; and its `unlisten` removes a
    // listener id from every webview (ids count up), so a window allowed it
    // could end the others' subscriptions.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("capabilities");
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let capability: serde_json::Value = serde_json::from_str(&text).unwrap();
        for permission in capability["permissions"].as_array().unwrap() {
            let name = permission.as_str().unwrap_or_default();
            assert!(
                !(name.starts_with("core:event:") || name == "core:default"),
                "{} grants {name}",
                entry.path().display()
            );
        }
    }
}
