use pizza_extensions::{BuiltinToolResolver, McpToolMatch, Resolution, ToolRef, ToolResolver};
use pretty_assertions::assert_eq;

fn mcp(server: &str, tool: McpToolMatch) -> ToolRef {
    ToolRef::Mcp {
        server: server.to_owned(),
        tool,
    }
}

#[test]
fn refs_parse_and_print_back() {
    let cases = [
        ("read_file", ToolRef::Builtin("read_file".to_owned())),
        ("eval", ToolRef::Builtin("eval".to_owned())),
        (
            "mcp:github:create_issue",
            mcp("github", McpToolMatch::Exact("create_issue".to_owned())),
        ),
        ("mcp:github:*", mcp("github", McpToolMatch::All)),
        (
            "mcp:my.files-2:read_*",
            mcp("my.files-2", McpToolMatch::Prefix("read_".to_owned())),
        ),
    ];
    for (text, expected) in cases {
        let parsed = ToolRef::parse(text).unwrap();
        assert_eq!(parsed, expected);
        assert_eq!(parsed.to_string(), text);
    }
    assert_eq!(ToolRef::parse(" ls ").unwrap().mcp_server(), None);
    assert_eq!(ToolRef::parse("mcp:gh:*").unwrap().mcp_server(), Some("gh"));
}

#[test]
fn malformed_refs_are_refused_with_a_reason() {
    for bad in [
        "",
        "bash",
        "mcp:x",
        "mcp:",
        "mcp::tool",
        "mcp:x:",
        "mcp:x:a*b",
        "mcp:x:*a",
        "mcp:x:a**",
        "mcp:bad server:t",
        "mcp:x:a b",
        "mcp:x:a:b",
    ] {
        let err = ToolRef::parse(bad).expect_err(bad);
        assert!(!err.is_empty());
    }
    assert!(
        ToolRef::parse("mcp:x")
            .unwrap_err()
            .contains("mcp:<server>:<tool>")
    );
    assert!(
        ToolRef::parse("mcp:x:a*b")
            .unwrap_err()
            .contains("only come last")
    );
}

#[test]
fn wildcards_expand_against_a_servers_tools_and_an_empty_match_is_unavailable() {
    let tools = ["read_file", "read_dir", "write_file"];
    let expand = |text: &str| ToolRef::parse(text).unwrap().resolve_in(tools);
    assert_eq!(
        expand("mcp:fs:*"),
        Resolution::Ready(vec![
            "read_dir".into(),
            "read_file".into(),
            "write_file".into()
        ])
    );
    assert_eq!(
        expand("mcp:fs:read_*"),
        Resolution::Ready(vec!["read_dir".into(), "read_file".into()])
    );
    assert_eq!(
        expand("mcp:fs:write_file"),
        Resolution::Ready(vec!["write_file".into()])
    );
    assert_eq!(
        expand("mcp:fs:delete_*"),
        Resolution::Unavailable("mcp:fs:delete_* matches no tool of MCP server fs".into())
    );
    assert_eq!(
        expand("mcp:fs:delete"),
        Resolution::Unavailable("MCP server fs has no tool delete".into())
    );
    assert_eq!(
        ToolRef::parse("mcp:fs:*").unwrap().resolve_in([]),
        Resolution::Unavailable("MCP server fs offers no tools".into())
    );
}

#[test]
fn the_default_resolver_has_the_filesystem_tools_and_no_mcp_server() {
    let resolver = BuiltinToolResolver::default();
    let resolve = |text: &str| resolver.resolve(&ToolRef::parse(text).unwrap());
    assert_eq!(resolve("grep"), Resolution::Ready(vec!["grep".into()]));
    assert_eq!(
        resolve("mcp:github:*"),
        Resolution::Unavailable("MCP server github is not configured".into())
    );
    assert!(matches!(resolve("eval"), Resolution::Unavailable(_)));
    let with_eval = BuiltinToolResolver::with_builtins(["eval"]);
    assert_eq!(
        with_eval.resolve(&ToolRef::parse("eval").unwrap()),
        Resolution::Ready(vec!["eval".into()])
    );
}
