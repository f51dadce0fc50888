//! A tiny stdio MCP server that misbehaves on request, for the MCP client's
//! tests. Plain serde_json over newline-delimited stdin/stdout (no SDK), so
//! it starts in milliseconds and compiles in seconds.
//!
//! Tools: `echo {text}`, `add {a, b}`, `slow {seconds}` (cancellable: on
//! `notifications/cancelled` it writes `cancelled <id>` to stderr and never
//! answers), `image` (one PNG part), `flip` (adds the `flipped` tool and
//! says `notifications/tools/list_changed`), `fail` (`isError: true`),
//! `structured` (`structuredContent` and a text part).
//!
//! Flags: `--crash-after N` (answers N tool calls, then exits with 3 on the
//! next, unanswered), `--hang-init` (never answers `initialize`),
//! `--garbage` (answers every request with a non-JSON line),
//! `--stderr-lines N` (N lines on stderr at start), `--name NAME`.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The version we speak, and answer with unless the client asks for another
/// one we know.
const PROTOCOL_VERSION: &str = "2025-06-18";
const KNOWN_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// A 1×1 transparent PNG.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

#[derive(Debug, Default)]
struct Flags {
    crash_after: Option<u64>,
    hang_init: bool,
    garbage: bool,
    stderr_lines: u64,
    name: Option<String>,
}

fn parse_flags() -> Result<Flags, String> {
    let mut flags = Flags::default();
    let mut args = std::env::args().skip(1);
    let number = |flag: &str, value: Option<String>| {
        value
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or(format!("{flag} needs a number"))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--crash-after" => flags.crash_after = Some(number(&arg, args.next())?),
            "--stderr-lines" => flags.stderr_lines = number(&arg, args.next())?,
            "--hang-init" => flags.hang_init = true,
            "--garbage" => flags.garbage = true,
            "--name" => flags.name = Some(args.next().ok_or("--name needs a value")?),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(flags)
}

/// Writes whole lines to stdout from any thread; a closed stdout means the
/// client is gone, so writing errors are ignored.
#[derive(Clone)]
struct Out(Arc<Mutex<std::io::Stdout>>);

impl Out {
    fn line(&self, line: &str) {
        let Ok(stdout) = self.0.lock() else { return };
        let mut stdout = stdout.lock();
        let _ = writeln!(stdout, "{line}");
        let _ = stdout.flush();
    }

    fn send(&self, message: &Value) {
        self.line(&message.to_string());
    }

    fn result(&self, id: &Value, result: Value) {
        let mut message = json!({"jsonrpc": "2.0", "id": id});
        message["result"] = result;
        self.send(&message);
    }

    fn error(&self, id: &Value, code: i64, message: &str) {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
        );
    }
}

struct Server {
    flags: Flags,
    out: Out,
    tool_calls: u64,
    flipped: bool,
    /// Running `slow` calls by request id (as JSON text): sending ends one.
    slow: Arc<Mutex<HashMap<String, mpsc::Sender<()>>>>,
}

fn main() -> std::process::ExitCode {
    let flags = match parse_flags() {
        Ok(flags) => flags,
        Err(error) => {
            eprintln!("pizza-mcp-test-server: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    for n in 1..=flags.stderr_lines {
        eprintln!("pizza-mcp-test-server: stderr line {n}");
    }
    let mut server = Server {
        flags,
        out: Out(Arc::new(Mutex::new(std::io::stdout()))),
        tool_calls: 0,
        flipped: false,
        slow: Arc::default(),
    };
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(&line) {
            Ok(message) => server.handle(&message),
            Err(_) => server.out.error(&Value::Null, -32700, "parse error"),
        }
    }
    std::process::ExitCode::SUCCESS
}

impl Server {
    fn handle(&mut self, message: &Value) {
        let method = message["method"].as_str().unwrap_or_default();
        let params = &message["params"];
        let Some(id) = message.get("id") else {
            if method == "notifications/cancelled" {
                self.cancel(&params["requestId"]);
            }
            return;
        };
        if method.is_empty() {
            // A response to something we never asked: ignore it.
            return;
        }
        if self.flags.garbage {
            self.out.line("this is not JSON {{{");
            return;
        }
        match method {
            "initialize" if self.flags.hang_init => {}
            "initialize" => self.initialize(id, params),
            "ping" => self.out.result(id, json!({})),
            "tools/list" => self.out.result(id, json!({"tools": self.tools()})),
            "tools/call" => self.call(id, params),
            _ => self
                .out
                .error(id, -32601, &format!("method not found: {method}")),
        }
    }

    fn initialize(&self, id: &Value, params: &Value) {
        let asked = params["protocolVersion"].as_str().unwrap_or_default();
        let version = if KNOWN_VERSIONS.contains(&asked) {
            asked
        } else {
            PROTOCOL_VERSION
        };
        let name = self
            .flags
            .name
            .as_deref()
            .unwrap_or("pizza-mcp-test-server");
        self.out.result(
            id,
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": true}},
                "serverInfo": {"name": name, "version": env!("CARGO_PKG_VERSION")},
                "instructions": format!("Test server {name}."),
            }),
        );
    }

    fn tools(&self) -> Vec<Value> {
        let schema = |properties: Value, required: &[&str]| json!({"type": "object", "properties": properties, "required": required});
        let mut tools = vec![
            json!({"name": "echo", "description": "Returns its text.",
                "inputSchema": schema(json!({"text": {"type": "string"}}), &["text"])}),
            json!({"name": "add", "description": "Adds two numbers.",
                "inputSchema": schema(json!({"a": {"type": "number"}, "b": {"type": "number"}}), &["a", "b"])}),
            json!({"name": "slow", "description": "Answers after some seconds unless cancelled.",
                "inputSchema": schema(json!({"seconds": {"type": "number"}}), &["seconds"])}),
            json!({"name": "image", "description": "Returns a tiny PNG.", "inputSchema": schema(json!({}), &[])}),
            json!({"name": "flip", "description": "Adds the `flipped` tool.", "inputSchema": schema(json!({}), &[])}),
            json!({"name": "fail", "description": "Always fails.", "inputSchema": schema(json!({}), &[])}),
            json!({"name": "structured", "description": "Returns structured content.",
                "inputSchema": schema(json!({}), &[]),
                "outputSchema": schema(json!({"temperature": {"type": "number"}, "unit": {"type": "string"}}), &["temperature", "unit"])}),
        ];
        if self.flipped {
            tools.push(
                json!({"name": "flipped", "description": "Exists after `flip`.",
                "inputSchema": schema(json!({}), &[])}),
            );
        }
        tools
    }

    fn call(&mut self, id: &Value, params: &Value) {
        if self.flags.crash_after.is_some_and(|n| self.tool_calls >= n) {
            eprintln!(
                "pizza-mcp-test-server: crashing after {} tool calls",
                self.tool_calls
            );
            std::process::exit(3);
        }
        self.tool_calls += 1;
        let args = &params["arguments"];
        let text = |text: String| json!({"content": [{"type": "text", "text": text}]});
        let failed =
            |text: String| json!({"content": [{"type": "text", "text": text}], "isError": true});
        let result = match params["name"].as_str().unwrap_or_default() {
            "echo" => match args["text"].as_str() {
                Some(t) => text(t.to_owned()),
                None => failed("echo needs a string `text`".to_owned()),
            },
            "add" => match (args["a"].as_f64(), args["b"].as_f64()) {
                (Some(a), Some(b)) => text(format!("{}", a + b)),
                _ => failed("add needs numbers `a` and `b`".to_owned()),
            },
            "slow" => return self.slow(id, args["seconds"].as_f64().unwrap_or(1.0)),
            "image" => {
                json!({"content": [{"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}]})
            }
            "flip" => {
                self.flipped = true;
                self.out
                    .send(&json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
                text("flipped".to_owned())
            }
            "flipped" if self.flipped => text("you found it".to_owned()),
            "fail" => failed("this tool always fails".to_owned()),
            "structured" => {
                let value = json!({"temperature": 21.5, "unit": "C"});
                json!({"content": [{"type": "text", "text": value.to_string()}], "structuredContent": value})
            }
            other => {
                return self
                    .out
                    .error(id, -32602, &format!("unknown tool: {other}"));
            }
        };
        self.out.result(id, result);
    }

    /// Answers after `seconds` on its own thread, so stdin (and a
    /// cancellation) keeps being read meanwhile.
    fn slow(&self, id: &Value, seconds: f64) {
        let (cancel_tx, cancel_rx) = mpsc::channel();
        let key = id.to_string();
        let shown = id.as_str().map_or_else(|| key.clone(), str::to_owned);
        if let Ok(mut slow) = self.slow.lock() {
            slow.insert(key.clone(), cancel_tx);
        }
        let (out, slow, id) = (self.out.clone(), Arc::clone(&self.slow), id.clone());
        std::thread::spawn(move || {
            match cancel_rx.recv_timeout(Duration::from_secs_f64(seconds.max(0.0))) {
                Ok(()) => eprintln!("cancelled {shown}"),
                Err(_) => {
                    if let Ok(mut slow) = slow.lock() {
                        slow.remove(&key);
                    }
                    out.result(&id, json!({"content": [{"type": "text", "text": format!("slept {seconds} s")}]}));
                }
            }
        });
    }

    fn cancel(&self, request_id: &Value) {
        let sender = self
            .slow
            .lock()
            .ok()
            .and_then(|mut slow| slow.remove(&request_id.to_string()));
        if let Some(sender) = sender {
            let _ = sender.send(());
        }
    }
}
