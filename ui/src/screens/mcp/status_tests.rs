use super::*;
use pizza_protocol::McpTransportKind;
use pretty_assertions::assert_eq;

fn server(id: &str, status: McpStatus) -> McpServerView {
    McpServerView {
        id: id.to_owned(),
        transport: McpTransportKind::Stdio,
        enabled: status != McpStatus::Disabled,
        status,
        command: Some("npx".into()),
        args: Vec::new(),
        cwd: None,
        url: None,
        env: Vec::new(),
        headers: Vec::new(),
        tools: Vec::new(),
        stderr: Vec::new(),
        instructions: None,
        plugin: None,
    }
}

fn error(message: &str) -> McpStatus {
    McpStatus::Error {
        message: message.to_owned(),
    }
}

#[test]
fn the_summary_counts_what_needs_attention() {
    assert_eq!(summary(&[]), None);
    let connected: Vec<_> = ["a", "b", "c"]
        .into_iter()
        .map(|id| server(id, McpStatus::Connected))
        .collect();
    assert_eq!(
        summary(&connected),
        Some((Health::Ok, "3 servers connected".to_owned()))
    );
    let mut mixed = connected.clone();
    mixed.push(server("d", error("command not found: x")));
    assert_eq!(
        summary(&mixed),
        Some((Health::Error, "4 servers · 1 error".to_owned()))
    );
    let waiting = vec![
        server("a", McpStatus::Connected),
        server("b", McpStatus::Loading),
        server("c", McpStatus::Disabled),
    ];
    assert_eq!(
        summary(&waiting),
        Some((
            Health::Degraded,
            "3 servers · 1 connecting · 1 off".to_owned()
        ))
    );
    assert_eq!(
        summary(&[server("a", McpStatus::Disabled)]),
        Some((Health::Ok, "1 server · 1 off".to_owned()))
    );
}

#[test]
fn statuses_read_as_sentences() {
    let mut up = server("time", McpStatus::Connected);
    assert_eq!(sentence(&up), "Connected · 0 tools.");
    up.tools.push(pizza_protocol::McpToolView {
        name: "now".into(),
        qualified_name: "time__now".into(),
        description: String::new(),
        input_schema: "{}".into(),
        changed: None,
    });
    assert_eq!(sentence(&up), "Connected · 1 tool.");
    assert_eq!(
        sentence(&server("x", error("command not found: x."))),
        "Can’t connect: command not found: x."
    );
    assert_eq!(
        sentence(&server(
            "x",
            McpStatus::Retrying {
                attempt: 2,
                message: "exited with code 1".into()
            }
        )),
        "Could not connect: exited with code 1. Trying again (attempt 2)…"
    );
    assert_eq!(state_name(&McpStatus::Disabled), "disabled");
    assert!(can_reconnect(&error("x")));
    assert!(!can_reconnect(&McpStatus::Connected));
}
