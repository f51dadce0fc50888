//! `eval` through the real tool and worker: paging a 50 MB thread file
//! through `tools.readFile`, and a bridge call's round trip.
//!
//! Needs the worker built beside the bench:
//! `cargo build --release -p pizza-sandbox && cargo bench -p pizza-tools --bench eval`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use pizza_tools::{
    CancellationToken, EvalLimits, EvalTool, Sandbox, ThreadFiles, Tool, ToolContext, WorkerCommand,
};
use serde_json::json;

const MB: usize = 1024 * 1024;

fn main() {
    let Some(worker) = WorkerCommand::test_worker() else {
        eprintln!("no pizza-eval-worker beside this bench: cargo build --release -p pizza-sandbox");
        std::process::exit(2);
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("no runtime: {error}");
            std::process::exit(2);
        }
    };
    runtime.block_on(bench(worker));
}

async fn bench(worker: WorkerCommand) {
    let line = "2026-12-01T10:00:00Z INFO served /orders/42 in 12 ms for client 7\n";
    let text = line.repeat(50 * MB / line.len());
    let bytes = text.len();
    let files = ThreadFiles::new(BTreeMap::from([("/big.log".to_owned(), text)]));
    let ctx = ToolContext {
        thread_id: "bench".into(),
        call_id: "c".into(),
        fs: Arc::new(files),
        nested: None,
    };
    let tool = EvalTool::new(Sandbox::new(worker, EvalLimits::default()));
    let run = async |code: &str| {
        let output = tool
            .call(&ctx, json!({ "code": code }), CancellationToken::new())
            .await;
        match output {
            Ok(output) if !output.is_error => output.to_text(),
            other => panic!("{other:?}"),
        }
    };
    // Warm: the worker is started and the program path is hot.
    run("1 + 1").await;

    for limit in [10_000, 15_000] {
        let program = format!(
            "let offset = 0, n = 0; for (;;) {{ const page = await tools.readFile({{ file_path: '/big.log', offset, limit: {limit} }}); \
             if (!page) break; n += page.split('\\n').length - 1; offset += {limit}; }} return n;"
        );
        let started = Instant::now();
        let counted = run(&program).await;
        let secs = started.elapsed().as_secs_f64();
        println!(
            "eval readFile paging: {:.0} MB in {:.0} ms = {:.0} MB/s (pages of {limit} lines, {counted} lines)",
            bytes as f64 / MB as f64,
            secs * 1000.0,
            bytes as f64 / MB as f64 / secs
        );
    }

    let calls = 2_000;
    let started = Instant::now();
    run(&format!(
        "for (let i = 0; i < {calls}; i++) await tools.ls('/'); 'done'"
    ))
    .await;
    println!(
        "eval bridge round trip (tools.ls through the tool): {:.3} ms mean over {calls} calls",
        started.elapsed().as_secs_f64() * 1000.0 / f64::from(calls)
    );

    let mut starts = Vec::new();
    for _ in 0..200 {
        let started = Instant::now();
        run("0").await;
        starts.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    starts.sort_by(f64::total_cmp);
    println!(
        "eval call round trip through the tool (warm, trivial program): p50 {:.2} ms, p99 {:.2} ms",
        starts[starts.len() / 2],
        starts[starts.len() * 99 / 100]
    );
}
