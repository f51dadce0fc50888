//! The attack corpus: programs that never end, eat memory, recurse, flood
//! the console or fight the bridge. Each must end with the expected kind
//! within the deadline (plus a generous margin for a loaded machine; the
//! real overshoot is printed), and the pool must serve a normal program
//! right after.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pizza_sandbox::{Bridge, BridgeCall, EvalError, EvalFailure, EvalOutcome, Sandbox};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::support::{Scripted, attack_limits, request, sandbox};

/// The margin asserted over the deadline; the design target is 100 ms.
const MARGIN: Duration = Duration::from_millis(1_000);

#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Timeout,
    /// A program that grows while it spins (a promise chain's job queue):
    /// the deadline or the memory cap, whichever it reaches first.
    TimeoutOrMemory,
    /// Out of memory, or boa refusing the allocation with a RangeError.
    MemoryEnding,
    RangeError,
    Thrown,
    CappedLogs,
}

const CORPUS: &[(&str, &str, Expect)] = &[
    ("busy loop", "while (true) {}", Expect::Timeout),
    (
        "for(;;) after an await",
        "await Promise.resolve(); (async () => { await null; for (;;) {} })(); await new Promise(() => {})",
        Expect::Timeout,
    ),
    (
        "endless promise chain",
        "const f = () => Promise.resolve().then(f); f(); await new Promise(() => {})",
        Expect::TimeoutOrMemory,
    ),
    (
        "catastrophic regex",
        "/(a+)+$/.test('a'.repeat(40) + 'b')",
        Expect::Timeout,
    ),
    // The memory bombs allocate in big steps: the tests run a debug build
    // of boa, ~50x slower per element than the release build the benchmark
    // runs the element-by-element bombs in, and `repeat` is per char there.
    (
        "growing array of arrays",
        "let chunk = 'x'; for (let i = 0; i < 20; i++) chunk += chunk;\n\
         let a = []; for (;;) a = [a, chunk + a.length];",
        Expect::MemoryEnding,
    ),
    (
        "array of typed arrays",
        "const all = []; for (;;) all.push(new Float64Array(1 << 17));",
        Expect::MemoryEnding,
    ),
    (
        "string doubling",
        "let s = 'x'; const keep = []; for (;;) { s = s + s; keep.push(s + '!'); }",
        Expect::MemoryEnding,
    ),
    (
        "object with many keys",
        "let chunk = 'v'; for (let i = 0; i < 13; i++) chunk += chunk;\n\
         const o = {}; for (let i = 0; ; i++) o['key' + i] = chunk + i;",
        Expect::MemoryEnding,
    ),
    (
        "deep recursion",
        "function down(n) { return down(n + 1) + 1; } down(0)",
        Expect::RangeError,
    ),
    (
        "deep recursion through native calls",
        "function down(n) { return [n].map(x => down(x + 1))[0]; } down(0)",
        Expect::RangeError,
    ),
    (
        "console flood",
        "for (let i = 0; i < 20000; i++) console.log('flood ' + i); 'flooded'",
        Expect::CappedLogs,
    ),
    (
        "throwing bridge left uncaught",
        "await tools.fail({message: 'denied'})",
        Expect::Thrown,
    ),
    (
        "bridge budget",
        "for (let i = 0; i < 20; i++) await tools.echo(i); 'too many'",
        Expect::Thrown,
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attack_corpus_is_stopped_and_the_pool_recovers() {
    let limits = pizza_sandbox::Limits {
        max_bridge_calls: 10,
        ..attack_limits()
    };
    let deadline = limits.timeout;
    let sandbox = sandbox(limits);
    sandbox.warm();
    let mut stopped = 0;
    let mut max_overshoot = Duration::ZERO;
    let mut programs = 0;
    for (name, code, expect) in CORPUS {
        programs += 1;
        let started = Instant::now();
        let bridge = Scripted::default();
        let result = sandbox
            .eval(
                name,
                request(code, Scripted::NAMES),
                &bridge,
                CancellationToken::new(),
            )
            .await;
        let elapsed = started.elapsed();
        max_overshoot = max_overshoot.max(elapsed.saturating_sub(deadline));
        assert!(elapsed < deadline + MARGIN, "{name}: took {elapsed:?}");
        check(name, *expect, &result);
        stopped += 1;
        recovered(&sandbox, name).await;
    }

    programs += 1;
    let cancel_took = cancel_mid_call(&sandbox).await;
    assert!(
        cancel_took < Duration::from_millis(500),
        "cancel took {cancel_took:?}"
    );
    stopped += 1;
    recovered(&sandbox, "cancel").await;

    programs += 1;
    let (fast, slow) = two_keys_at_once(&sandbox, deadline).await;
    max_overshoot = max_overshoot.max(slow.saturating_sub(deadline));
    stopped += 1;
    recovered(&sandbox, "two keys").await;

    println!(
        "sandbox attacks: {programs} programs, {stopped} stopped, max overshoot {} ms over the deadline; \
         cancel took {} ms; a fast key finished in {} ms beside a spinning one",
        max_overshoot.as_millis(),
        cancel_took.as_millis(),
        fast.as_millis(),
    );
    sandbox.shutdown().await;
    assert_eq!(sandbox.live_workers(), 0);
}

fn check(name: &str, expect: Expect, result: &Result<EvalOutcome, EvalFailure>) {
    match (expect, result) {
        (Expect::Timeout, Err(f)) if matches!(f.error, EvalError::Timeout { .. }) => {}
        (Expect::TimeoutOrMemory, Err(f))
            if matches!(
                f.error,
                EvalError::Timeout { .. } | EvalError::OutOfMemory { .. }
            ) => {}
        (Expect::MemoryEnding, Err(f)) => match &f.error {
            EvalError::OutOfMemory { .. } => {}
            EvalError::Thrown { message } if message.starts_with("RangeError") => {}
            other => panic!("{name}: expected out of memory, got {other:?}"),
        },
        (Expect::RangeError, Err(f)) => match &f.error {
            EvalError::Thrown { message } if message.starts_with("RangeError") => {}
            other => panic!("{name}: expected a RangeError, got {other:?}"),
        },
        (Expect::Thrown, Err(f)) => match &f.error {
            EvalError::Thrown { message } if message == "Error: denied" => {}
            EvalError::BridgeLimit { limit: 10 } => {}
            other => panic!("{name}: expected a thrown error, got {other:?}"),
        },
        (Expect::CappedLogs, Ok(outcome)) => {
            assert_eq!(outcome.result, "flooded");
            assert!(
                outcome.logs.chars().count() < 4_100,
                "{name}: logs not capped"
            );
            assert!(
                outcome
                    .logs
                    .ends_with("more characters of console output left out]\n"),
                "{name}: {}",
                outcome.logs
            );
        }
        (_, other) => panic!("{name}: expected {expect:?}, got {other:?}"),
    }
}

/// A normal program on a new call of the same key works.
async fn recovered(sandbox: &Sandbox, key: &str) {
    let bridge = Scripted::default();
    let outcome = sandbox
        .eval(
            key,
            request("return await tools.echo(21) * 2", Scripted::NAMES),
            &bridge,
            CancellationToken::new(),
        )
        .await
        .unwrap_or_else(|f| panic!("after {key}: {f}"));
    assert_eq!(outcome.result, "42", "after {key}");
}

/// The guest calls `started`, whose bridge cancels the call, then spins.
/// Returns how long the call took to end after the cancel.
async fn cancel_mid_call(sandbox: &Sandbox) -> Duration {
    let bridge = CancelOnCall::default();
    let result = sandbox
        .eval(
            "cancel",
            request("await tools.started(); while (true) {}", &["started"]),
            &bridge,
            bridge.token.clone(),
        )
        .await;
    let took = bridge
        .cancelled_at
        .lock()
        .unwrap()
        .map(|at| at.elapsed())
        .unwrap();
    match result {
        Err(f) if matches!(f.error, EvalError::Cancelled) => took,
        other => panic!("expected cancelled, got {other:?}"),
    }
}

#[derive(Debug, Default)]
struct CancelOnCall {
    token: CancellationToken,
    cancelled_at: std::sync::Mutex<Option<Instant>>,
}

#[async_trait::async_trait]
impl Bridge for CancelOnCall {
    async fn call(&self, _call: BridgeCall) -> Result<Value, String> {
        *self.cancelled_at.lock().unwrap() = Some(Instant::now());
        self.token.cancel();
        Ok(Value::Null)
    }
}

/// One key spins until killed while another finishes quickly; returns
/// (the fast one's time, the spinning one's time).
async fn two_keys_at_once(sandbox: &Sandbox, deadline: Duration) -> (Duration, Duration) {
    let spinner = {
        let sandbox = sandbox.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let bridge = Arc::new(Scripted::default());
            let result = sandbox
                .eval(
                    "spinner",
                    request("while (true) {}", &[]),
                    bridge.as_ref(),
                    CancellationToken::new(),
                )
                .await;
            (started.elapsed(), result)
        })
    };
    let started = Instant::now();
    let bridge = Scripted::default();
    let outcome = sandbox
        .eval(
            "fast",
            request("[1, 2, 3].map(x => x * 2).join(',')", &[]),
            &bridge,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let fast = started.elapsed();
    assert_eq!(outcome.result, "2,4,6");
    let (slow, result) = spinner.await.unwrap();
    assert!(matches!(
        result,
        Err(EvalFailure {
            error: EvalError::Timeout { .. },
            ..
        })
    ));
    assert!(fast < deadline / 2, "the fast key waited: {fast:?}");
    assert!(slow < deadline + MARGIN, "the spinner took {slow:?}");
    (fast, slow)
}
