use std::collections::BTreeMap;
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn stdio(command: &str, args: &[&str]) -> ServerTransport {
    ServerTransport::Stdio {
        command: command.into(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        env: BTreeMap::new(),
        cwd: None,
    }
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn invalid(text: &str) -> String {
    match parse_config(text) {
        Err(e @ ConfigError::Invalid { .. }) => e.to_string(),
        other => panic!("expected Invalid for {text}, got {other:?}"),
    }
}

#[test]
fn parses_every_shape() {
    let config = parse_config(
        r#"{
          "mcpServers": {
            "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}, "cwd": "/tmp"},
            "explicit": {"type": "stdio", "command": "node", "args": null, "enabled": false},
            "web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
            "plain-url": {"url": "http://localhost:3000/mcp"},
            "dashed": {"type": "streamable-http", "url": "https://a.example/mcp"},
            "camel": {"type": "streamableHttp", "url": "https://b.example/mcp"},
            "legacy": {"type": "sse", "url": "${BASE_URL}/sse"}
          },
          "other": {"kept": true}
        }"#,
    )
    .unwrap();
    let ids: Vec<_> = config.servers.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "camel",
            "dashed",
            "explicit",
            "legacy",
            "plain-url",
            "time",
            "web"
        ]
    );
    let by_id = |id: &str| config.servers.iter().find(|s| s.id == id).unwrap();
    assert_eq!(
        by_id("time").transport,
        ServerTransport::Stdio {
            command: "uvx".into(),
            args: vec!["mcp-server-time".into()],
            env: map(&[("TZ", "UTC")]),
            cwd: Some("/tmp".into()),
        }
    );
    assert!(by_id("time").enabled);
    assert_eq!(by_id("time").plugin, None);
    assert_eq!(by_id("explicit").transport, stdio("node", &[]));
    assert!(!by_id("explicit").enabled);
    assert_eq!(
        by_id("web").transport,
        ServerTransport::Http {
            url: "https://example.com/mcp".into(),
            headers: map(&[("Authorization", "Bearer ${TOKEN}")]),
        }
    );
    for id in ["plain-url", "dashed", "camel"] {
        assert!(
            matches!(by_id(id).transport, ServerTransport::Http { .. }),
            "{id}"
        );
    }
    assert_eq!(
        by_id("legacy").transport,
        ServerTransport::Sse {
            url: "${BASE_URL}/sse".into(),
            headers: BTreeMap::new(),
        }
    );
}

#[test]
fn blank_and_serverless_files_are_empty() {
    assert_eq!(parse_config("").unwrap(), McpConfig::default());
    assert_eq!(parse_config(" \n\t").unwrap(), McpConfig::default());
    assert_eq!(
        parse_config(r#"{"theme": "dark"}"#).unwrap(),
        McpConfig::default()
    );
}

#[test]
fn bad_input_names_the_field() {
    let cases = [
        ("[1]", ".mcp.json: must be a JSON object"),
        ("{", ".mcp.json: not valid JSON"),
        (r#"{"mcpServers": []}"#, "mcpServers: must be an object"),
        (
            r#"{"mcpServers": {"a": 1}}"#,
            "mcpServers.a: must be an object",
        ),
        (
            r#"{"mcpServers": {"a": {}}}"#,
            "mcpServers.a: needs a command or a url",
        ),
        (
            r#"{"mcpServers": {"time": {"command": ""}}}"#,
            "mcpServers.time.command: must be a non-empty string",
        ),
        (
            r#"{"mcpServers": {"time": {"type": "stdio", "url": "https://x"}}}"#,
            "mcpServers.time.command: must be a non-empty string",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "args": "-y"}}}"#,
            "mcpServers.a.args: must be an array of strings",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "args": ["-y", 2]}}}"#,
            "mcpServers.a.args[1]: must be a string",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "env": {"PORT": 80}}}}"#,
            "mcpServers.a.env.PORT: must be a string",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "env": []}}}"#,
            "mcpServers.a.env: must be an object of strings",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "cwd": 3}}}"#,
            "mcpServers.a.cwd: must be a non-empty string",
        ),
        (
            r#"{"mcpServers": {"a": {"command": "x", "enabled": "no"}}}"#,
            "mcpServers.a.enabled: must be true or false",
        ),
        (
            r#"{"mcpServers": {"a": {"type": "websocket", "url": "ws://x"}}}"#,
            "mcpServers.a.type: must be stdio, http or sse, not \"websocket\"",
        ),
        (
            r#"{"mcpServers": {"a": {"type": "http", "url": "ftp://x"}}}"#,
            "mcpServers.a.url: must be an http:// or https:// URL",
        ),
        (
            r#"{"mcpServers": {"a": {"type": "sse", "url": "https://x", "headers": {"X": true}}}}"#,
            "mcpServers.a.headers.X: must be a string",
        ),
        (
            r#"{"mcpServers": {"a__b": {"command": "x"}}}"#,
            "mcpServers.a__b: \"a__b\" contains \"__\"",
        ),
        (
            r#"{"mcpServers": {"my server": {"command": "x"}}}"#,
            "mcpServers.my server: \"my server\" may use only letters",
        ),
    ];
    for (text, expected) in cases {
        let message = invalid(text);
        assert!(
            message.starts_with(expected),
            "{text}: {message:?} does not start with {expected:?}"
        );
    }
}

#[test]
fn server_ids() {
    for good in ["time", "a", "my-server_2", &"x".repeat(64)] {
        assert_eq!(validate_server_id(good), Ok(()), "{good}");
    }
    for bad in ["", &"x".repeat(65), "a__b", "a.b", "a/b", "é", "a b"] {
        let message = validate_server_id(bad).unwrap_err();
        assert!(!message.is_empty(), "{bad}");
    }
}

#[test]
fn plugin_servers_carry_their_origin() {
    let origin = PluginOrigin {
        name: "tools".into(),
        root: "/plugins/tools".into(),
    };
    let servers = parse_servers(
        &json!({"b": {"command": "${CLAUDE_PLUGIN_ROOT}/b"}, "a": {"url": "https://a"}}),
        Some(&origin),
    )
    .unwrap();
    assert_eq!(servers.len(), 2);
    assert_eq!(servers[0].id, "a");
    assert!(servers.iter().all(|s| s.plugin.as_ref() == Some(&origin)));
}

#[test]
fn canonical_entries_round_trip() {
    let transports = [
        stdio("npx", &[]),
        ServerTransport::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "@x/server".into()],
            env: map(&[("KEY", "${secret:mcp/x/env/KEY}")]),
            cwd: Some("/work".into()),
        },
        ServerTransport::Http {
            url: "https://h".into(),
            headers: BTreeMap::new(),
        },
        ServerTransport::Sse {
            url: "https://s".into(),
            headers: map(&[("A", "b")]),
        },
    ];
    assert_eq!(entry_json(&transports[0], true), json!({"command": "npx"}));
    assert_eq!(
        entry_json(&transports[2], false),
        json!({"type": "http", "url": "https://h", "enabled": false})
    );
    for transport in transports {
        for enabled in [true, false] {
            let parsed = parse_entry("x", &entry_json(&transport, enabled), None).unwrap();
            assert_eq!(parsed.transport, transport);
            assert_eq!(parsed.enabled, enabled);
        }
    }
}

// ---- the file on disk ----

fn file_in(dir: &Path) -> ConfigFile {
    ConfigFile::new(dir)
}

fn text(file: &ConfigFile) -> String {
    std::fs::read_to_string(file.path()).unwrap()
}

fn dir_entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_missing_file_reads_empty_and_the_first_save_creates_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = file_in(dir.path());
    assert_eq!(file.path(), dir.path().join(".mcp.json"));
    assert_eq!(file.read().unwrap(), McpConfig::default());
    assert!(!file.remove("time").unwrap());
    assert!(!file.set_enabled("time", false).unwrap());
    assert!(!file.path().exists(), "nothing to change, nothing written");

    file.upsert(
        "time",
        json!({"command": "uvx", "args": ["mcp-server-time"]}),
        None,
    )
    .unwrap();
    assert_eq!(
        text(&file),
        "{\n  \"mcpServers\": {\n    \"time\": {\n      \"args\": [\n        \"mcp-server-time\"\n      ],\n      \"command\": \"uvx\"\n    }\n  }\n}\n"
    );
    assert_eq!(file.read().unwrap().servers[0].id, "time");
    assert_eq!(dir_entries(dir.path()), [".mcp.json"], "no temp file left");
}

/// A hand-written file, pretty-printed as we print, in an order that is not
/// alphabetical, with fields that are not ours.
const HAND_WRITTEN: &str = r#"{
  "zeta": 1,
  "mcpServers": {
    "web": {
      "url": "https://example.com/mcp",
      "type": "http",
      "timeout": 30
    },
    "time": {
      "command": "uvx",
      "env": {
        "Z": "1",
        "A": "2"
      },
      "args": [
        "mcp-server-time"
      ],
      "note": "keep me"
    }
  },
  "alpha": {
    "nested": [
      1,
      2.5,
      null
    ]
  }
}
"#;

#[test]
fn upsert_keeps_unknown_fields_and_the_layout() {
    let dir = tempfile::tempdir().unwrap();
    let file = file_in(dir.path());
    std::fs::write(file.path(), HAND_WRITTEN).unwrap();

    // Replacing `time`: its unknown `note` stays, `args` (known, not sent)
    // goes, and `env` keeps its order with the new key last.
    file.upsert(
        "time",
        json!({"command": "uvx", "env": {"A": "3", "Z": "1", "M": "4"}, "enabled": false}),
        None,
    )
    .unwrap();
    // Adding a new one puts it last.
    file.upsert("new", json!({"type": "sse", "url": "https://n"}), None)
        .unwrap();
    let expected = r#"{
  "zeta": 1,
  "mcpServers": {
    "web": {
      "url": "https://example.com/mcp",
      "type": "http",
      "timeout": 30
    },
    "time": {
      "command": "uvx",
      "env": {
        "Z": "1",
        "A": "3",
        "M": "4"
      },
      "note": "keep me",
      "enabled": false
    },
    "new": {
      "type": "sse",
      "url": "https://n"
    }
  },
  "alpha": {
    "nested": [
      1,
      2.5,
      null
    ]
  }
}
"#;
    assert_eq!(text(&file), expected);
    assert_eq!(dir_entries(dir.path()), [".mcp.json"]);
}

#[test]
fn set_enabled_round_trips_the_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let file = file_in(dir.path());
    std::fs::write(file.path(), HAND_WRITTEN).unwrap();
    assert!(file.set_enabled("web", false).unwrap());
    assert!(
        !file
            .read()
            .unwrap()
            .servers
            .iter()
            .any(|s| s.id == "web" && s.enabled)
    );
    assert!(text(&file).contains("\"timeout\": 30,\n      \"enabled\": false\n"));
    assert!(file.set_enabled("web", true).unwrap());
    assert_eq!(text(&file), HAND_WRITTEN);
    assert!(!file.set_enabled("nope", true).unwrap());
}

#[test]
fn rename_keeps_the_place_and_the_unknown_fields() {
    let dir = tempfile::tempdir().unwrap();
    let file = file_in(dir.path());
    std::fs::write(file.path(), HAND_WRITTEN).unwrap();
    file.upsert(
        "clock",
        json!({"command": "uvx", "args": ["mcp-server-time", "--local"]}),
        Some("time"),
    )
    .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text(&file)).unwrap();
    assert_eq!(doc["mcpServers"].get("time"), None);
    assert_eq!(doc["mcpServers"]["clock"]["note"], "keep me");
    let written = text(&file);
    assert!(written.find("\"web\"").unwrap() < written.find("\"clock\"").unwrap());

    // Renaming onto another existing server is refused and writes nothing.
    let before = text(&file);
    let err = file
        .upsert("web", json!({"command": "x"}), Some("clock"))
        .unwrap_err();
    assert_eq!(err.to_string(), "id: a server named web already exists");
    assert_eq!(text(&file), before);
}

#[test]
fn a_file_that_does_not_parse_is_never_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let file = file_in(dir.path());
    let broken = "{\n  \"mcpServers\": {\n    \"time\": {\"command\": \"uvx\",}\n  }\n";
    let wrong = r#"{"mcpServers": {"time": {"command": 3}}}"#;
    for content in [broken, wrong] {
        std::fs::write(file.path(), content).unwrap();
        for result in [
            file.upsert("other", json!({"command": "x"}), None),
            file.upsert_many(vec![("other".into(), json!({"command": "x"}))]),
            file.remove("time").map(drop),
            file.set_enabled("time", false).map(drop),
        ] {
            let message = result.unwrap_err().to_string();
            assert!(
                message.starts_with(&file.path().display().to_string()),
                "{message}"
            );
            assert!(message.contains("nothing was written"), "{message}");
        }
        assert_eq!(text(&file), content);
    }
    assert!(
        file.read()
            .unwrap_err()
            .to_string()
            .starts_with("mcpServers.time.command:")
    );
    assert_eq!(dir_entries(dir.path()), [".mcp.json"]);
}

#[test]
fn bad_input_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = file_in(dir.path());
    std::fs::write(file.path(), HAND_WRITTEN).unwrap();
    let err = file
        .upsert("time", json!({"command": "", "note": 1}), None)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "mcpServers.time.command: must be a non-empty string"
    );
    let err = file
        .upsert_many(vec![
            ("good".into(), json!({"command": "x"})),
            ("bad__id".into(), json!({"command": "x"})),
        ])
        .unwrap_err();
    assert!(err.to_string().starts_with("mcpServers.bad__id:"), "{err}");
    assert_eq!(text(&file), HAND_WRITTEN);
    assert_eq!(dir_entries(dir.path()), [".mcp.json"]);
}

#[test]
fn upsert_many_and_remove() {
    let dir = tempfile::tempdir().unwrap();
    let file = file_in(dir.path());
    std::fs::write(file.path(), HAND_WRITTEN).unwrap();
    file.upsert_many(vec![
        (
            "web".into(),
            json!({"type": "http", "url": "https://other"}),
        ),
        ("fresh".into(), json!({"command": "fresh"})),
    ])
    .unwrap();
    let config = file.read().unwrap();
    let ids: Vec<_> = config.servers.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["fresh", "time", "web"]);
    let doc: serde_json::Value = serde_json::from_str(&text(&file)).unwrap();
    assert_eq!(doc["mcpServers"]["web"]["timeout"], 30);
    assert_eq!(doc["mcpServers"]["web"]["url"], "https://other");

    assert!(file.remove("web").unwrap());
    assert!(!file.remove("web").unwrap());
    let doc: serde_json::Value = serde_json::from_str(&text(&file)).unwrap();
    assert_eq!(doc["zeta"], 1);
    assert_eq!(doc["alpha"], json!({"nested": [1, 2.5, null]}));
    assert_eq!(
        doc["mcpServers"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["fresh", "time"]
    );
    assert_eq!(dir_entries(dir.path()), [".mcp.json"]);
}

#[cfg(unix)]
#[test]
fn a_private_file_stays_private_and_a_link_stays_a_link() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let real_dir = tempfile::tempdir().unwrap();
    let real = real_dir.path().join("mcp.json");
    std::fs::write(&real, "{}\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let file = file_in(dir.path());
    std::os::unix::fs::symlink(&real, file.path()).unwrap();
    file.upsert("time", json!({"command": "uvx"}), None)
        .unwrap();
    assert!(
        std::fs::symlink_metadata(file.path())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(file.read().unwrap().servers.len(), 1);
    let mode = std::fs::metadata(&real).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(dir_entries(real_dir.path()), ["mcp.json"]);
}
