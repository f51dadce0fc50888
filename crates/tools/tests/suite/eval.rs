//! `eval` through the real tool and a real worker process: the bridges to
//! the file tools (paging, gates, grants), `task()`, and the attack corpus.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pizza_tools::{
    Access, CancellationToken, CompositeFs, EvalLimits, EvalTool, Grant, Mounts, NestedCalls,
    NestedGate, Sandbox, ThreadFiles, Tool, ToolContext, ToolError, ToolOutput, Unattended,
    WorkerCommand,
};
use serde_json::{Value, json};

fn worker() -> WorkerCommand {
    WorkerCommand::test_worker()
        .expect("the pizza-eval-worker binary is built (cargo test --workspace builds it)")
}

fn eval_tool(timeout_secs: u64) -> EvalTool {
    let tool = EvalTool::new(Sandbox::new(worker(), EvalLimits::default()));
    tool.set_timeout_secs(timeout_secs);
    tool
}

struct Thread {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    files: ThreadFiles,
}

impl Thread {
    fn new(files: &[(&str, String)]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("ro")).unwrap();
        std::fs::create_dir_all(root.join("rw")).unwrap();
        std::fs::write(root.join("ro/data.csv"), "a,1\nb,2\nc,3\n").unwrap();
        let files = ThreadFiles::new(
            files
                .iter()
                .map(|(path, text)| ((*path).to_owned(), text.clone()))
                .collect::<BTreeMap<_, _>>(),
        );
        Self {
            _tmp: tmp,
            root,
            files,
        }
    }

    fn ctx(&self, nested: Arc<dyn NestedCalls>) -> ToolContext {
        let grant = |id: &str, access| Grant {
            id: id.to_owned(),
            path: self.root.join(id),
            access,
        };
        let mounts = Mounts {
            grants: vec![
                grant("ro", Access::ReadOnly),
                grant("rw", Access::ReadWrite),
            ],
            memories: None,
        };
        ToolContext {
            thread_id: "t".into(),
            call_id: "c".into(),
            fs: Arc::new(CompositeFs::new(self.files.clone(), Arc::new(mounts))),
            nested: Some(nested),
        }
    }
}

async fn run(tool: &EvalTool, ctx: &ToolContext, code: &str) -> Result<ToolOutput, ToolError> {
    tool.call(ctx, json!({ "code": code }), CancellationToken::new())
        .await
}

async fn ok(tool: &EvalTool, ctx: &ToolContext, code: &str) -> String {
    let output = run(tool, ctx, code).await.unwrap();
    assert!(!output.is_error, "{code}\n→ {}", output.to_text());
    output.to_text()
}

async fn error(tool: &EvalTool, ctx: &ToolContext, code: &str) -> String {
    let output = run(tool, ctx, code).await.unwrap();
    assert!(output.is_error, "{code}\n→ {}", output.to_text());
    output.to_text()
}

fn unattended(key: &str) -> Arc<dyn NestedCalls> {
    Arc::new(Unattended::new(key))
}

#[tokio::test]
async fn a_program_pages_a_5_mb_file_and_returns_only_a_count() {
    let line = "2026-12-01 INFO request served in 12 ms\n";
    let mut big = line.repeat(5 * 1024 * 1024 / line.len());
    big.push_str("2026-12-01 ERROR disk full\n");
    let thread = Thread::new(&[("/logs/app.log", big.clone())]);
    let tool = eval_tool(60);
    let ctx = thread.ctx(unattended("paging"));
    let result = ok(
        &tool,
        &ctx,
        r#"
        let offset = 0, lines = 0, errors = 0;
        for (;;) {
            const page = await tools.readFile({ file_path: "/logs/app.log", offset, limit: 20000 });
            if (page === "") break;
            const rows = page.split("\n").filter(Boolean);
            lines += rows.length;
            errors += rows.filter(r => r.includes(" ERROR ")).length;
            offset += 20000;
        }
        return { lines, errors };
        "#,
    )
    .await;
    let expected = json!({ "lines": big.lines().count(), "errors": 1 });
    assert_eq!(serde_json::from_str::<Value>(&result).unwrap(), expected);
    // The distillate is all that comes back, never the file.
    assert!(result.len() < 100, "{result}");
}

#[tokio::test]
async fn a_page_over_the_cap_throws_naming_a_limit_that_fits() {
    let thread = Thread::new(&[("/wide.txt", format!("{}\n", "x".repeat(1000)).repeat(3000))]);
    let tool = eval_tool(60);
    let ctx = thread.ctx(unattended("cap"));
    let thrown = ok(
        &tool,
        &ctx,
        r#"try { await tools.readFile({ file_path: "/wide.txt", limit: 3000 }); return "read"; }
           catch (e) { return e.message; }"#,
    )
    .await;
    assert!(
        thrown.contains("read from offset 0 with a limit of 1047"),
        "{thrown}"
    );
    // Raw content: no line numbers, no header.
    let raw = ok(
        &tool,
        &ctx,
        r#"(await tools.readFile({ filePath: "/wide.txt", offset: 2999, limit: 5 })).length"#,
    )
    .await;
    assert_eq!(raw, "1001");
}

#[tokio::test]
async fn bridges_keep_the_grants_and_the_approval_gate() {
    let thread = Thread::new(&[("/notes.md", "one\n".to_owned())]);
    let tool = eval_tool(60);
    let ctx = thread.ctx(unattended("gates"));
    // Reads reach granted folders like read_file does.
    let listed = ok(&tool, &ctx, r#"await tools.ls("/local/ro")"#).await;
    assert!(listed.contains("/local/ro/data.csv"), "{listed}");
    // The thread's own files are written without asking.
    ok(
        &tool,
        &ctx,
        r#"await tools.writeFile({ file_path: "/out.md", content: "made" });
           await tools.editFile({ file_path: "/notes.md", old_string: "one", new_string: "two" })"#,
    )
    .await;
    let files = thread.files.snapshot();
    assert_eq!(files.get("/out.md").map(String::as_str), Some("made"));
    assert_eq!(files.get("/notes.md").map(String::as_str), Some("two\n"));
    // A write that would ask is refused, pointing at the tool itself.
    let asked = error(
        &tool,
        &ctx,
        r#"await tools.writeFile({ file_path: "/local/rw/a.md", content: "x" })"#,
    )
    .await;
    assert!(asked.contains("needs the person's approval"), "{asked}");
    assert!(asked.contains("write_file tool directly"), "{asked}");
    assert!(!thread.root.join("rw/a.md").exists());
    // A read-only grant refuses the write with the tools' own sentence.
    let allowed: Arc<dyn NestedCalls> = Arc::new(AllowAll);
    let refused = error(
        &tool,
        &thread.ctx(allowed),
        r#"await tools.writeFile({ file_path: "/local/ro/new.md", content: "x" })"#,
    )
    .await;
    assert!(refused.contains("read-only"), "{refused}");
    assert!(!thread.root.join("ro/new.md").exists());
    // Paths outside the view are refused as the tools refuse them.
    for path in [
        "/local/../etc/passwd",
        "/local/nope/x",
        "/%2e%2e/secret",
        "relative.md",
    ] {
        let text = ok(
            &tool,
            &ctx,
            &format!(
                "try {{ await tools.readFile({path:?}); return 'read'; }} catch (e) {{ return e.message; }}"
            ),
        )
        .await;
        assert!(text.starts_with("tools.readFile:"), "{path}: {text}");
    }
}

/// A run where the person allowed everything.
#[derive(Debug)]
struct AllowAll;

#[async_trait::async_trait]
impl NestedCalls for AllowAll {
    fn invocation(&self) -> &str {
        "allow-all"
    }
    fn gate(&self, _: &dyn Tool, _: &Value) -> NestedGate {
        NestedGate::Run
    }
    fn skills(&self) -> Vec<String> {
        Vec::new()
    }
    async fn task(&self, _: &str, _: &str, _: CancellationToken) -> Result<String, String> {
        Err("no skills".to_owned())
    }
}

/// Two skills that answer after the test lets them, counting how many run
/// at once.
#[derive(Debug, Default)]
struct Skills {
    running: AtomicUsize,
    most: AtomicUsize,
    asks: std::sync::Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl NestedCalls for Skills {
    fn invocation(&self) -> &str {
        "skills"
    }
    fn gate(&self, _: &dyn Tool, _: &Value) -> NestedGate {
        NestedGate::Run
    }
    fn skills(&self) -> Vec<String> {
        vec!["summarize".to_owned(), "translate".to_owned()]
    }
    async fn task(&self, skill: &str, ask: &str, _: CancellationToken) -> Result<String, String> {
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        self.asks.lock().unwrap().push(format!("{skill}: {ask}"));
        tokio::task::yield_now().await;
        self.running.fetch_sub(1, Ordering::SeqCst);
        if ask == "fail" {
            return Err("the skill could not do it".to_owned());
        }
        Ok(format!("{skill} did {ask}"))
    }
}

#[tokio::test]
async fn task_fans_out_to_skills_at_most_32_at_once() {
    let thread = Thread::new(&[]);
    let tool = eval_tool(60);
    let skills = Arc::new(Skills::default());
    let ctx = thread.ctx(Arc::clone(&skills) as Arc<dyn NestedCalls>);
    let result = ok(
        &tool,
        &ctx,
        r#"const asks = Array.from({ length: 40 }, (_, i) => task(i % 2 ? "translate" : "summarize", "part " + i));
           const reports = await Promise.all(asks);
           let failed; try { await task("summarize", "fail"); } catch (e) { failed = e.message; }
           let unknown; try { await task("nope", "x"); } catch (e) { unknown = e.message; }
           return { n: reports.length, first: reports[0], failed, unknown };"#,
    )
    .await;
    let value: Value = serde_json::from_str(&result).unwrap();
    assert_eq!(value["n"], 40);
    assert_eq!(value["first"], "summarize did part 0");
    assert_eq!(value["failed"], "the skill could not do it");
    assert!(
        value["unknown"]
            .as_str()
            .unwrap()
            .contains("choose one of: summarize, translate")
    );
    assert!(skills.most.load(Ordering::SeqCst) <= 32);
    // 40 in parallel and the failing one; the unknown skill never ran.
    assert_eq!(skills.asks.lock().unwrap().len(), 41);
    // Without skills there is no task() at all.
    let absent = ok(&tool, &thread.ctx(unattended("no-skills")), "typeof task").await;
    assert_eq!(absent, "undefined");
}

/// One attack: the program, and what its ending must say.
struct Attack {
    name: &'static str,
    code: &'static str,
    /// A piece of the tool's text; errors must be errored results.
    expect: &'static str,
    is_error: bool,
    /// The program's time limit: the corpus's 2 s, or more for a memory
    /// bomb that fills its 256 MiB an element at a time.
    secs: u64,
}

const ATTACKS: &[Attack] = &[
    Attack {
        name: "plain loop",
        code: "while (true) {}",
        expect: "stopped after 2 s",
        is_error: true,
        secs: 2,
    },
    Attack {
        name: "loop after await",
        code: "await tools.ls('/'); for (;;) {}",
        expect: "stopped after 2 s",
        is_error: true,
        secs: 2,
    },
    Attack {
        name: "promise chain",
        code: "const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {});",
        expect: "Error: eval: ",
        is_error: true,
        secs: 2,
    },
    Attack {
        name: "regex backtracking",
        code: "/(a+)+$/.test('a'.repeat(40) + 'b')",
        expect: "stopped after 2 s",
        is_error: true,
        secs: 2,
    },
    Attack {
        name: "array bomb",
        code: "const a = []; for (;;) a.push('x'.repeat(1 << 20) + a.length);",
        expect: "out of memory",
        is_error: true,
        secs: 20,
    },
    Attack {
        name: "string bomb",
        code: "let s = 'x'; for (;;) s = s + s;",
        expect: "out of memory",
        is_error: true,
        secs: 20,
    },
    Attack {
        name: "object bomb",
        code: "const o = {}; for (let i = 0; ; i++) o['k' + i] = { i, s: 'v' + i };",
        expect: "out of memory",
        is_error: true,
        secs: 20,
    },
    Attack {
        name: "deep recursion",
        code: "const f = n => f(n + 1) + 1; f(0)",
        expect: "RangeError",
        is_error: true,
        secs: 2,
    },
    Attack {
        name: "huge console.log",
        code: "for (let i = 0; i < 100000; i++) console.log('line ' + i); 'done'",
        expect: "done",
        is_error: false,
        secs: 10,
    },
    Attack {
        name: "throwing bridge",
        code: "await tools.readFile('/missing.md')",
        expect: "no such file",
        is_error: true,
        secs: 2,
    },
    Attack {
        name: "rejecting task",
        code: "await task('x', 'y')",
        expect: "task is not defined",
        is_error: true,
        secs: 2,
    },
    Attack {
        name: "pollute tools",
        code: "Object.prototype.polluted = 1; try { tools.readFile = () => 'evil'; } catch (e) {} Array.prototype.map = null; 'ok'",
        expect: "ok",
        is_error: false,
        secs: 2,
    },
    Attack {
        name: "eval and Function",
        code: "eval('1 + 1') + new Function('return 40')()",
        expect: "42",
        is_error: false,
        secs: 2,
    },
    Attack {
        name: "require",
        code: "require('fs')",
        expect: "require",
        is_error: true,
        secs: 2,
    },
    Attack {
        name: "process",
        code: "process.env",
        expect: "process",
        is_error: true,
        secs: 2,
    },
    Attack {
        name: "Deno",
        code: "Deno.readTextFile('/etc/passwd')",
        expect: "Deno",
        is_error: true,
        secs: 2,
    },
    Attack {
        name: "dynamic import",
        code: "await import('/etc/passwd')",
        expect: "",
        is_error: true,
        secs: 2,
    },
    Attack {
        name: "host globals",
        code: "[typeof fetch, typeof setTimeout, typeof XMLHttpRequest, typeof WebAssembly, typeof globalThis.std].join()",
        expect: "undefined,undefined,undefined,undefined,undefined",
        is_error: false,
        secs: 2,
    },
    Attack {
        name: "path outside the view",
        code: "await tools.readFile('/local/../../etc/passwd')",
        expect: "tools.readFile",
        is_error: true,
        secs: 2,
    },
];

#[tokio::test]
async fn the_attack_corpus_is_stopped_and_leaves_nothing_behind() {
    let thread = Thread::new(&[("/notes.md", "one\n".to_owned())]);
    let tool = eval_tool(2);
    let ctx = thread.ctx(unattended("corpus"));
    let mut stopped = 0;
    let mut overshoot = Duration::ZERO;
    for attack in ATTACKS {
        tool.set_timeout_secs(attack.secs);
        let deadline = Duration::from_secs(attack.secs);
        let started = Instant::now();
        let output = run(&tool, &ctx, attack.code).await.unwrap();
        let took = started.elapsed();
        overshoot = overshoot.max(took.saturating_sub(deadline));
        let text = output.to_text();
        assert_eq!(output.is_error, attack.is_error, "{}: {text}", attack.name);
        assert!(text.contains(attack.expect), "{}: {text}", attack.name);
        // Generous for a loaded machine; the figure below is the real one.
        assert!(
            took < deadline + Duration::from_secs(2),
            "{}: {took:?}",
            attack.name
        );
        if output.is_error {
            stopped += 1;
        }
        // The next call starts clean: nothing the attack did is left.
        let clean = ok(
            &tool,
            &ctx,
            "[typeof ({}).polluted, typeof Array.prototype.map, typeof tools.readFile].join()",
        )
        .await;
        assert_eq!(
            clean, "undefined,function,function",
            "after {}",
            attack.name
        );
    }
    let logged = ok(
        &tool,
        &ctx,
        "for (let i = 0; i < 100000; i++) console.log('line ' + i); 1",
    )
    .await;
    assert!(
        logged.len() < 6_000,
        "console output is capped: {} chars",
        logged.len()
    );
    println!(
        "eval attacks: {} programs, {stopped} stopped with an error, the others answered; \
         none ran past its deadline by more than {} ms",
        ATTACKS.len(),
        overshoot.as_millis(),
    );
}

#[tokio::test]
async fn a_cancel_stops_a_spinning_program_at_once_and_runs_stay_apart() {
    let thread = Thread::new(&[]);
    let tool = Arc::new(eval_tool(60));
    let spinning_ctx = thread.ctx(unattended("run-a"));
    let cancel = CancellationToken::new();
    let spinner = {
        let tool = Arc::clone(&tool);
        let cancel = cancel.clone();
        tokio::spawn(async move {
            tool.call(
                &spinning_ctx,
                json!({"code": "tools.ls('/'); while (true) {}"}),
                cancel,
            )
            .await
        })
    };
    // Another run evaluates while the first spins: it is not held up.
    let other = ok(
        &tool,
        &thread.ctx(unattended("run-b")),
        "[1, 2, 3].map(n => n * 2)",
    )
    .await;
    assert_eq!(
        serde_json::from_str::<Value>(&other).unwrap(),
        json!([2, 4, 6])
    );
    let cancelled_at = Instant::now();
    cancel.cancel();
    let ended = spinner.await.unwrap();
    let took = cancelled_at.elapsed();
    assert_eq!(ended, Err(ToolError::Cancelled));
    assert!(took < Duration::from_millis(500), "cancel took {took:?}");
    println!(
        "eval cancel: stopped {} ms after the cancel",
        took.as_millis()
    );
}
