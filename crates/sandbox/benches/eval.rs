//! Eval figures: warm start to the first guest instruction, a trivial
//! round trip, a bridge round trip, and paging throughput. Run with
//! `cargo bench -p pizza-sandbox`; prints one line per figure.

use std::error::Error;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use pizza_sandbox::{Bridge, BridgeCall, EvalRequest, Limits, Sandbox, WorkerCommand};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const STARTS: usize = 300;
const BRIDGE_CALLS: usize = 1_000;
const PAGE_BYTES: usize = 1024 * 1024;
const PAGES: usize = 50;

/// `mark` notes when the guest reached it; `noop` answers null; `page`
/// serves 1 MiB of 100-char lines.
struct BenchBridge {
    marks: Mutex<Vec<Instant>>,
    page: Value,
}

#[async_trait::async_trait]
impl Bridge for BenchBridge {
    async fn call(&self, call: BridgeCall) -> Result<Value, String> {
        let BridgeCall::Tool { name, .. } = call else {
            return Err("no task".to_owned());
        };
        match name.as_str() {
            "mark" | "noop" => {
                self.marks
                    .lock()
                    .map_err(|e| e.to_string())?
                    .push(Instant::now());
                Ok(Value::Null)
            }
            "page" => Ok(self.page.clone()),
            other => Err(format!("no bridge {other}")),
        }
    }
}

impl BenchBridge {
    fn marks(&self) -> MutexGuard<'_, Vec<Instant>> {
        self.marks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn request(code: &str) -> EvalRequest {
    EvalRequest {
        code: code.to_owned(),
        bridges: vec!["mark".to_owned(), "noop".to_owned(), "page".to_owned()],
        task: false,
        timeout: None,
    }
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn Error>> {
    let command = WorkerCommand::new(env!("CARGO_BIN_EXE_pizza-eval-worker"), Vec::new());
    let sandbox = Sandbox::new(command, Limits::default());
    let line = "x".repeat(99) + "\n";
    let page: String = line.repeat(PAGE_BYTES / line.len() + 1)[..PAGE_BYTES].to_owned();
    let bridge = BenchBridge {
        marks: Mutex::new(Vec::new()),
        page: json!(page),
    };
    let cancel = CancellationToken::new();
    // The first call starts the key's worker; the rest find it warm.
    sandbox
        .eval("bench", request("1"), &bridge, cancel.clone())
        .await?;

    let mut starts = Vec::with_capacity(STARTS);
    let mut trips = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        bridge.marks().clear();
        let started = Instant::now();
        sandbox
            .eval("bench", request("tools.mark()"), &bridge, cancel.clone())
            .await?;
        let marked = bridge.marks()[0];
        starts.push(marked - started);
        let started = Instant::now();
        let outcome = sandbox
            .eval("bench", request("1+1"), &bridge, cancel.clone())
            .await?;
        trips.push(started.elapsed());
        assert_eq!(outcome.result, "2");
    }
    println!(
        "warm start to first guest instruction: p50 {}, p99 {}",
        ms(percentile(&mut starts, 0.5)),
        ms(percentile(&mut starts, 0.99))
    );
    println!(
        "warm trivial eval `1+1` round trip:    p50 {}, p99 {}",
        ms(percentile(&mut trips, 0.5)),
        ms(percentile(&mut trips, 0.99))
    );

    bridge.marks().clear();
    let code = format!("for (let i = 0; i < {BRIDGE_CALLS}; i++) await tools.noop(i); 'ok'");
    let started = Instant::now();
    sandbox
        .eval("bench", request(&code), &bridge, cancel.clone())
        .await?;
    let total = started.elapsed();
    let marks = bridge.marks().clone();
    let mut gaps: Vec<Duration> = marks.windows(2).map(|w| w[1] - w[0]).collect();
    println!(
        "bridge call round trip ({BRIDGE_CALLS} sequential awaited no-ops): p50 {}, p99 {}, mean {}",
        ms(percentile(&mut gaps, 0.5)),
        ms(percentile(&mut gaps, 0.99)),
        ms(total / BRIDGE_CALLS as u32)
    );

    let code = format!(
        "let lines = 0;\n\
         for (let i = 0; i < {PAGES}; i++) {{ const page = await tools.page({{offset: i}}); lines += page.split('\\n').length - 1; }}\n\
         return lines;"
    );
    let started = Instant::now();
    let outcome = sandbox
        .eval("bench", request(&code), &bridge, cancel.clone())
        .await?;
    let elapsed = started.elapsed();
    let expected = page.matches('\n').count() * PAGES;
    assert_eq!(outcome.result, expected.to_string());
    let mb = (PAGE_BYTES * PAGES) as f64 / 1e6;
    println!(
        "paging {PAGES} x 1 MiB pages, split('\\n') per page: {:.0} MB/s ({} for {mb:.0} MB)",
        mb / elapsed.as_secs_f64(),
        ms(elapsed)
    );

    let code = format!(
        "let lines = 0;\n\
         for (let i = 0; i < {PAGES}; i++) {{ const page = await tools.page({{offset: i}}); let at = -1; while ((at = page.indexOf('\\n', at + 1)) !== -1) lines++; }}\n\
         return lines;"
    );
    let started = Instant::now();
    let outcome = sandbox
        .eval("bench", request(&code), &bridge, cancel.clone())
        .await?;
    let elapsed = started.elapsed();
    assert_eq!(outcome.result, expected.to_string());
    println!(
        "paging {PAGES} x 1 MiB pages, indexOf('\\n') loop:  {:.0} MB/s",
        mb / elapsed.as_secs_f64()
    );

    let code = format!(
        "for (let i = 0; i < {PAGES}; i++) {{ await tools.page({{offset: i}}); }}\n\
         return 'ok';"
    );
    let started = Instant::now();
    sandbox
        .eval("bench", request(&code), &bridge, cancel.clone())
        .await?;
    let elapsed = started.elapsed();
    println!(
        "paging {PAGES} x 1 MiB pages, transfer only:       {:.0} MB/s",
        mb / elapsed.as_secs_f64()
    );
    sandbox.shutdown().await;
    memory_bombs(&bridge).await;
    Ok(())
}

/// The element-by-element memory bombs the tests cannot afford in a debug
/// build, with the default 256 MiB budget.
async fn memory_bombs(bridge: &BenchBridge) {
    let command = WorkerCommand::new(env!("CARGO_BIN_EXE_pizza-eval-worker"), Vec::new());
    let sandbox = Sandbox::new(command, Limits::default());
    let bombs = [
        (
            "growing array of arrays",
            "const all = []; for (;;) all.push(new Array(100000).fill(1.5));",
        ),
        (
            "array of small arrays",
            "const all = []; for (;;) all.push([1, 2, 3, 4, 5, 6, 7, 8]);",
        ),
        (
            "string doubling",
            "let s = 'x'; const keep = []; for (;;) { s = s + s; keep.push(s + '!'); }",
        ),
        (
            "object with many keys",
            "const o = {}; for (let i = 0; ; i++) o['key' + i] = 'value' + i;",
        ),
    ];
    for (name, code) in bombs {
        let mut request = request(code);
        request.timeout = Some(Duration::from_secs(30));
        let started = Instant::now();
        let result = sandbox
            .eval(name, request, bridge, CancellationToken::new())
            .await;
        let ending = match result {
            Ok(outcome) => format!("finished?! {}", outcome.result),
            Err(failure) => failure.error.to_string(),
        };
        let ending: String = ending.chars().take(90).collect();
        println!("memory bomb, {name}: {} -> {ending}", ms(started.elapsed()));
    }
    sandbox.shutdown().await;
}
