//! Plain timing benchmark: `cargo bench -p pizza-mcp` (it builds and uses
//! the fast test server, `pizza-mcp-test-server`).
//!
//! Prints:
//! - 20 configured servers, one hung in `initialize`: how long until the
//!   other 19 are connected and each answered a call (target < 3 s);
//! - a stdio tool call's round trip through the pool, p50 and p99, against
//!   a server that answers at once (target p50 < 2 ms over the server);
//! - five connected, idle servers: the CPU the app and the servers use
//!   over five seconds (target ~0 %).

use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pizza_mcp::{LiveServer, McpPool, ServerTransport};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const CALLS: usize = 2_000;

/// The test server next to this bench's profile, built on demand.
fn test_server() -> Result<PathBuf, Box<dyn Error>> {
    if let Some(path) = std::env::var_os("PIZZA_MCP_TEST_SERVER") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe()?;
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .ok_or("no target directory")?
        .to_owned();
    let bin = profile_dir.join("pizza-mcp-test-server");
    if !bin.is_file() {
        let profile = profile_dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("release");
        let mut build = std::process::Command::new(env!("CARGO"));
        build.args(["build", "-q", "-p", "pizza-test-support", "--bins"]);
        if profile != "debug" {
            build.args([
                "--profile",
                if profile == "release" {
                    "bench"
                } else {
                    profile
                },
            ]);
        }
        if !build.status()?.success() {
            return Err("cannot build pizza-mcp-test-server".into());
        }
    }
    Ok(bin)
}

fn server(bin: &Path, id: &str, args: &[&str]) -> LiveServer {
    LiveServer {
        id: id.to_owned(),
        transport: ServerTransport::Stdio {
            command: bin.display().to_string(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: BTreeMap::new(),
            cwd: None,
        },
        enabled: true,
        problem: None,
    }
}

async fn echo(pool: &McpPool, id: &str) -> Result<(), Box<dyn Error>> {
    pool.call(
        id,
        "echo",
        json!({"text": "hi"}),
        Duration::from_secs(10),
        CancellationToken::new(),
    )
    .await?;
    Ok(())
}

/// utime + stime of a process, in clock ticks.
fn cpu_ticks(pid: &str) -> u64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0;
    };
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

async fn twenty_with_one_hung(bin: &Path) -> Result<(), Box<dyn Error>> {
    let pool = McpPool::new(|_, _| {});
    let mut servers: Vec<LiveServer> = (0..19)
        .map(|n| server(bin, &format!("fast{n:02}"), &[]))
        .collect();
    servers.insert(0, server(bin, "hung", &["--hang-init"]));
    let started = Instant::now();
    pool.apply(servers);
    for n in 0..19 {
        let id = format!("fast{n:02}");
        pool.wait_for(&id, Duration::from_secs(30), |s| s.status.is_connected())
            .await
            .ok_or_else(|| format!("{id} did not connect"))?;
        echo(&pool, &id).await?;
    }
    println!(
        "20 servers, one hung in initialize: the other 19 connected and called in {:.0} ms (target < 3000 ms)",
        started.elapsed().as_secs_f64() * 1e3
    );
    pool.shutdown().await;
    Ok(())
}

async fn call_overhead(bin: &Path) -> Result<(), Box<dyn Error>> {
    let pool = McpPool::new(|_, _| {});
    pool.apply(vec![server(bin, "fast", &[])]);
    pool.wait_for("fast", Duration::from_secs(30), |s| s.status.is_connected())
        .await
        .ok_or("the server did not connect")?;
    for _ in 0..100 {
        echo(&pool, "fast").await?;
    }
    let mut times = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let at = Instant::now();
        echo(&pool, "fast").await?;
        times.push(at.elapsed());
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "stdio tool call round trip over {CALLS} calls: p50 {:.3} ms, p99 {:.3} ms (target p50 < 2 ms; the server's own time is ~0)",
        ms(times[CALLS / 2]),
        ms(times[CALLS * 99 / 100])
    );
    pool.shutdown().await;
    Ok(())
}

async fn idle_cpu(bin: &Path) -> Result<(), Box<dyn Error>> {
    let pool = McpPool::new(|_, _| {});
    pool.apply(
        (0..5)
            .map(|n| server(bin, &format!("idle{n}"), &[]))
            .collect(),
    );
    let mut pids = Vec::new();
    for n in 0..5 {
        let id = format!("idle{n}");
        let snapshot = pool
            .wait_for(&id, Duration::from_secs(30), |s| s.status.is_connected())
            .await
            .ok_or("an idle server did not connect")?;
        pids.extend(snapshot.pid.map(|p| p.to_string()));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let ticks = |pids: &[String]| -> u64 {
        cpu_ticks("self") + pids.iter().map(|p| cpu_ticks(p)).sum::<u64>()
    };
    let before = ticks(&pids);
    let window = Duration::from_secs(5);
    tokio::time::sleep(window).await;
    let used = ticks(&pids).saturating_sub(before);
    // Clock ticks are 1/100 s on Linux.
    let percent = used as f64 / 100.0 / window.as_secs_f64() * 100.0;
    println!(
        "five connected idle servers: {used} clock ticks over {} s = {percent:.2} % of one core (app and servers)",
        window.as_secs()
    );
    pool.shutdown().await;
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let bin = test_server()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        twenty_with_one_hung(&bin).await?;
        call_overhead(&bin).await?;
        idle_cpu(&bin).await
    })
}
