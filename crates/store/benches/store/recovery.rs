//! Startup recovery over 10,000 trigger occurrences: the query that finds what
//! a crash left pending or running, and the Automations list beside it.

use std::time::Instant;

use pizza_store::{
    Durability, NewOccurrence, NewTrigger, OccurrenceOutcome, OccurrenceReason, Recorded, Store,
    TriggerKind,
};

use super::{BenchResult, ms, open, percentile, timed};

const OCCURRENCES: i64 = 10_000;
const MINUTE: i64 = 60_000;
const ITER: usize = 50;

fn cron_trigger(i: i64) -> NewTrigger {
    NewTrigger {
        name: format!("Trigger {i}"),
        kind: TriggerKind::Cron,
        prompt: "Summarise what changed".to_owned(),
        model: None,
        enabled: true,
        cron: Some("* * * * *".to_owned()),
        timezone: Some("Europe/Paris".to_owned()),
        webhook_secret: None,
    }
}

fn tick(trigger_id: &str, at: i64) -> NewOccurrence {
    NewOccurrence {
        trigger_id: trigger_id.to_owned(),
        scheduled_at: at,
        reason: OccurrenceReason::Cron,
        prompt: None,
        sentence: None,
    }
}

/// Records and claims one tick; returns its id and run id.
async fn launched(store: &Store, trigger_id: &str, at: i64) -> BenchResult<(String, String)> {
    let Recorded::Pending(o) = store.record_occurrence(tick(trigger_id, at)).await? else {
        return Err("the tick was not recorded as pending".into());
    };
    let run_id = format!("run-{}", o.id);
    store
        .claim_occurrence(&o.id, &run_id, &format!("thread-{}", o.id))
        .await?;
    Ok((o.id, run_id))
}

async fn measure_recoverable(store: &Store, label: &str, expect: usize) -> BenchResult {
    let mut samples = Vec::with_capacity(ITER);
    for _ in 0..ITER {
        let start = Instant::now();
        let found = store.recoverable_occurrences().await?;
        samples.push(start.elapsed());
        if found.len() != expect {
            return Err(format!("found {} recoverable, expected {expect}", found.len()).into());
        }
    }
    println!(
        "  recoverable_occurrences, {label}: p50 {:.3} ms  p90 {:.3} ms  (target < 200 ms)",
        ms(percentile(&mut samples, 0.5)),
        ms(percentile(&mut samples, 0.9))
    );
    Ok(())
}

pub(super) async fn recovery_bench() -> BenchResult {
    // The usual case: a long history (100 triggers × 100 finished fires) and
    // one fire per trigger that a crash left running.
    let dir = tempfile::tempdir()?;
    let (store, clock) = open(dir.path(), Durability::Normal).await?;
    let setup = Instant::now();
    let mut triggers = Vec::new();
    for i in 0..100 {
        triggers.push(store.create_trigger(cron_trigger(i)).await?.id);
    }
    let per_trigger = OCCURRENCES / 100;
    for n in 0..per_trigger {
        clock.advance(MINUTE);
        for id in &triggers {
            let (occurrence, run_id) = launched(&store, id, n * MINUTE).await?;
            if n + 1 < per_trigger {
                store
                    .finish_occurrence(&occurrence, &run_id, OccurrenceOutcome::Succeeded)
                    .await?;
            }
        }
    }
    println!(
        "startup recovery over {OCCURRENCES} occurrences (setup {:.1} s):",
        setup.elapsed().as_secs_f64()
    );
    measure_recoverable(&store, "100 left running among 10,000", triggers.len()).await?;
    let mut lists = Vec::with_capacity(ITER);
    for _ in 0..ITER {
        lists.push(timed(store.list_triggers()).await?);
    }
    println!(
        "  list_triggers with last outcome, 100 triggers: p50 {:.3} ms",
        ms(percentile(&mut lists, 0.5))
    );
    let mut pages = Vec::with_capacity(ITER);
    for _ in 0..ITER {
        pages.push(timed(store.list_occurrences(&triggers[0], None, 50)).await?);
    }
    println!(
        "  list_occurrences first page of 50: p50 {:.3} ms",
        ms(percentile(&mut pages, 0.5))
    );
    // The pass itself at the app's durability: relaunch each (one transaction apiece).
    store.close().await;
    let (store, _) = open(dir.path(), Durability::Full).await?;
    let start = Instant::now();
    for o in store.recoverable_occurrences().await? {
        store
            .reclaim_occurrence(&o.id, &format!("re-{}", o.id), &format!("re-{}", o.id))
            .await?;
    }
    println!(
        "  whole pass (query + 100 reclaims, Full durability): {:.1} ms",
        ms(start.elapsed())
    );
    store.close().await;

    // The worst case: every one of 10,000 occurrences left running.
    let dir = tempfile::tempdir()?;
    let (store, _) = open(dir.path(), Durability::Normal).await?;
    for i in 0..OCCURRENCES {
        let id = store.create_trigger(cron_trigger(i)).await?.id;
        launched(&store, &id, 0).await?;
    }
    let expect = usize::try_from(OCCURRENCES)?;
    measure_recoverable(&store, "all 10,000 left running", expect).await?;
    store.close().await;
    Ok(())
}
