//! SIGKILL a child process that records, claims and finishes cron ticks in a
//! loop (running startup recovery first, as the app does), then check that
//! every reported claim survived with its run id, no tick exists twice, and at
//! most the one occurrence in flight at the kill is left for recovery.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pizza_store::{
    GAVE_UP_AFTER_MAX_ATTEMPTS, NewOccurrence, OccurrenceOutcome, OccurrenceReason,
    OccurrenceStatus, Recorded, Store,
};

use super::support::cron_trigger;

const CHILD_ENV: &str = "PIZZA_STORE_OCCURRENCE_CRASH_CHILD";
const TRIALS: usize = 12;
const CLAIMED: &str = "claimed ";
const MINUTE: i64 = 60_000;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn run_id(tick: i64, attempt: i64) -> String {
    format!("run-{tick}-{attempt}")
}

/// The child: a no-op unless the parent set `CHILD_ENV`.
#[test]
fn occurrence_crash_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    runtime().block_on(async move {
        let store = Store::open(&dir).await.unwrap();
        let trigger = match store.list_triggers().await.unwrap().into_iter().next() {
            Some(summary) => summary.trigger,
            None => store.create_trigger(cron_trigger("Crash")).await.unwrap(),
        };
        // Startup recovery: relaunch once, or give up at the attempt budget.
        for o in store.recoverable_occurrences().await.unwrap() {
            if o.attempts_exhausted() {
                store
                    .mark_occurrence_dead(&o.id, GAVE_UP_AFTER_MAX_ATTEMPTS)
                    .await
                    .unwrap();
                continue;
            }
            let tick = o.scheduled_at / MINUTE;
            let run = run_id(tick, o.attempts + 1);
            store
                .reclaim_occurrence(&o.id, &run, "thread")
                .await
                .unwrap();
            store
                .finish_occurrence(&o.id, &run, OccurrenceOutcome::Succeeded)
                .await
                .unwrap();
        }
        let mut stdout = std::io::stdout().lock();
        let mut tick = store
            .last_cron_tick(&trigger.id)
            .await
            .unwrap()
            .unwrap_or(0)
            / MINUTE;
        // Bounded so an orphaned child cannot run forever.
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            tick += 1;
            let recorded = store
                .record_occurrence(NewOccurrence {
                    trigger_id: trigger.id.clone(),
                    scheduled_at: tick * MINUTE,
                    reason: OccurrenceReason::Cron,
                    prompt: None,
                    sentence: None,
                })
                .await
                .unwrap();
            let Recorded::Pending(o) = recorded else {
                panic!("tick {tick}: {recorded:?}")
            };
            let run = run_id(tick, 1);
            store.claim_occurrence(&o.id, &run, "thread").await.unwrap();
            writeln!(stdout, "{CLAIMED}{tick}").unwrap();
            stdout.flush().unwrap();
            store
                .finish_occurrence(&o.id, &run, OccurrenceOutcome::Succeeded)
                .await
                .unwrap();
        }
    });
}

#[test]
fn sigkill_never_loses_a_claim_nor_records_a_tick_twice() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut rng = fastrand::Rng::with_seed(0x0cc0_2026);
    let mut claimed = BTreeSet::new();
    let mut left_in_flight = 0;
    let rt = runtime();
    for trial in 0..TRIALS {
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "suite::occurrence_crash::occurrence_crash_child",
                "--nocapture",
            ])
            .env(CHILD_ENV, dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            // A panic in the child shows in the output.
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| l.strip_prefix(CLAIMED).and_then(|n| n.parse::<i64>().ok()))
                .collect::<Vec<_>>()
        });
        // The kill point itself is what is random: during recovery, mid-claim, mid-finish.
        std::thread::sleep(Duration::from_millis(rng.u64(5..200)));
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "trial {trial}: the child ended on its own"
        );
        claimed.extend(reader.join().unwrap());
        left_in_flight += rt.block_on(verify(dir.path(), &claimed, trial));
    }
    assert!(
        !claimed.is_empty(),
        "no trial claimed a tick; the child never got going"
    );
    eprintln!(
        "occurrence crash test: {TRIALS} kills, {} ticks claimed, {left_in_flight} kills \
         left one in flight for the next start to recover",
        claimed.len()
    );
}

/// Returns how many occurrences the kill left for recovery (0 or 1).
async fn verify(dir: &Path, claimed: &BTreeSet<i64>, trial: usize) -> usize {
    let store = Store::open(dir).await.unwrap();
    store.integrity_check().await.unwrap();
    let Some(summary) = store.list_triggers().await.unwrap().into_iter().next() else {
        assert!(claimed.is_empty(), "trial {trial}: claims but no trigger");
        return 0;
    };
    let mut history = Vec::new();
    let mut cursor = None;
    loop {
        let page = store
            .list_occurrences(&summary.trigger.id, cursor.as_deref(), 200)
            .await
            .unwrap();
        history.extend(page.occurrences);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    // Ticks 1..=n, each once: a recorded tick is never lost nor repeated.
    let mut ticks: Vec<i64> = history.iter().map(|o| o.scheduled_at / MINUTE).collect();
    ticks.reverse();
    let expected: Vec<i64> = (1..=i64::try_from(ticks.len()).unwrap()).collect();
    assert_eq!(ticks, expected, "trial {trial}");
    let lost: Vec<&i64> = claimed
        .iter()
        .filter(|tick| usize::try_from(**tick).unwrap() > history.len())
        .collect();
    assert!(
        lost.is_empty(),
        "trial {trial}: claimed ticks {lost:?} are not in the history of {} ticks \
         (trigger {} of {}; {} occurrences recoverable)",
        history.len(),
        summary.trigger.id,
        store.list_triggers().await.unwrap().len(),
        store.recoverable_occurrences().await.unwrap().len(),
    );
    for tick in claimed {
        let o = &history[history.len() - usize::try_from(*tick).unwrap()];
        assert!(
            o.attempts >= 1 && o.run_id.is_some(),
            "trial {trial}: claimed tick {tick} lost its claim: {o:?}"
        );
    }
    for o in &history {
        assert!(o.attempts <= 3, "trial {trial}: {o:?}");
        if o.status == OccurrenceStatus::Running {
            let tick = o.scheduled_at / MINUTE;
            assert_eq!(o.run_id, Some(run_id(tick, o.attempts)), "trial {trial}");
        }
    }
    let left = store.recoverable_occurrences().await.unwrap();
    assert!(left.len() <= 1, "trial {trial}: {left:?}");
    store.close().await;
    left.len()
}
