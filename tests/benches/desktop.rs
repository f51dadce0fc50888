//! The release app as a person leaves it running all day, measured: start-up
//! (window mapped, inbox painted: the page reports it and the app logs it;
//! the last window's look, on the inbox and on a long thread; warm, on a
//! fresh data root, and cold, with the page cache dropped, run last),
//! PSS and RSS of the app and each WebKit process with the window shown and
//! closed to the tray, CPU over a minute in both, the window shown on an
//! inbox of 200 threads, reopening (from the tray's menu, and by a second
//! launch as a launcher does), a soak of runs with streaming answers and
//! tool calls, how quickly the warm page keeps up with a long answer, and
//! the binary's and the `.deb`'s sizes. One line per figure, beside the
//! last run's.
//!
//! Run by `cargo xtask bench desktop`, which builds the release app and
//! provides the display and session bus. `PIZZA_BENCH_QUICK=1` shortens the
//! CPU windows and the soak while working on the benchmark itself;
//! `PIZZA_BENCH_SOAK_ONLY=1` runs the soak alone.

#[path = "../e2e/chat.rs"]
#[allow(dead_code, unused_imports)]
mod chat;
#[path = "../e2e/harness.rs"]
#[allow(dead_code)]
mod harness;
#[path = "../e2e/seed.rs"]
#[allow(dead_code)]
mod seed;
#[path = "../e2e/x11.rs"]
#[allow(dead_code)]
mod x11;

#[path = "desktop/figures.rs"]
mod figures;
#[path = "desktop/long_inbox.rs"]
mod long_inbox;
#[path = "desktop/responsiveness.rs"]
mod responsiveness;
#[path = "desktop/starts.rs"]
mod starts;

use anyhow::{Context, Result, bail};
use figures::Figures;
use harness::{App, Sandbox};
use pizza_test_support::mock_provider::sse;
use pizza_test_support::procs::{Usage, cpu_ticks, mappings, percent, pss_kinds, tree, usage};
use pizza_test_support::tray_watcher::TrayWatcher;
use serde_json::json;
use starts::{
    Running, Start, fresh_start_figures, last_look, long_thread_start_figures, report_last_look,
    report_starts, start_and_stop, timed_start, window_steps,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TITLE: &str = "Pizza Bot";
const QUICK_ASK_TITLE: &str = "Quick ask — Pizza Bot";
/// What the app logs as a quick-ask window painted its input (presence.rs).
const QUICK_ASK_PAINTED: &str = "quick-ask painted";
/// Time for a fresh start's background work (MCP, catalog) to settle.
const SETTLE: Duration = Duration::from_secs(10);
const TIMEOUT: Duration = Duration::from_secs(60);

struct Plan {
    cpu_window: Duration,
    /// How many fresh, warm and cold starts and reopens are timed (the
    /// median is the figure).
    samples: usize,
    soak_runs: usize,
    soak_every: usize,
}

fn plan() -> Plan {
    if std::env::var_os("PIZZA_BENCH_QUICK").is_some() {
        Plan {
            cpu_window: Duration::from_secs(10),
            samples: 3,
            soak_runs: 20,
            soak_every: 5,
        }
    } else {
        Plan {
            cpu_window: Duration::from_secs(60),
            samples: 5,
            soak_runs: 200,
            soak_every: 20,
        }
    }
}

fn app_binary() -> Result<PathBuf> {
    std::env::var_os("PIZZA_APP_BIN")
        .map(PathBuf::from)
        .context("PIZZA_APP_BIN names the release app (cargo xtask bench desktop sets it)")
}

/// One timing sampled a few times: the median is the figure, every sample
/// is printed (a loaded machine shows in the spread, not in the figure).
fn median_of(figures: &mut Figures, label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let shown = samples
        .iter()
        .map(|d| d.as_millis().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    println!("  {label}: samples {shown} ms");
    if let Some(median) = samples.get(samples.len() / 2) {
        figures.ms(label, *median);
    }
}

fn report_memory(figures: &mut Figures, label: &str, processes: &[Usage]) {
    let (mut pss, mut rss) = (0, 0);
    let mut seen: Vec<&str> = Vec::new();
    for process in processes {
        // A second process of one name (an eval worker) gets a number.
        let same = seen.iter().filter(|n| **n == process.name).count();
        seen.push(&process.name);
        let name = match same {
            0 => process.name.clone(),
            n => format!("{} #{}", process.name, n + 1),
        };
        figures.mib(&format!("{label}: PSS {name}"), process.pss_kib);
        figures.mib(&format!("{label}: RSS {name}"), process.rss_kib);
        pss += process.pss_kib;
        rss += process.rss_kib;
    }
    figures.mib(&format!("{label}: PSS total"), pss);
    figures.mib(&format!("{label}: RSS total"), rss);
    for process in processes {
        where_it_is(label, process);
    }
}

/// The largest mappings of one process: where its PSS is (not a figure).
fn where_it_is(label: &str, process: &Usage) {
    let top = mappings(process.pid)
        .into_iter()
        .take(8)
        .map(|(name, kib)| {
            let short = name.rsplit('/').next().unwrap_or(&name).to_owned();
            format!("{short} {:.1}", kib as f64 / 1024.0)
        })
        .collect::<Vec<_>>()
        .join(", ");
    let kinds = pss_kinds(process.pid);
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!(
        "  {label}: {} PSS MiB by mapping: {top}; of files {:.1}, anonymous {:.1}, dirty {:.1}",
        process.name,
        mib(kinds.file_kib),
        mib(kinds.anon_kib),
        mib(kinds.dirty_kib)
    );
}

async fn cpu_over(pid: u32, window: Duration) -> Result<f64> {
    let before = cpu_ticks(&tree(pid));
    tokio::time::sleep(window).await;
    let after = cpu_ticks(&tree(pid));
    Ok(percent(after.saturating_sub(before), window))
}

/// Once the app has settled: its memory, then its CPU over the plan's window.
async fn settled_figures(figures: &mut Figures, label: &str, pid: u32, plan: &Plan) -> Result<()> {
    tokio::time::sleep(SETTLE).await;
    report_memory(figures, label, &usage(&tree(pid)));
    let cpu = cpu_over(pid, plan.cpu_window).await?;
    figures.percent(
        &format!("{label}: CPU over {}s", plan.cpu_window.as_secs()),
        cpu,
    );
    Ok(())
}

/// Shown, hidden, reopened: the app without WebDriver. Returns the fresh
/// start's times.
async fn idle_figures(figures: &mut Figures, plan: &Plan) -> Result<Start> {
    let sandbox = Sandbox::new()?;
    // A tray host, so closing the window goes to the tray.
    let tray = TrayWatcher::start().map_err(anyhow::Error::msg)?;
    let (app, fresh) = timed_start(&sandbox).await?;
    settled_figures(figures, "shown", app.pid(), plan).await?;

    // The tray's Open (in-process), and a second launch handing over to
    // this one: through `pizza-bot-open`, as the desktop entry, a launcher
    // or a keyboard shortcut starts it, and of the app's own binary, as a
    // terminal does (which loads WebKitGTK's libraries before it asks).
    let menu = tokio::task::block_in_place(|| {
        let item = tray.wait_for_item(TIMEOUT)?;
        tray.menu(&item)
    })
    .map_err(anyhow::Error::msg)?;
    let launcher = app_binary()?.with_file_name("pizza-bot-open");
    let (mut from_tray, mut opened, mut relaunched) = (Vec::new(), Vec::new(), Vec::new());
    let mut looks = Vec::new();
    for round in 0..3 * plan.samples {
        let closed = Instant::now();
        x11::close_window(TITLE, &[app.pid()])?;
        app.wait_web_process_gone().await?;
        if round == 0 {
            figures.ms("closed to the tray: web process gone", closed.elapsed());
            settled_figures(figures, "hidden", app.pid(), plan).await?;
        }
        let reopened = Instant::now();
        match round % 3 {
            0 => tokio::task::block_in_place(|| menu.click("Open Pizza Bot"))
                .map_err(anyhow::Error::msg)?,
            way => {
                let program = if way == 1 { &launcher } else { &app_binary()? };
                let status = Command::new(program)
                    .envs(harness::app_env(&sandbox, &sandbox.data_root())?)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()?;
                if !status.success() {
                    bail!(
                        "the second launch ({}) exited with {status}",
                        program.display()
                    );
                }
            }
        }
        app.wait_for_paints(round + 2).await?;
        let took = reopened.elapsed();
        println!("  reopen #{}: {}", round + 1, window_steps(&app.log));
        match round % 3 {
            0 => {
                from_tray.push(took);
                looks.push(last_look(&app.log, took));
            }
            1 => opened.push(took),
            _ => relaunched.push(took),
        }
    }
    median_of(figures, "reopen from the tray: inbox painted", from_tray);
    report_last_look(figures, "reopen from the tray: last look painted", looks);
    median_of(
        figures,
        "reopen by the desktop entry (pizza-bot-open): inbox painted",
        opened,
    );
    median_of(
        figures,
        "reopen by a second launch: inbox painted",
        relaunched,
    );

    // Quick ask from the tray with every window released: a new quick-ask
    // window, its input painted and focused.
    let mut shown = TITLE;
    let mut quick = Vec::new();
    for round in 0..plan.samples {
        x11::close_window(shown, &[app.pid()])?;
        app.wait_web_process_gone().await?;
        let asked = Instant::now();
        tokio::task::block_in_place(|| menu.click("Quick ask…")).map_err(anyhow::Error::msg)?;
        app.wait_logged_times(QUICK_ASK_PAINTED, round + 1).await?;
        quick.push(asked.elapsed());
        shown = QUICK_ASK_TITLE;
    }
    median_of(
        figures,
        "quick ask from the tray, every window released: input painted",
        quick,
    );
    app.stop();

    let mut warm = Vec::new();
    for _ in 0..plan.samples {
        warm.push(start_and_stop(&sandbox).await?);
    }
    report_starts(figures, "warm", &warm);
    started_hidden_figures(figures, &sandbox).await?;
    Ok(fresh)
}

/// The app started hidden, as at login, before it ever made a window: what
/// it holds with only the libraries loaded, beside what it keeps once a
/// window was shown and closed ("hidden").
async fn started_hidden_figures(figures: &mut Figures, sandbox: &Sandbox) -> Result<()> {
    let app = Running::start_with(sandbox, &["--hidden"])?;
    app.wait_logged("started hidden, in the tray").await?;
    tokio::time::sleep(SETTLE).await;
    report_memory(
        figures,
        "started hidden, never shown",
        &usage(&tree(app.pid())),
    );
    app.stop();
    Ok(())
}

/// What the app logs as a settled page's web process answers that it handed
/// back the pages of code it read (src-tauri/src/web_extension.rs).
const SETTLED: &str = "web process: pages of code handed back";

/// Waits until the log says [`SETTLED`] more than `seen` times; after 30 s
/// the figure is taken as it is, with a warning.
async fn wait_settled(sandbox: &Sandbox, seen: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while sandbox.log_text().matches(SETTLED).count() <= seen {
        if Instant::now() > deadline {
            eprintln!("soak: the app did not settle within 30 s; measured as it is");
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Runs with a streamed answer after a tool call, each in a new thread;
/// the idle PSS every few runs, once the app settled.
async fn soak(figures: &mut Figures, plan: &Plan) -> Result<()> {
    const ANSWER: &str = "Noted in the plan, and here is a longer answer that streams in pieces.";
    let mock = chat::openai_mock().await?;
    let completions = "/v1/chat/completions";
    mock.set_default(completions, sse::openai_chat_text(ANSWER));
    let base_url = format!("{}/v1", mock.url());
    let sandbox = Sandbox::new()?;
    let app = App::start(&sandbox, "desktop-soak").await?;
    let mut curve = Vec::new();
    // What the page holds: elements in the DOM and the UI's wasm memory.
    let mut page = Vec::new();
    let outcome = async {
        chat::configure_provider(&app, &base_url).await?;
        app.click("[data-testid=rail-inbox]").await?;
        for run in 0..=plan.soak_runs {
            if run % plan.soak_every == 0 {
                // Idle: the app settled after the start or the last run (it
                // handed back what they read, in its process and the page's).
                let seen = if run == 0 {
                    0
                } else {
                    sandbox.log_text().matches(SETTLED).count()
                };
                app.click("[data-testid=new-thread]").await?;
                app.find("[data-testid=welcome]").await?;
                wait_settled(&sandbox, seen).await;
                let processes: Vec<Usage> = usage(&app.processes())
                    .into_iter()
                    .filter(|u| !u.name.starts_with("WebKitWebDriver"))
                    .collect();
                let pss: u64 = processes.iter().map(|u| u.pss_kib).sum();
                eprintln!("soak: after {run} runs, idle PSS {:.1} MiB", pss as f64 / 1024.0);
                page.push((run, page_holds(&app).await?));
                if run == 0 || run == plan.soak_runs {
                    for process in &processes {
                        where_it_is(&format!("soak after {run} runs"), process);
                    }
                }
                curve.push((run, processes));
            }
            if run == plan.soak_runs {
                break;
            }
            mock.push_for(
                completions,
                sse::openai_chat_tool_call(
                    &format!("call_{run}"),
                    "write_file",
                    &json!({"file_path": format!("/notes/{run}.md"), "content": "# Plan\n- step\n"}),
                ),
            );
            // A measured point left a new, empty thread open: the run goes
            // there. (A second New would open yet another, and the typing
            // could start in the first one's composer before it does.)
            if run % plan.soak_every != 0 {
                app.click("[data-testid=new-thread]").await?;
                app.find("[data-testid=welcome]").await?;
            }
            let question = format!("Plan step {run}");
            chat::ask(&app, &question).await?;
            let shown = app
                .wait_for_value(&chat::feed_has(&[&question, ANSWER]), &json!(true))
                .await;
            if let Err(error) = shown {
                let seen = app.eval(WHAT_THE_PANE_SHOWS).await?;
                bail!("run {run}: {error:#}\nthe pane showed: {seen}");
            }
        }
        // With the list full and the page warm: how quickly it keeps up.
        responsiveness::measure(&app, &mock, figures, plan.samples).await?;
        anyhow::Ok(())
    }
    .await;
    app.stop().await?;
    outcome?;
    let total = |processes: &[Usage]| processes.iter().map(|u| u.pss_kib).sum::<u64>();
    let line = |pss_of: &dyn Fn(&[Usage]) -> u64| {
        series(&curve, |processes| {
            format!("{:.0}", pss_of(processes) as f64 / 1024.0)
        })
    };
    figures.text("soak: idle PSS MiB by runs", &line(&total));
    figures.text(
        "soak: DOM elements by runs",
        &series(&page, |holds| holds.elements.to_string()),
    );
    figures.text(
        "soak: UI wasm memory MiB by runs",
        &series(&page, |holds| {
            format!("{:.1}", holds.wasm_bytes as f64 / 1048576.0)
        }),
    );
    // Per process, to see which one grows (a process that is gone counts 0).
    let mut names: Vec<String> = curve
        .iter()
        .flat_map(|(_, processes)| processes.iter().map(|u| u.name.clone()))
        .collect();
    names.sort();
    names.dedup();
    for name in names {
        let of_name = |processes: &[Usage]| {
            processes
                .iter()
                .filter(|u| u.name == name)
                .map(|u| u.pss_kib)
                .sum::<u64>()
        };
        figures.text(&format!("soak: {name} PSS MiB by runs"), &line(&of_name));
    }
    if let (Some((_, first)), Some((_, last))) = (curve.first(), curve.last()) {
        let (first, last) = (total(first), total(last));
        let growth = (last as f64 - first as f64) / first as f64 * 100.0;
        figures.percent(
            &format!("soak: idle PSS growth over {} runs", plan.soak_runs),
            growth,
        );
    }
    Ok(())
}

/// What the open thread's pane holds, when a run's answer did not show.
const WHAT_THE_PANE_SHOWS: &str = "return {
    messages: [...document.querySelectorAll('[data-testid=message]')].map(m => m.textContent),
    composer: document.querySelector('[data-testid=composer-input]')?.value ?? null,
    pane: document.querySelector('main')?.innerText?.slice(0, 2000) ?? null,
};";

/// A soak curve as one line: `run:value` for each point.
fn series<T>(points: &[(usize, T)], value: impl Fn(&T) -> String) -> String {
    points
        .iter()
        .map(|(run, point)| format!("{run}:{}", value(point)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the page holds at one point of the soak.
struct PageHolds {
    elements: u64,
    /// The UI's wasm memory, which only grows: a leak in the UI's code
    /// shows here, apart from the engine's heap.
    wasm_bytes: u64,
}

async fn page_holds(app: &App) -> Result<PageHolds> {
    let value = app
        .eval(
            "return [document.getElementsByTagName('*').length,
                     window.pizzaUiMemory ? window.pizzaUiMemory() : 0];",
        )
        .await?;
    let number = |i: usize| value.get(i).and_then(serde_json::Value::as_u64);
    match (number(0), number(1)) {
        (Some(elements), Some(wasm_bytes)) => Ok(PageHolds {
            elements,
            wasm_bytes,
        }),
        _ => bail!("the page said {value} for what it holds"),
    }
}

fn sizes(figures: &mut Figures) -> Result<()> {
    let app = app_binary()?;
    let binary = std::fs::metadata(&app)?.len();
    figures.mib("size: release binary", binary / 1024);
    // The eval tool's worker, shipped beside the app (crates/sandbox).
    if let Some(worker) = app.parent().map(|dir| dir.join("pizza-eval-worker"))
        && let Ok(metadata) = std::fs::metadata(worker)
    {
        figures.mib("size: eval worker binary", metadata.len() / 1024);
    }
    if let Some(deb) = std::env::var_os("PIZZA_BENCH_DEB") {
        let size = std::fs::metadata(Path::new(&deb))?.len();
        figures.mib("size: .deb", size / 1024);
    }
    Ok(())
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> Result<()> {
    let plan = plan();
    let results = std::env::var_os("PIZZA_BENCH_RESULTS").map(PathBuf::from);
    let mut figures = Figures::new(results.as_deref());
    sizes(&mut figures)?;
    let soak_only = std::env::var_os("PIZZA_BENCH_SOAK_ONLY").is_some();
    if !soak_only {
        let first = idle_figures(&mut figures, &plan).await?;
        fresh_start_figures(&mut figures, &plan, first).await?;
        long_thread_start_figures(&mut figures, &plan).await?;
        long_inbox::long_inbox_figures(&mut figures).await?;
    }
    soak(&mut figures, &plan).await?;
    if !soak_only {
        starts::cold_start_figures(&mut figures, &plan).await?;
    }
    figures.save(results.as_deref())
}
