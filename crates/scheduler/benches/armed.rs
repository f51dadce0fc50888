//! The runtime at rest and on time: `cargo bench -p pizza-scheduler --bench armed`.
//!
//! Arms 1,000 cron triggers on a real store plus one every minute, measures
//! how late that one fires after its tick (target < 1 s), removes it, then
//! the process's CPU time over 20 s with the 1,000 armed and none due
//! (target ~0 %), on the machine's clocks. The wall clock is shifted so a minute boundary is 3 s away
//! rather than up to a minute.

use std::error::Error;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use chrono::{DateTime, Timelike, Utc};
use pizza_scheduler::{
    Launch, Launched, Nap, Scheduler, Sink, StartOptions, SystemClock, WallClock, Zone,
};
use pizza_store::{NewTrigger, Occurrence, Store, Trigger, TriggerKind};
use tokio::sync::mpsc;

const ARMED: usize = 1_000;
const IDLE: Duration = Duration::from_secs(20);

/// The machine's clocks with the wall clock moved by a fixed offset.
struct ShiftedClock {
    system: SystemClock,
    offset: chrono::Duration,
}

impl WallClock for ShiftedClock {
    fn now(&self) -> DateTime<Utc> {
        self.system.now() + self.offset
    }
    fn monotonic(&self) -> Duration {
        self.system.monotonic()
    }
    fn sleep(&self, duration: Duration) -> Nap {
        self.system.sleep(duration)
    }
}

/// Reports each launch with the instant it was asked for.
struct TimingSink {
    launched: mpsc::UnboundedSender<(DateTime<Utc>, Launch)>,
    clock: Arc<ShiftedClock>,
}

#[async_trait]
impl Sink for TimingSink {
    async fn launch(&self, launch: Launch) -> Result<Launched, String> {
        let _ = self.launched.send((self.clock.now(), launch));
        Ok(Launched {
            thread_id: "bench".to_owned(),
            run_id: "bench".to_owned(),
        })
    }
    async fn gave_up(&self, _trigger: &Trigger, _occurrence: &Occurrence) {}
    fn changed(&self, _trigger_id: &str) {}
}

/// User plus system CPU time of this process, from /proc (Linux).
fn cpu_time() -> Result<Duration, Box<dyn Error>> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // Fields after the command's closing parenthesis; utime and stime are
    // the 14th and 15th fields of the whole line.
    let rest = stat.rsplit_once(')').ok_or("unreadable /proc/self/stat")?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11).ok_or("no utime")?.parse::<u64>()?
        + fields.get(12).ok_or("no stime")?.parse::<u64>()?;
    // The kernel's USER_HZ is 100 on every Linux this runs on.
    Ok(Duration::from_millis(ticks * 10))
}

fn trigger(i: usize, cron: String) -> NewTrigger {
    NewTrigger {
        name: format!("Trigger {i}"),
        kind: TriggerKind::Cron,
        prompt: "Do the thing".to_owned(),
        model: None,
        enabled: true,
        cron: Some(cron),
        timezone: Some(["Europe/Paris", "America/New_York", "Asia/Tokyo", "UTC"][i % 4].to_owned()),
        webhook_secret: None,
    }
}

async fn bench() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path()).await?;
    // Shift the wall clock so the next minute boundary is 3 s away.
    let system = SystemClock::new();
    let real = system.now();
    let to_boundary = 57 - i64::from(real.second());
    let clock = Arc::new(ShiftedClock {
        system,
        offset: chrono::Duration::seconds(to_boundary),
    });
    let shifted_now = clock.now();
    // 1,000 daily triggers at times other than the next hour.
    let busy_hour = (shifted_now.hour() + 12) % 24;
    for i in 0..ARMED {
        store
            .create_trigger(trigger(i, format!("{} {busy_hour} * * *", i % 60)))
            .await?;
    }
    store
        .create_trigger(trigger(ARMED, "* * * * *".to_owned()))
        .await?;
    let (tx, mut launched) = mpsc::unbounded_channel();
    let sink = Arc::new(TimingSink {
        launched: tx,
        clock: Arc::clone(&clock),
    });
    let scheduler = Scheduler::new(store.clone(), sink, clock.clone(), Zone::UTC);
    let started = Instant::now();
    let _task = scheduler
        .start(StartOptions {
            enabled: true,
            enabled_since: None,
        })
        .await;
    while scheduler.armed_count() <= ARMED {
        tokio::task::yield_now().await;
    }
    println!(
        "armed {ARMED} triggers in {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );

    // On time: the one trigger every minute fires at the boundary 3 s away.
    let (at, launch) = launched.recv().await.ok_or("the sink closed")?;
    let tick = DateTime::from_timestamp_millis(launch.occurrence.scheduled_at).ok_or("bad tick")?;
    println!(
        "fire after its tick: {} ms (target < 1000 ms)",
        (at - tick).num_milliseconds()
    );
    store.delete_trigger(&launch.trigger.id).await?;
    scheduler.triggers_changed();
    while scheduler.armed_count() > ARMED {
        tokio::task::yield_now().await;
    }

    // Idle: none of the 1,000 is due for 12 hours.
    let before = cpu_time()?;
    let idle_start = Instant::now();
    tokio::time::sleep(IDLE).await;
    let used = cpu_time()? - before;
    let wall = idle_start.elapsed();
    println!(
        "idle with {ARMED} armed for {:.0} s: CPU {:.0} ms = {:.3} % (target ~0 %)",
        wall.as_secs_f64(),
        used.as_secs_f64() * 1e3,
        100.0 * used.as_secs_f64() / wall.as_secs_f64()
    );
    scheduler.stop();
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(bench())
}
