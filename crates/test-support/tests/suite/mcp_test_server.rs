//! The misbehaving MCP test server, driven over real pipes.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_pizza-mcp-test-server");

struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: BufReader<ChildStderr>,
}

impl Session {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Self {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            stderr: BufReader::new(child.stderr.take().unwrap()),
            child,
        }
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        line
    }

    fn read(&mut self) -> Value {
        serde_json::from_str(&self.line()).unwrap()
    }

    fn request(&mut self, id: u64, method: &str, params: &Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.read()
    }

    fn call(&mut self, id: u64, name: &str, arguments: &Value) -> Value {
        self.request(
            id,
            "tools/call",
            &json!({"name": name, "arguments": arguments}),
        )["result"]
            .clone()
    }

    fn initialize(&mut self, version: &str) -> Value {
        let answer = self.request(
            0,
            "initialize",
            &json!({"protocolVersion": version, "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer["result"].clone()
    }

    fn stderr_line(&mut self) -> String {
        let mut line = String::new();
        self.stderr.read_line(&mut line).unwrap();
        line.trim_end().to_owned()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn initialize_names_the_server_and_echoes_a_known_version() {
    let mut session = Session::start(&["--name", "alpha"]);
    let result = session.initialize("2025-03-26");
    assert_eq!(result["protocolVersion"], "2025-03-26");
    assert_eq!(result["serverInfo"]["name"], "alpha");
    assert_eq!(result["instructions"], "Test server alpha.");

    let mut session = Session::start(&[]);
    assert_eq!(
        session.initialize("1999-01-01")["protocolVersion"],
        "2025-06-18"
    );
}

#[test]
fn tools_answer_and_flip_changes_the_list() {
    let mut session = Session::start(&[]);
    session.initialize("2025-06-18");
    let names = |list: &Value| -> Vec<String> {
        list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let before = session.request(1, "tools/list", &json!({}));
    assert_eq!(
        names(&before),
        ["echo", "add", "slow", "image", "flip", "fail", "structured"]
    );

    assert_eq!(
        session.call(2, "echo", &json!({"text": "hi"})),
        json!({"content": [{"type": "text", "text": "hi"}]})
    );
    assert_eq!(
        session.call(3, "add", &json!({"a": 2, "b": 3}))["content"][0]["text"],
        "5"
    );
    assert_eq!(session.call(4, "fail", &json!({}))["isError"], true);
    let structured = session.call(5, "structured", &json!({}));
    assert_eq!(
        structured["structuredContent"],
        json!({"temperature": 21.5, "unit": "C"})
    );
    assert_eq!(structured["content"][0]["type"], "text");
    let image = session.call(6, "image", &json!({}));
    assert_eq!(image["content"][0]["mimeType"], "image/png");
    assert!(
        image["content"][0]["data"]
            .as_str()
            .unwrap()
            .starts_with("iVBORw0KGgo")
    );

    session.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "flip", "arguments": {}}}));
    assert_eq!(
        session.read(),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    assert_eq!(session.read()["id"], 7);
    let after = session.request(8, "tools/list", &json!({}));
    assert_eq!(names(&after).last().map(String::as_str), Some("flipped"));
}

#[test]
fn a_cancelled_slow_call_is_never_answered() {
    let mut session = Session::start(&[]);
    session.initialize("2025-06-18");
    session.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"seconds": 30}}}));
    session.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1}}),
    );
    assert_eq!(session.stderr_line(), "cancelled 1");
    // The next answer is the ping's: the slow call's never comes.
    assert_eq!(session.request(2, "ping", &json!({}))["id"], 2);

    session.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"seconds": 0.01}}}));
    assert_eq!(
        session.read()["result"]["content"][0]["text"],
        "slept 0.01 s"
    );
}

#[test]
fn crash_after_exits_with_3_on_the_next_call() {
    let mut session = Session::start(&["--crash-after", "1"]);
    session.initialize("2025-06-18");
    assert_eq!(
        session.call(1, "echo", &json!({"text": "a"}))["content"][0]["text"],
        "a"
    );
    session.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "b"}}}));
    assert_eq!(session.line(), "", "no answer, only the end of stdout");
    assert_eq!(session.child.wait().unwrap().code(), Some(3));
}

#[test]
fn garbage_stderr_lines_and_hang_init() {
    let mut session = Session::start(&["--garbage", "--stderr-lines", "2"]);
    assert_eq!(
        session.stderr_line(),
        "pizza-mcp-test-server: stderr line 1"
    );
    assert_eq!(
        session.stderr_line(),
        "pizza-mcp-test-server: stderr line 2"
    );
    session.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}));
    let line = session.line();
    assert!(serde_json::from_str::<Value>(&line).is_err(), "{line:?}");

    // A hung initialize still answers pings, so the silence is deliberate.
    let mut session = Session::start(&["--hang-init"]);
    session.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}));
    assert_eq!(session.request(1, "ping", &json!({}))["id"], 1);
}
