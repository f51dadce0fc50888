//! What a well-behaved program sees and gets back.

use pizza_sandbox::{BridgeCall, EvalError, EvalRequest, Limits};
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::{Scripted, eval, request, sandbox};

#[tokio::test]
async fn a_script_returns_its_last_expression() {
    let sandbox = sandbox(Limits::default());
    let outcome = eval(&sandbox, "k", "const a = 20; a + 22").await.unwrap();
    assert_eq!(outcome.result, "42");
    assert_eq!(outcome.result_chars_total, None);
    assert_eq!(outcome.bridge_calls, 0);
    let outcome = eval(&sandbox, "k", "'plain ' + 'text'").await.unwrap();
    assert_eq!(outcome.result, "plain text");
    let outcome = eval(&sandbox, "k", "let x; x").await.unwrap();
    assert_eq!(outcome.result, "undefined");
    let outcome = eval(&sandbox, "k", "({a: [1, 2], b: null})").await.unwrap();
    assert_eq!(
        outcome.result,
        "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": null\n}"
    );
    let outcome = eval(&sandbox, "k", "10n ** 20n").await.unwrap();
    assert_eq!(outcome.result, "100000000000000000000");
    sandbox.shutdown().await;
}

#[tokio::test]
async fn top_level_await_and_return() {
    let sandbox = sandbox(Limits::default());
    let code = "const v = await Promise.resolve(5);\nreturn { v, doubled: v * 2 };";
    let outcome = eval(&sandbox, "k", code).await.unwrap();
    assert_eq!(outcome.result, "{\n  \"v\": 5,\n  \"doubled\": 10\n}");
    // A script whose value is a promise is awaited too.
    let outcome = eval(&sandbox, "k", "(async () => 7)()").await.unwrap();
    assert_eq!(outcome.result, "7");
    sandbox.shutdown().await;
}

#[tokio::test]
async fn modern_builtins_work() {
    let sandbox = sandbox(Limits::default());
    let code = r#"
        const m = new Map([["a", 1], ["b", 2]]);
        const s = new Set([1, 1, 2, 3]);
        const re = /(\d+)-(\d+)/g;
        const pairs = [..."1-2 30-40".matchAll(re)].map(x => Number(x[1]) + Number(x[2]));
        const bytes = new Uint8Array([1, 2, 3]).reduce((a, b) => a + b, 0);
        const parsed = JSON.parse('{"n": [1, {"deep": true}]}');
        return [m.get("b"), s.size, pairs, bytes, parsed.n[1].deep, Object.entries({q: 1}).flat()];
    "#;
    let outcome = eval(&sandbox, "k", code).await.unwrap();
    let value: serde_json::Value = serde_json::from_str(&outcome.result).unwrap();
    assert_eq!(value, json!([2, 3, [3, 70], 6, true, ["q", 1]]));
    sandbox.shutdown().await;
}

#[tokio::test]
async fn console_output_is_captured_and_capped() {
    let sandbox = sandbox(Limits {
        max_log_chars: 60,
        ..Limits::default()
    });
    let code = r#"
        console.log("hello", 1, {a: 1}, [true], undefined, null);
        console.error(new TypeError("bad"));
        return "ok";
    "#;
    let outcome = eval(&sandbox, "k", code).await.unwrap();
    assert_eq!(
        outcome.logs,
        "hello 1 {\"a\":1} [true] undefined null\nTypeError: bad\n"
    );
    let code = "for (let i = 0; i < 100; i++) console.log('line ' + i); 'done'";
    let outcome = eval(&sandbox, "k", code).await.unwrap();
    assert_eq!(outcome.result, "done");
    assert_eq!(
        outcome.logs,
        "line 0\nline 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline\n\
         [730 more characters of console output left out]\n"
    );
    sandbox.shutdown().await;
}

#[tokio::test]
async fn a_long_result_is_cut_with_its_total() {
    let sandbox = sandbox(Limits {
        max_result_chars: 10,
        ..Limits::default()
    });
    let outcome = eval(&sandbox, "k", "'é'.repeat(25)").await.unwrap();
    assert_eq!(outcome.result, "é".repeat(10));
    assert_eq!(outcome.result_chars_total, Some(25));
    sandbox.shutdown().await;
}

#[tokio::test]
async fn a_bridge_call_round_trips_arguments_and_result() {
    let sandbox = sandbox(Limits::default());
    let bridge = Scripted::default();
    let mut req = request(
        "const r = await tools.echo({path: 'a.txt', offset: 2, skip: undefined, f() {}});\n\
         const t = await task('review', 'look at it');\n\
         return [typeof tools.echo, Object.isFrozen(tools), r, t];",
        Scripted::NAMES,
    );
    req.task = true;
    let outcome = sandbox
        .eval("k", req, &bridge, CancellationToken::new())
        .await
        .unwrap();
    let value: serde_json::Value = serde_json::from_str(&outcome.result).unwrap();
    assert_eq!(
        value,
        json!([
            "function",
            true,
            {"path": "a.txt", "offset": 2},
            {"skill": "review", "ask": "look at it"}
        ])
    );
    assert_eq!(outcome.bridge_calls, 2);
    assert_eq!(
        bridge.calls.lock().unwrap().clone(),
        vec![
            BridgeCall::Tool {
                name: "echo".to_owned(),
                args: json!({"path": "a.txt", "offset": 2})
            },
            BridgeCall::Task {
                skill: "review".to_owned(),
                ask: "look at it".to_owned()
            },
        ]
    );
    sandbox.shutdown().await;
}

#[tokio::test]
async fn fifty_concurrent_bridge_calls_answered_in_reverse_order() {
    let sandbox = sandbox(Limits::default());
    let bridge = super::support::ReverseOrder::new(50);
    let code = "const all = await Promise.all(Array.from({length: 50}, (_, i) => tools.slow(i)));\n\
                return all.every((v, i) => v === i * 10) ? 'in order' : JSON.stringify(all);";
    let outcome = sandbox
        .eval(
            "k",
            request(code, &["slow"]),
            &bridge,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.result, "in order");
    assert_eq!(outcome.bridge_calls, 50);
    let answered = bridge.answered();
    assert_eq!(answered, (0..50).rev().collect::<Vec<u64>>());
    sandbox.shutdown().await;
}

#[tokio::test]
async fn a_rejecting_bridge_is_caught_by_the_guest() {
    let sandbox = sandbox(Limits::default());
    let code = "try { await tools.fail({message: 'no such file'}); return 'not reached'; }\n\
                catch (e) { return [e instanceof Error, e.message]; }";
    let outcome = eval(&sandbox, "k", code).await.unwrap();
    let value: serde_json::Value = serde_json::from_str(&outcome.result).unwrap();
    assert_eq!(value, json!([true, "no such file"]));
    sandbox.shutdown().await;
}

#[tokio::test]
async fn uncaught_throws_and_syntax_errors_end_the_call_with_their_message() {
    let sandbox = sandbox(Limits::default());
    let failure = eval(
        &sandbox,
        "k",
        "console.log('before'); throw new RangeError('too far')",
    )
    .await
    .unwrap_err();
    assert!(matches!(failure.error, EvalError::Thrown { .. }));
    assert_eq!(failure.error.to_string(), "RangeError: too far");
    assert_eq!(failure.logs, "before\n");
    let failure = eval(&sandbox, "k", "await null; throw 'plain'")
        .await
        .unwrap_err();
    assert_eq!(failure.error.to_string(), "plain");
    let failure = eval(&sandbox, "k", "let = = 3").await.unwrap_err();
    assert!(
        failure.error.to_string().starts_with("SyntaxError"),
        "{}",
        failure.error
    );
    let failure = eval(&sandbox, "k", "await tools.fail({message: 'gone'})")
        .await
        .unwrap_err();
    assert_eq!(failure.error.to_string(), "Error: gone");
    sandbox.shutdown().await;
}

#[tokio::test]
async fn a_promise_that_never_settles_is_reported() {
    let sandbox = sandbox(Limits::default());
    let failure = eval(&sandbox, "k", "await new Promise(() => {})")
        .await
        .unwrap_err();
    assert!(
        matches!(failure.error, EvalError::NeverSettled),
        "{:?}",
        failure.error
    );
    assert_eq!(
        failure.error.to_string(),
        "the program's promise never settled (it awaits something that never happens)"
    );
    sandbox.shutdown().await;
}

#[tokio::test]
async fn pollution_does_not_outlive_its_call() {
    let sandbox = sandbox(Limits::default());
    let code = "Object.prototype.polluted = 'yes'; Array.prototype.map = null;\n\
                globalThis.leftover = 1; try { tools.echo = null } catch (e) {}\n\
                'polluted'";
    eval(&sandbox, "k", code).await.unwrap();
    let outcome = eval(
        &sandbox,
        "k",
        "[({}).polluted, typeof [].map, typeof leftover, typeof tools.echo]",
    )
    .await
    .unwrap();
    let value: serde_json::Value = serde_json::from_str(&outcome.result).unwrap();
    assert_eq!(value, json!([null, "function", "undefined", "function"]));
    assert_eq!(sandbox.live_workers(), 2, "the key's worker and the spare");
    sandbox.shutdown().await;
}

#[tokio::test]
async fn the_host_is_out_of_reach() {
    let sandbox = sandbox(Limits::default());
    let code = r#"
        const kinds = [typeof require, typeof process, typeof Deno, typeof setTimeout, typeof fetch, typeof task];
        let imported;
        try { await import("./Cargo.toml"); imported = "loaded"; } catch (e) { imported = "refused"; }
        return [...kinds, imported];
    "#;
    let outcome = eval(&sandbox, "k", code).await.unwrap();
    let value: serde_json::Value = serde_json::from_str(&outcome.result).unwrap();
    assert_eq!(
        value,
        json!([
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "refused"
        ])
    );
    sandbox.shutdown().await;
}

#[tokio::test]
async fn keys_keep_their_workers_and_release_frees_them() {
    let sandbox = sandbox(Limits::default());
    assert_eq!(sandbox.live_workers(), 0, "nothing before first use");
    eval(&sandbox, "a", "1").await.unwrap();
    eval(&sandbox, "b", "2").await.unwrap();
    // a, b and the spare (started in the background when b took the last one).
    let request = EvalRequest::new("3");
    let bridge = Scripted::default();
    sandbox
        .eval("a", request, &bridge, CancellationToken::new())
        .await
        .unwrap();
    sandbox.release("a");
    sandbox.release("b");
    assert!(sandbox.live_workers() <= 1, "only the spare is left");
    sandbox.shutdown().await;
    assert_eq!(sandbox.live_workers(), 0);
    sandbox.shutdown().await;
}

#[tokio::test]
async fn an_idle_sandbox_keeps_no_worker_not_even_a_spare() {
    let sandbox = sandbox(Limits {
        idle_after: std::time::Duration::from_secs(1),
        ..Limits::default()
    });
    eval(&sandbox, "a", "1").await.unwrap();
    sandbox.release("a");
    // The spare started after the call is reaped like any idle worker.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while sandbox.live_workers() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "{} workers outlived the idle limit",
            sandbox.live_workers()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // And the next call starts one again.
    eval(&sandbox, "b", "2").await.unwrap();
    sandbox.shutdown().await;
}

#[tokio::test]
async fn string_search_fast_paths_keep_the_semantics() {
    let sandbox = sandbox(Limits::default());
    let code = r#"[
        "a,b,,c".split(","), "abc".split(""), "a,b".split(",", 1), "a1b2c".split(/\d/),
        "".split(","), ",".split(","), "aXbXc".indexOf("X", 2), "abc".indexOf("c", -5),
        "abc".indexOf(""), "abc".indexOf("", 10), "abc".includes("bc"), "abc".includes("a", 1),
        "héllo wörld".split("ö"), "héllo".indexOf("l"), "a1b".indexOf(1), String.prototype.split.name,
        "x\ny\n".split("\n").length
    ]"#;
    let outcome = eval(&sandbox, "k", code).await.unwrap();
    let value: serde_json::Value = serde_json::from_str(&outcome.result).unwrap();
    assert_eq!(
        value,
        json!([
            ["a", "b", "", "c"],
            ["a", "b", "c"],
            ["a"],
            ["a", "b", "c"],
            [""],
            ["", ""],
            3,
            2,
            0,
            3,
            true,
            false,
            ["héllo w", "rld"],
            2,
            1,
            "split",
            3
        ])
    );
    sandbox.shutdown().await;
}

#[tokio::test]
async fn big_pages_arrive_intact() {
    let sandbox = sandbox(Limits::default());
    let code = "const sent = 'é\\n\"\\\\'.repeat(5000) + '😀';\n\
                const back = await tools.echo(sent);\n\
                const page = await tools.page({size: 3000000});\n\
                return [back === sent, back.length, page.length, page.split('x').length];";
    let outcome = eval(&sandbox, "k", code).await.unwrap();
    let value: serde_json::Value = serde_json::from_str(&outcome.result).unwrap();
    assert_eq!(value, json!([true, 20002, 3000000, 3000001]));
    sandbox.shutdown().await;
}

#[tokio::test]
async fn splitting_lines_with_a_regex_is_native_and_exact() {
    let sandbox = sandbox(Limits::default());
    let code = r#"[
        "a\r\nb\nc\r".split(/\r?\n/), "a\r\nb\nc".split(/\n/), "a\r\nb".split(/\r\n/),
        "x\r\r\ny".split(/\r?\n/), "a\nb".split(/\n/g), "a\r\nb".split(/\n|\r\n/),
        "a1b".split(/\d/), ("line\r\n".repeat(200000)).split(/\r?\n/).length
    ]"#;
    let outcome = eval(&sandbox, "k", code).await.unwrap();
    let value: serde_json::Value = serde_json::from_str(&outcome.result).unwrap();
    assert_eq!(
        value,
        json!([
            ["a", "b", "c\r"],
            ["a\r", "b", "c"],
            ["a", "b"],
            ["x\r", "y"],
            ["a", "b"],
            ["a", "b"],
            ["a", "b"],
            200_001
        ])
    );
    sandbox.shutdown().await;
}
