//! Starts and reopens, timed from launch: the window mapped, the page's own
//! inbox painted, and the last window's look painted where a start has one
//! (the page logs both from its start, the app writes them to its log).

use crate::figures::Figures;
use crate::harness::{self, Sandbox};
use crate::{Plan, TIMEOUT, TITLE, app_binary, median_of, seed, x11};
use anyhow::{Context, Result, bail};
use pizza_test_support::procs::{tree, usage};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The app started directly, as a person starts it (no WebDriver).
pub(crate) struct Running {
    child: Child,
    pub(crate) log: PathBuf,
    /// Where this launch's lines begin in the log (earlier launches on the
    /// same data root wrote the ones before).
    log_from: usize,
}

impl Running {
    pub(crate) fn start(sandbox: &Sandbox) -> Result<Self> {
        Self::start_with(sandbox, &[])
    }

    /// Started with `args` (`--hidden`, as a login does).
    pub(crate) fn start_with(sandbox: &Sandbox, args: &[&str]) -> Result<Self> {
        let mut command = Command::new(app_binary()?);
        command
            .args(args)
            .envs(harness::app_env(sandbox, &sandbox.data_root())?)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let log = sandbox.data_root().join("logs").join("pizza-bot.log");
        let log_from = std::fs::read_to_string(&log).map_or(0, |text| text.len());
        let child = command.spawn().context("starting the app")?;
        Ok(Self {
            child,
            log,
            log_from,
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How many of this launch's log lines have `marker`.
    fn logged(&self, marker: &str) -> usize {
        std::fs::read_to_string(&self.log).map_or(0, |log| {
            log.get(self.log_from..)
                .map_or(0, |ours| ours.matches(marker).count())
        })
    }

    /// Waits until this launch has logged `marker` `count` times.
    pub(crate) async fn wait_logged_times(&self, marker: &str, count: usize) -> Result<()> {
        let deadline = Instant::now() + TIMEOUT;
        while self.logged(marker) < count {
            if Instant::now() > deadline {
                bail!("the app did not log {marker:?} (#{count}) within {TIMEOUT:?}");
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Ok(())
    }

    /// Waits until this launch's log has `marker`.
    pub(crate) async fn wait_logged(&self, marker: &str) -> Result<()> {
        self.wait_logged_times(marker, 1).await
    }

    /// Waits until a window of this launch has painted its inbox `count` times.
    pub(crate) async fn wait_for_paints(&self, count: usize) -> Result<()> {
        self.wait_logged_times("inbox painted", count).await
    }

    /// Waits until no web process is left under the app (the window was
    /// released).
    pub(crate) async fn wait_web_process_gone(&self) -> Result<Duration> {
        let started = Instant::now();
        while usage(&tree(self.pid()))
            .iter()
            .any(|u| u.name.starts_with("WebKitWebProces"))
        {
            if started.elapsed() > TIMEOUT {
                bail!("the web process was still there {TIMEOUT:?} after closing to the tray");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(started.elapsed())
    }

    pub(crate) fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One start's times from launch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Start {
    mapped: Duration,
    painted: Duration,
    /// When the last window's look was painted, if the start had one.
    last_look: Option<Duration>,
}

/// Starts the app and times its window and its painted inbox.
pub(crate) async fn timed_start(sandbox: &Sandbox) -> Result<(Running, Start)> {
    let started = Instant::now();
    let app = Running::start(sandbox)?;
    x11::wait_for_window(TITLE, &[app.pid()]).await?;
    let mapped = started.elapsed();
    app.wait_for_paints(1).await?;
    let painted = started.elapsed();
    println!("  {}", start_steps(&app.log));
    let last_look = last_look(&app.log, painted);
    Ok((
        app,
        Start {
            mapped,
            painted,
            last_look,
        },
    ))
}

/// When the last window's look was painted, for a window whose inbox was
/// painted at `painted`: the page logs both from its start.
pub(crate) fn last_look(log: &Path, painted: Duration) -> Option<Duration> {
    let line = last_logged(log, "inbox painted");
    let field = |name: &str| -> Option<u64> {
        let (_, rest) = line.split_once(&format!("{name}="))?;
        rest.split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    let lead = field("page_ms")?.checked_sub(field("snapshot_ms")?)?;
    painted.checked_sub(Duration::from_millis(lead))
}

/// The median time to the last window's look, if every sample had one.
pub(crate) fn report_last_look(figures: &mut Figures, label: &str, samples: Vec<Option<Duration>>) {
    let count = samples.len();
    let shown: Vec<Duration> = samples.into_iter().flatten().collect();
    if shown.len() == count {
        median_of(figures, label, shown);
    } else {
        println!(
            "  {label}: the last look was shown in {} of {count}",
            shown.len()
        );
    }
}

/// The last start's steps as the app logged them: set-up before the window,
/// making the window, then the page (navigation to paint) and, within it,
/// the app's code and the list. What is left of the total is the process
/// start and the web process starting.
fn start_steps(log: &Path) -> String {
    format!(
        "start steps: set-up {}, {}",
        last_logged(log, "set up, making the window"),
        window_steps(log)
    )
}

/// The last window's steps: making it, then its page.
pub(crate) fn window_steps(log: &Path) -> String {
    format!(
        "window {}, page {}",
        last_logged(log, "main window made"),
        last_logged(log, "inbox painted"),
    )
}

/// What follows the last line of the log with `marker`.
fn last_logged(log: &Path, marker: &str) -> String {
    let log = std::fs::read_to_string(log).unwrap_or_default();
    log.lines()
        .rev()
        .find_map(|line| {
            line.split_once(marker)
                .map(|(_, rest)| rest.trim().to_owned())
        })
        .unwrap_or_else(|| "?".to_owned())
}

/// Starts the app, times its window and its painted inbox, and stops it.
pub(crate) async fn start_and_stop(sandbox: &Sandbox) -> Result<Start> {
    let (app, start) = timed_start(sandbox).await?;
    app.stop();
    Ok(start)
}

/// The medians of one kind of start ("warm", "fresh data root"), sampled;
/// the last window's look only where every start had one to show.
pub(crate) fn report_starts(figures: &mut Figures, kind: &str, starts: &[Start]) {
    let mapped = starts.iter().map(|start| start.mapped).collect();
    median_of(figures, &format!("start, {kind}: window mapped"), mapped);
    let painted = starts.iter().map(|start| start.painted).collect();
    median_of(figures, &format!("start, {kind}: inbox painted"), painted);
    if starts.iter().any(|start| start.last_look.is_some()) {
        let looks = starts.iter().map(|start| start.last_look).collect();
        report_last_look(figures, &format!("start, {kind}: last look painted"), looks);
    }
}

/// Starts on a data root never used before (the store made, its migrations
/// run), sampled like the warm ones: `first` is the start that began the
/// idle figures, each other sample gets a data root of its own.
pub(crate) async fn fresh_start_figures(
    figures: &mut Figures,
    plan: &Plan,
    first: Start,
) -> Result<()> {
    let mut fresh = vec![first];
    for _ in 1..plan.samples {
        fresh.push(start_and_stop(&Sandbox::new()?).await?);
    }
    report_starts(figures, "fresh data root", &fresh);
    Ok(())
}

/// Where the kernel is asked to drop its page cache.
const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

/// Cold starts, as the first after a reboot: the kernel's page cache
/// dropped before each (the app's binary, WebKitGTK's libraries, fonts and
/// the data root read from the disk again) on a data root used before.
/// Dropping it needs root; without it the figure is left out, and said so.
/// Run last: libraries read back may sit in larger folios, which counts
/// more PSS in a process mapping them than the pages read before.
pub(crate) async fn cold_start_figures(figures: &mut Figures, plan: &Plan) -> Result<()> {
    if let Err(err) = std::fs::OpenOptions::new().write(true).open(DROP_CACHES) {
        println!("  cold starts: left out, the page cache cannot be dropped here ({err})");
        return Ok(());
    }
    let sandbox = Sandbox::new()?;
    start_and_stop(&sandbox).await?;
    let mut starts = Vec::new();
    for _ in 0..plan.samples {
        drop_page_cache()?;
        starts.push(start_and_stop(&sandbox).await?);
    }
    report_starts(figures, "cold, page cache dropped", &starts);
    Ok(())
}

/// Writes what is dirty to the disk, then drops the clean pages the kernel
/// holds of files (and its dentries and inodes).
fn drop_page_cache() -> Result<()> {
    let synced = Command::new("sync").status().context("running sync")?;
    if !synced.success() {
        bail!("sync exited with {synced}");
    }
    std::fs::write(DROP_CACHES, "3").context("dropping the page cache")
}

/// Warm starts where the window was left on a long thread: its last look
/// is the thread's newest page of messages, the largest snapshot a start
/// usually has, painted before the page's own list and thread.
pub(crate) async fn long_thread_start_figures(figures: &mut Figures, plan: &Plan) -> Result<()> {
    const THREAD: &str = "A long thread";
    let sandbox = Sandbox::new()?;
    seed::data_root(&sandbox.data_root(), async |store| {
        let thread_id = seed::thread(store, THREAD, 40, None).await?;
        let place = pizza_protocol::WindowPlace {
            screen: pizza_protocol::WindowScreen::Inbox,
            thread_id: Some(thread_id),
        };
        store.set_setting("window.place", &place).await?;
        Ok(())
    })
    .await?;
    // The first start takes the look: the page sends it once still.
    let kept = sandbox.data_root().join("window-snapshot.html");
    let (app, _) = timed_start(&sandbox).await?;
    let deadline = Instant::now() + TIMEOUT;
    while !std::fs::read_to_string(&kept)
        .is_ok_and(|html| html.contains(THREAD) && html.contains("Answer 39"))
    {
        if Instant::now() > deadline {
            bail!("the long thread's look was not kept within {TIMEOUT:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.stop();
    let size = std::fs::metadata(&kept)?.len();
    println!("  the long thread's look: {} KiB", size / 1024);
    let mut starts = Vec::new();
    for _ in 0..plan.samples {
        starts.push(start_and_stop(&sandbox).await?);
    }
    report_starts(figures, "warm, on a long thread", &starts);
    Ok(())
}
