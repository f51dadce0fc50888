use pizza_extensions::{
    DESCRIPTION_MAX_CHARS, Decision, InterruptRule, McpToolMatch, ToolRef, parse_skill_md,
};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{assert_invalid, skill_md};

fn builtin(name: &str) -> ToolRef {
    ToolRef::Builtin(name.to_owned())
}

#[test]
fn a_full_skill_md_parses_with_every_field() {
    let text = "\u{feff}---\r\nname: pdf-report\r\ndescription: >\r\n  Turns notes into a PDF report; returns its path.\r\nmetadata:\r\n  display-name: PDF report\r\n  author: me\r\ntools:\r\n  - read_file\r\n  - write_file\r\n  - mcp:github:*\r\n  - read_file\r\ninterruptOn:\r\n  write_file: true\r\n  mcp:github:create_issue:\r\n    allowedDecisions: [approve, reject]\r\n  grep: false\r\nlicense: MIT\r\nallowed-tools: Bash\r\n---\r\n\r\n# Report\r\n\r\nRead the notes.\r\n";
    let m = parse_skill_md(text, "pdf-report").unwrap();
    assert_eq!(m.name, "pdf-report");
    assert_eq!(
        m.description,
        "Turns notes into a PDF report; returns its path."
    );
    assert_eq!(m.display_name.as_deref(), Some("PDF report"));
    assert_eq!(m.shown_name(), "PDF report");
    assert_eq!(
        m.tools,
        vec![
            builtin("read_file"),
            builtin("write_file"),
            ToolRef::Mcp {
                server: "github".to_owned(),
                tool: McpToolMatch::All
            },
        ]
    );
    assert_eq!(
        m.interrupt_on,
        vec![
            InterruptRule {
                tool: ToolRef::Mcp {
                    server: "github".to_owned(),
                    tool: McpToolMatch::Exact("create_issue".to_owned())
                },
                allowed_decisions: vec![Decision::Approve, Decision::Reject],
            },
            InterruptRule {
                tool: builtin("write_file"),
                allowed_decisions: Decision::ALL.to_vec(),
            },
        ]
    );
    assert_eq!(m.metadata.get("author"), Some(&json!("me")));
    assert_eq!(
        serde_json::Value::Object(m.extra.clone()),
        json!({"license": "MIT", "allowed-tools": "Bash"})
    );
    assert_eq!(m.body, "# Report\r\n\r\nRead the notes.");
}

#[test]
fn tools_may_be_a_comma_string_and_mcp_is_its_alias() {
    let m = parse_skill_md(
        &skill_md("a", "tools: ls, grep ,glob\nmcp: mcp:files:read_*\n"),
        "a",
    )
    .unwrap();
    assert_eq!(
        m.tools,
        vec![
            builtin("ls"),
            builtin("grep"),
            builtin("glob"),
            ToolRef::Mcp {
                server: "files".to_owned(),
                tool: McpToolMatch::Prefix("read_".to_owned())
            },
        ]
    );
    let m = parse_skill_md(&skill_md("a", ""), "a").unwrap();
    assert_eq!(
        (m.tools, m.interrupt_on, m.display_name),
        (vec![], vec![], None)
    );
}

#[test]
fn every_bad_input_names_its_field() {
    let long = "x".repeat(DESCRIPTION_MAX_CHARS + 1);
    let just_right = "y".repeat(DESCRIPTION_MAX_CHARS);
    assert!(
        parse_skill_md(
            &format!("---\nname: a\ndescription: {just_right}\n---\nbody\n"),
            "a"
        )
        .is_ok()
    );
    let cases: Vec<(String, &str, &str)> = vec![
        ("no front matter\n".into(), "a", "front matter"),
        ("---\nname: a\ndescription: d\nbody\n".into(), "a", "front matter"),
        ("---\nname: [a\n---\nbody\n".into(), "a", "front matter"),
        ("---\n- a list\n---\nbody\n".into(), "a", "front matter"),
        ("---\n---\nbody\n".into(), "a", "front matter"),
        ("---\ndescription: d\n---\nbody\n".into(), "a", "name"),
        ("---\nname: 7\ndescription: d\n---\nbody\n".into(), "7", "name"),
        ("---\nname: Bad_Name\ndescription: d\n---\nbody\n".into(), "Bad_Name", "name"),
        ("---\nname: a--b\ndescription: d\n---\nbody\n".into(), "a--b", "name"),
        ("---\nname: -a\ndescription: d\n---\nbody\n".into(), "-a", "name"),
        (format!("---\nname: {}\ndescription: d\n---\nbody\n", "a".repeat(65)), "a", "name"),
        ("---\nname: other\ndescription: d\n---\nbody\n".into(), "a", "name"),
        ("---\nname: a\n---\nbody\n".into(), "a", "description"),
        ("---\nname: a\ndescription: '  '\n---\nbody\n".into(), "a", "description"),
        ("---\nname: a\ndescription: [x]\n---\nbody\n".into(), "a", "description"),
        (format!("---\nname: a\ndescription: {long}\n---\nbody\n"), "a", "description"),
        ("---\nname: a\ndescription: d\n---\n  \n\n".into(), "a", "body"),
        ("---\nname: a\ndescription: d\n---".into(), "a", "body"),
        ("---\nname: a\ndescription: d\nmetadata: 3\n---\nbody\n".into(), "a", "metadata"),
        (
            "---\nname: a\ndescription: d\nmetadata:\n  display-name: [x]\n---\nbody\n".into(),
            "a",
            "metadata.display-name",
        ),
        ("---\nname: a\ndescription: d\ntools: 5\n---\nbody\n".into(), "a", "tools"),
        ("---\nname: a\ndescription: d\ntools: [ls, grep, mcp:x]\n---\nbody\n".into(), "a", "tools[2]"),
        ("---\nname: a\ndescription: d\ntools: [mcp:x:a*b]\n---\nbody\n".into(), "a", "tools[0]"),
        ("---\nname: a\ndescription: d\ntools: [mcp:x:**]\n---\nbody\n".into(), "a", "tools[0]"),
        ("---\nname: a\ndescription: d\ntools: ls, bash\n---\nbody\n".into(), "a", "tools[1]"),
        ("---\nname: a\ndescription: d\ntools: [ls, 3]\n---\nbody\n".into(), "a", "tools[1]"),
        ("---\nname: a\ndescription: d\nmcp: [mcp::t]\n---\nbody\n".into(), "a", "mcp[0]"),
        ("---\nname: a\ndescription: d\ninterruptOn: [ls]\n---\nbody\n".into(), "a", "interruptOn"),
        ("---\nname: a\ndescription: d\ninterruptOn:\n  mcp:x: true\n---\nbody\n".into(), "a", "interruptOn.mcp:x"),
        ("---\nname: a\ndescription: d\ninterruptOn:\n  ls: yes please\n---\nbody\n".into(), "a", "interruptOn.ls"),
        ("---\nname: a\ndescription: d\ninterruptOn:\n  ls: {}\n---\nbody\n".into(), "a", "interruptOn.ls.allowedDecisions"),
        (
            "---\nname: a\ndescription: d\ninterruptOn:\n  ls:\n    allowedDecisions: [approve, maybe]\n---\nbody\n".into(),
            "a",
            "interruptOn.ls.allowedDecisions[1]",
        ),
    ];
    for (text, folder, field) in cases {
        let err = parse_skill_md(&text, folder).expect_err(&text);
        let message = assert_invalid(&err, field);
        assert!(message.starts_with(&format!("{field}: ")), "{message}");
    }
}

#[test]
fn a_yaml_alias_bomb_is_refused_not_expanded() {
    let mut text =
        String::from("---\nname: a\ndescription: d\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        text.push_str(&format!(
            "l{i}: &l{i} [*l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}]\n"
        ));
    }
    text.push_str("---\nbody\n");
    let err = parse_skill_md(&text, "a").unwrap_err();
    assert_invalid(&err, "front matter");
}
