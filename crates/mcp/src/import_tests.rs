use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

/// What Claude Desktop writes, with its other settings around the servers.
const CLAUDE_DESKTOP: &str = r#"{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop", "/Users/me/My Files"]
    },
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secretvalue"}
    },
    "remote": {
      "type": "streamable-http",
      "url": "https://me:hunter2@mcp.example.com/mcp?x=1",
      "headers": {"Authorization": "Bearer abc"}
    }
  },
  "preferences": {"menuBarEnabled": false}
}"#;

#[test]
fn imports_a_claude_desktop_config() {
    let candidates = import_candidates(CLAUDE_DESKTOP, None).unwrap();
    let ids: Vec<_> = candidates.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["filesystem", "github", "remote"]);
    let github = &candidates[1];
    assert_eq!(github.config.id, "github");
    assert!(github.config.enabled);
    assert_eq!(
        github.entry["env"],
        json!({"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secretvalue"})
    );
    let summaries: Vec<_> = candidates
        .iter()
        .map(|c| summary(&c.config.transport))
        .collect();
    assert_eq!(
        summaries,
        [
            "npx -y @modelcontextprotocol/server-filesystem /Users/me/Desktop \"/Users/me/My Files\"",
            "docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN ghcr.io/github/github-mcp-server",
            "https://me@mcp.example.com/mcp?x=1",
        ]
    );
    for line in &summaries {
        assert!(!line.contains("ghp_") && !line.contains("abc") && !line.contains("hunter2"));
    }
    // The entries are what an import writes, and read back the same.
    let dir = tempfile::tempdir().unwrap();
    let file = crate::ConfigFile::new(dir.path());
    file.upsert_many(
        candidates
            .iter()
            .map(|c| (c.id.clone(), c.entry.clone()))
            .collect(),
    )
    .unwrap();
    let read: Vec<_> = file.read().unwrap().servers;
    let parsed: Vec<_> = candidates.into_iter().map(|c| c.config).collect();
    assert_eq!(read, parsed);
}

#[test]
fn imports_the_servers_object_itself() {
    let candidates = import_candidates(
        r#"{"b": {"url": "https://b"}, "a": {"command": "a"}}"#,
        None,
    )
    .unwrap();
    assert_eq!(candidates.len(), 2);
    assert_eq!(candidates[0].id, "a");
    assert_eq!(
        candidates[1].config.transport,
        ServerTransport::Http {
            url: "https://b".into(),
            headers: BTreeMap::new()
        }
    );
    assert_eq!(import_candidates("{}", None).unwrap(), vec![]);
}

#[test]
fn imports_a_bare_entry_under_the_given_name() {
    let entry = r#"{"command": "uvx", "args": ["mcp-server-time"], "enabled": false}"#;
    let candidates = import_candidates(entry, Some("time")).unwrap();
    assert_eq!(candidates.len(), 1);
    assert_eq!(candidates[0].id, "time");
    assert!(!candidates[0].config.enabled);
    assert_eq!(
        summary(&candidates[0].config.transport),
        "uvx mcp-server-time"
    );

    let url = import_candidates(r#"{"type": "sse", "url": "https://s/sse"}"#, Some("s")).unwrap();
    assert!(matches!(
        url[0].config.transport,
        ServerTransport::Sse { .. }
    ));

    for id in [None, Some(""), Some("  ")] {
        assert_eq!(
            import_candidates(entry, id).unwrap_err().to_string(),
            "id: name the server"
        );
    }
    assert!(
        import_candidates(entry, Some("bad id"))
            .unwrap_err()
            .to_string()
            .starts_with("mcpServers.bad id:")
    );
}

#[test]
fn garbage_is_refused_naming_the_field() {
    let cases = [
        ("", "json: there is nothing to import"),
        ("not json", "json: not valid JSON"),
        ("[{\"command\": \"x\"}]", "json: must be a JSON object"),
        ("\"text\"", "json: must be a JSON object"),
        (r#"{"mcpServers": [1]}"#, "mcpServers: must be an object"),
        (
            r#"{"mcpServers": {"x": {"args": []}}}"#,
            "mcpServers.x: needs a command or a url",
        ),
        (r#"{"x": "npx"}"#, "mcpServers.x: must be an object"),
        (
            r#"{"mcpServers": {"x": {"command": "npx", "env": {"A": 1}}}}"#,
            "mcpServers.x.env.A: must be a string",
        ),
    ];
    for (text, expected) in cases {
        let message = import_candidates(text, Some("id")).unwrap_err().to_string();
        assert!(message.starts_with(expected), "{text}: {message}");
    }
}

#[test]
fn summaries_quote_and_hide() {
    let t = ServerTransport::Stdio {
        command: "node".into(),
        args: vec!["".into(), "say \"hi\"".into()],
        env: BTreeMap::from([("SECRET".into(), "value".into())]),
        cwd: Some("/x".into()),
    };
    assert_eq!(summary(&t), r#"node "" "say \"hi\"""#);
    let plain = ServerTransport::Http {
        url: "https://host/mcp".into(),
        headers: BTreeMap::from([("Authorization".into(), "Bearer x".into())]),
    };
    assert_eq!(summary(&plain), "https://host/mcp");
}

#[test]
fn claude_desktop_lives_where_each_os_puts_it() {
    let vars = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    };
    let home = &[("HOME", "/home/me")];
    let xdg = &[("HOME", "/home/me"), ("XDG_CONFIG_HOME", "/cfg")];
    let relative_xdg = &[("HOME", "/home/me"), ("XDG_CONFIG_HOME", "cfg")];
    let file = "claude_desktop_config.json";
    assert_eq!(
        desktop_config_path_for("linux", vars(home)),
        Some(PathBuf::from(format!("/home/me/.config/Claude/{file}")))
    );
    assert_eq!(
        desktop_config_path_for("linux", vars(xdg)),
        Some(PathBuf::from(format!("/cfg/Claude/{file}")))
    );
    assert_eq!(
        desktop_config_path_for("linux", vars(relative_xdg)),
        Some(PathBuf::from(format!("/home/me/.config/Claude/{file}")))
    );
    assert_eq!(
        desktop_config_path_for("macos", vars(home)),
        Some(PathBuf::from(format!(
            "/home/me/Library/Application Support/Claude/{file}"
        )))
    );
    assert_eq!(desktop_config_path_for("linux", vars(&[])), None);
    assert_eq!(desktop_config_path_for("windows", vars(home)), None);
    #[cfg(windows)]
    assert_eq!(
        desktop_config_path_for(
            "windows",
            vars(&[("APPDATA", r"C:\Users\me\AppData\Roaming")])
        ),
        Some(PathBuf::from(format!(
            r"C:\Users\me\AppData\Roaming\Claude\{file}"
        )))
    );
    assert!(claude_desktop_config_path().is_none_or(|p| p.ends_with(format!("Claude/{file}"))));
}
