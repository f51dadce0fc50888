use super::*;
use pizza_protocol::{McpStatus, REDACTED};
use pretty_assertions::assert_eq;

fn saved_server() -> McpServerView {
    McpServerView {
        id: "files".into(),
        transport: McpTransportKind::Stdio,
        enabled: false,
        status: McpStatus::Disabled,
        command: Some("npx".into()),
        args: vec![
            "-y".into(),
            "@modelcontextprotocol/server-filesystem".into(),
        ],
        cwd: None,
        url: None,
        env: vec![McpKeyValue {
            name: "TOKEN".into(),
            value: REDACTED.into(),
            secret: true,
        }],
        headers: Vec::new(),
        tools: Vec::new(),
        stderr: Vec::new(),
        instructions: None,
        plugin: None,
    }
}

#[test]
fn an_edit_keeps_saved_values_unless_typed() {
    let mut draft = ServerDraft::of_saved(&saved_server());
    assert_eq!(draft.env[0].value, "", "a saved value is never shown");
    assert_eq!(draft.args, "-y\n@modelcontextprotocol/server-filesystem");
    draft.args.push_str("\n\n  /tmp/my notes  \n");
    draft.env.push(KeyValueDraft {
        name: " LANG ".into(),
        value: "fr".into(),
        ..KeyValueDraft::default()
    });
    draft.env.push(KeyValueDraft::default());
    let entry = draft.to_entry();
    assert_eq!(
        entry,
        McpServerEntry {
            transport: McpTransportKind::Stdio,
            command: "npx".into(),
            args: vec![
                "-y".into(),
                "@modelcontextprotocol/server-filesystem".into(),
                "/tmp/my notes".into()
            ],
            cwd: None,
            url: String::new(),
            env: vec![
                McpEntryValue {
                    name: "TOKEN".into(),
                    value: None,
                    secret: true
                },
                McpEntryValue {
                    name: "LANG".into(),
                    value: Some("fr".into()),
                    secret: false
                },
            ],
            headers: Vec::new(),
            enabled: false,
        }
    );
    draft.env[0].value = "new-token".into();
    assert_eq!(draft.to_entry().env[0].value.as_deref(), Some("new-token"));
}

#[test]
fn refusals_name_their_field() {
    assert_eq!(
        field_of("url: must start with http:// or https://"),
        Some("url")
    );
    assert_eq!(field_of("env.TOKEN: the name has a space"), Some("env"));
    assert_eq!(field_of("headers[0].name: empty"), Some("headers"));
    assert_eq!(field_of("id: a server named time exists"), Some("id"));
    assert_eq!(field_of("Something went wrong"), None);
    assert_eq!(field_of("The file: could not be written"), None);
    assert_eq!(
        transport_of(transport_value(McpTransportKind::Sse)),
        McpTransportKind::Sse
    );
}
