use pizza_store::{
    CAUGHT_UP_MISSED_RUN, Error, GAVE_UP_AFTER_MAX_ATTEMPTS, NewOccurrence,
    OCCURRENCE_MAX_ATTEMPTS, Occurrence, OccurrenceOutcome, OccurrenceReason, OccurrenceStatus,
    Recorded, SKIPPED_PREVIOUS_RUNNING, Store,
};
use pretty_assertions::assert_eq;

use super::support::{T0, assert_not_found, cron_trigger, open, open_at, row_counts};

const MINUTE: i64 = 60_000;

fn tick(trigger_id: &str, at: i64, reason: OccurrenceReason) -> NewOccurrence {
    NewOccurrence {
        trigger_id: trigger_id.to_owned(),
        scheduled_at: at,
        reason,
        prompt: None,
        sentence: None,
    }
}

async fn record_pending(store: &Store, new: NewOccurrence) -> Occurrence {
    match store.record_occurrence(new).await.unwrap() {
        Recorded::Pending(o) => o,
        other => panic!("expected a pending occurrence: {other:?}"),
    }
}

fn assert_conflict(err: &Error) {
    assert!(matches!(err, Error::Conflict(_)), "{err:?}");
}

#[tokio::test]
async fn a_fire_goes_pending_running_succeeded_and_the_trigger_remembers_it() {
    let t = open().await;
    let trigger = t.store.create_trigger(cron_trigger("Daily")).await.unwrap();
    let due = T0 + MINUTE;
    let pending = record_pending(&t.store, tick(&trigger.id, due, OccurrenceReason::Cron)).await;
    assert_eq!(
        pending,
        Occurrence {
            id: pending.id.clone(),
            trigger_id: trigger.id.clone(),
            scheduled_at: due,
            reason: OccurrenceReason::Cron,
            status: OccurrenceStatus::Pending,
            attempts: 0,
            prompt: None,
            run_id: None,
            thread_id: None,
            sentence: None,
            created_at: T0,
            updated_at: T0,
        }
    );

    t.clock.advance(5);
    let running = t
        .store
        .claim_occurrence(&pending.id, "run-1", "thread-1")
        .await
        .unwrap();
    assert_eq!(
        (
            running.status,
            running.attempts,
            running.run_id.as_deref(),
            running.thread_id.as_deref(),
            running.updated_at
        ),
        (
            OccurrenceStatus::Running,
            1,
            Some("run-1"),
            Some("thread-1"),
            T0 + 5
        )
    );
    let trigger_now = t.store.trigger(&trigger.id).await.unwrap();
    assert_eq!(
        (
            trigger_now.last_run_at,
            trigger_now.last_thread_id.as_deref()
        ),
        (Some(T0 + 5), Some("thread-1")),
        "the claim records the last fire in its own transaction"
    );
    assert_eq!(
        t.store.occurrence_for_run("run-1").await.unwrap(),
        Some(running.clone())
    );

    // A claim twice, or a finish by another run, would mean a second launch.
    let before = row_counts(t.dir.path()).await;
    assert_conflict(
        &t.store
            .claim_occurrence(&pending.id, "run-2", "thread-2")
            .await
            .unwrap_err(),
    );
    assert_conflict(
        &t.store
            .finish_occurrence(&pending.id, "run-2", OccurrenceOutcome::Succeeded)
            .await
            .unwrap_err(),
    );
    assert_conflict(
        &t.store
            .skip_occurrence(&pending.id, "no")
            .await
            .unwrap_err(),
    );
    assert_eq!(row_counts(t.dir.path()).await, before);

    t.clock.advance(1_000);
    let done = t
        .store
        .finish_occurrence(&pending.id, "run-1", OccurrenceOutcome::Succeeded)
        .await
        .unwrap();
    assert_eq!(
        (done.status, done.attempts, done.updated_at),
        (OccurrenceStatus::Succeeded, 1, T0 + 1_005)
    );
    for err in [
        t.store
            .finish_occurrence(&pending.id, "run-1", OccurrenceOutcome::Succeeded)
            .await
            .unwrap_err(),
        t.store
            .mark_occurrence_dead(&pending.id, GAVE_UP_AFTER_MAX_ATTEMPTS)
            .await
            .unwrap_err(),
        t.store
            .reclaim_occurrence(&pending.id, "run-3", "thread-3")
            .await
            .unwrap_err(),
    ] {
        assert_conflict(&err);
    }
    assert_not_found(
        &t.store
            .claim_occurrence("missing", "r", "t")
            .await
            .unwrap_err(),
        "occurrence",
    );
    assert_eq!(t.store.recoverable_occurrences().await.unwrap(), vec![]);
}

#[tokio::test]
async fn a_cron_tick_is_recorded_once_and_manual_fires_are_not_deduplicated() {
    let t = open().await;
    let trigger = t.store.create_trigger(cron_trigger("Daily")).await.unwrap();
    let due = T0 + MINUTE;
    let first = record_pending(&t.store, tick(&trigger.id, due, OccurrenceReason::Cron)).await;
    let o = t
        .store
        .claim_occurrence(&first.id, "run-1", "thread-1")
        .await
        .unwrap();
    t.store
        .finish_occurrence(
            &o.id,
            "run-1",
            OccurrenceOutcome::Failed {
                sentence: "The model provider refused the request.".into(),
            },
        )
        .await
        .unwrap();
    let before = row_counts(t.dir.path()).await;

    // The same tick again, under either cron reason, writes nothing.
    for reason in [OccurrenceReason::Cron, OccurrenceReason::CronRecovery] {
        let again = t
            .store
            .record_occurrence(tick(&trigger.id, due, reason))
            .await
            .unwrap();
        let Recorded::AlreadyRecorded(existing) = again else {
            panic!("{again:?}")
        };
        assert_eq!(
            (
                existing.id.as_str(),
                existing.status,
                existing.sentence.as_deref()
            ),
            (
                first.id.as_str(),
                OccurrenceStatus::Failed,
                Some("The model provider refused the request.")
            )
        );
    }
    assert_eq!(row_counts(t.dir.path()).await, before);

    // Manual and webhook fires at that same millisecond are separate fires.
    let manual = record_pending(&t.store, tick(&trigger.id, due, OccurrenceReason::Manual)).await;
    t.store
        .skip_occurrence(&manual.id, "automations are paused")
        .await
        .unwrap();
    let mut hook = tick(&trigger.id, due, OccurrenceReason::Webhook);
    hook.prompt = Some("Deploy finished: summarise the log".into());
    let hook = record_pending(&t.store, hook).await;
    assert_eq!(
        hook.prompt.as_deref(),
        Some("Deploy finished: summarise the log")
    );

    let mut catch_up = tick(&trigger.id, due + MINUTE, OccurrenceReason::CronRecovery);
    catch_up.sentence = Some(CAUGHT_UP_MISSED_RUN.into());
    // The webhook fire is still pending: the catch-up is recorded, as skipped.
    let skipped = t.store.record_occurrence(catch_up.clone()).await.unwrap();
    let Recorded::Skipped(skipped) = skipped else {
        panic!("{skipped:?}")
    };
    assert_eq!(
        (skipped.status, skipped.sentence.as_deref()),
        (OccurrenceStatus::Skipped, Some(SKIPPED_PREVIOUS_RUNNING))
    );
    assert!(matches!(
        t.store.record_occurrence(catch_up).await.unwrap(),
        Recorded::AlreadyRecorded(o) if o.id == skipped.id
    ));
    assert_eq!(
        t.store.last_cron_tick(&trigger.id).await.unwrap(),
        Some(due + MINUTE)
    );

    assert_not_found(
        &t.store
            .record_occurrence(tick("missing", due, OccurrenceReason::Cron))
            .await
            .unwrap_err(),
        "trigger",
    );
    let mut huge = tick(&trigger.id, due, OccurrenceReason::Webhook);
    huge.prompt = Some("p".repeat(100_001));
    assert!(matches!(
        t.store.record_occurrence(huge).await,
        Err(Error::InvalidInput(m)) if m.contains("prompt")
    ));
}

#[tokio::test]
async fn a_fire_while_the_previous_runs_is_skipped_with_a_sentence() {
    let t = open().await;
    let trigger = t
        .store
        .create_trigger(cron_trigger("Hourly"))
        .await
        .unwrap();
    let first = record_pending(&t.store, tick(&trigger.id, T0, OccurrenceReason::Cron)).await;
    t.store
        .claim_occurrence(&first.id, "run-1", "thread-1")
        .await
        .unwrap();
    let next = t
        .store
        .record_occurrence(tick(&trigger.id, T0 + MINUTE, OccurrenceReason::Cron))
        .await
        .unwrap();
    let Recorded::Skipped(next) = next else {
        panic!("{next:?}")
    };
    assert_eq!(next.sentence.as_deref(), Some(SKIPPED_PREVIOUS_RUNNING));
    assert_eq!(next.attempts, 0);
    assert_conflict(
        &t.store
            .claim_occurrence(&next.id, "run-2", "thread-2")
            .await
            .unwrap_err(),
    );

    // Another trigger is not held up by this one.
    let other = t.store.create_trigger(cron_trigger("Other")).await.unwrap();
    record_pending(
        &t.store,
        tick(&other.id, T0 + MINUTE, OccurrenceReason::Cron),
    )
    .await;

    t.store
        .finish_occurrence(&first.id, "run-1", OccurrenceOutcome::Succeeded)
        .await
        .unwrap();
    record_pending(
        &t.store,
        tick(&trigger.id, T0 + 2 * MINUTE, OccurrenceReason::Cron),
    )
    .await;
}

#[tokio::test]
async fn startup_recovery_relaunches_across_restarts_and_gives_up_at_three_attempts() {
    let t = open().await;
    let trigger = t.store.create_trigger(cron_trigger("Daily")).await.unwrap();
    let running = record_pending(&t.store, tick(&trigger.id, T0, OccurrenceReason::Cron)).await;
    t.store
        .claim_occurrence(&running.id, "run-1", "thread-1")
        .await
        .unwrap();
    let other = t.store.create_trigger(cron_trigger("Other")).await.unwrap();
    t.clock.advance(1);
    let left_pending =
        record_pending(&t.store, tick(&other.id, T0, OccurrenceReason::Manual)).await;

    // Each "restart" reopens the file and relaunches what the crash left.
    let mut store = t.store.clone();
    for attempt in 2..=OCCURRENCE_MAX_ATTEMPTS {
        store.close().await;
        store = open_at(t.dir.path(), t.clock.clone()).await;
        let found = store.recoverable_occurrences().await.unwrap();
        let ids: Vec<_> = found.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(
            ids,
            [running.id.as_str(), left_pending.id.as_str()],
            "oldest first"
        );
        assert!(!found[0].attempts_exhausted());
        let again = store
            .reclaim_occurrence(&running.id, &format!("run-{attempt}"), "thread-x")
            .await
            .unwrap();
        assert_eq!(
            (again.status, again.attempts, again.run_id),
            (
                OccurrenceStatus::Running,
                attempt,
                Some(format!("run-{attempt}"))
            )
        );
        // A late finish from the crashed attempt cannot end the relaunch.
        assert_conflict(
            &store
                .finish_occurrence(&running.id, "run-1", OccurrenceOutcome::Succeeded)
                .await
                .unwrap_err(),
        );
    }
    let pending_now = store
        .reclaim_occurrence(&left_pending.id, "run-p", "thread-p")
        .await
        .unwrap();
    assert_eq!(pending_now.attempts, 1);
    store
        .finish_occurrence(&left_pending.id, "run-p", OccurrenceOutcome::Succeeded)
        .await
        .unwrap();

    store.close().await;
    let store = open_at(t.dir.path(), t.clock.clone()).await;
    let found = store.recoverable_occurrences().await.unwrap();
    assert_eq!(found.len(), 1);
    assert!(found[0].attempts_exhausted());
    assert_conflict(
        &store
            .reclaim_occurrence(&running.id, "run-4", "thread-4")
            .await
            .unwrap_err(),
    );
    let dead = store
        .mark_occurrence_dead(&running.id, GAVE_UP_AFTER_MAX_ATTEMPTS)
        .await
        .unwrap();
    assert_eq!(
        (dead.status, dead.attempts, dead.sentence.as_deref()),
        (OccurrenceStatus::Dead, 3, Some("gave up after 3 attempts"))
    );
    assert_eq!(store.recoverable_occurrences().await.unwrap(), vec![]);
    assert!(matches!(
        store.mark_occurrence_dead(&running.id, " ").await,
        Err(Error::InvalidInput(m)) if m.contains("sentence")
    ));
}

#[tokio::test]
async fn the_history_pages_newest_first_by_cursor() {
    let t = open().await;
    let trigger = t
        .store
        .create_trigger(cron_trigger("Every minute"))
        .await
        .unwrap();
    let other = t.store.create_trigger(cron_trigger("Other")).await.unwrap();
    let mut expected = Vec::new();
    for i in 0..7 {
        let o = record_pending(
            &t.store,
            tick(&trigger.id, T0 + i * MINUTE, OccurrenceReason::Cron),
        )
        .await;
        let o = t
            .store
            .skip_occurrence(&o.id, "automations are paused")
            .await
            .unwrap();
        expected.push(o);
        record_pending(
            &t.store,
            tick(&other.id, T0 + i * MINUTE, OccurrenceReason::Manual),
        )
        .await;
        let last = t.store.recoverable_occurrences().await.unwrap();
        t.store
            .skip_occurrence(&last[0].id, "paused")
            .await
            .unwrap();
    }
    // Two fires at one millisecond are ordered by id.
    let manual = record_pending(
        &t.store,
        tick(&trigger.id, T0 + 6 * MINUTE, OccurrenceReason::Manual),
    )
    .await;
    expected.push(manual);
    expected.reverse();
    if expected[0].id < expected[1].id {
        expected.swap(0, 1);
    }

    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = t
            .store
            .list_occurrences(&trigger.id, cursor.as_deref(), 3)
            .await
            .unwrap();
        assert!(page.occurrences.len() <= 3);
        seen.extend(page.occurrences);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, expected);
    assert!(matches!(
        t.store
            .list_occurrences(&trigger.id, Some("nonsense"), 3)
            .await,
        Err(Error::InvalidInput(_))
    ));
}
