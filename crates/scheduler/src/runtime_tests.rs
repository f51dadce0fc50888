use std::time::Duration;

use chrono_tz::{America::New_York, Europe::Paris};
use pizza_store::{
    GAVE_UP_AFTER_MAX_ATTEMPTS, OccurrenceOutcome, OccurrenceReason, OccurrenceStatus,
    SKIPPED_PREVIOUS_RUNNING,
};
use pretty_assertions::assert_eq;

use crate::Fired;
use crate::runtime_support::{Rig, Told, at, cron};

const MINUTE: Duration = Duration::from_secs(60);

fn launches(told: &[Told]) -> Vec<&crate::Launch> {
    told.iter()
        .filter_map(|t| match t {
            Told::Launched(launch) => Some(launch.as_ref()),
            Told::GaveUp(_) => None,
        })
        .collect()
}

#[tokio::test]
async fn a_due_tick_fires_once_on_time_in_a_new_thread() {
    let mut rig = Rig::new(at(Paris, 2026, 3, 2, 8, 58)).await;
    let trigger = rig
        .store
        .create_trigger(cron("Standup", "0 9 * * 1-5", "Europe/Paris"))
        .await
        .unwrap();
    rig.start(true).await;
    assert_eq!(rig.scheduler.armed_count(), 1);
    rig.advance(MINUTE).await;
    assert!(rig.told().is_empty(), "nothing is due at 08:59");

    rig.advance(MINUTE).await;
    let told = rig.told();
    let fired = launches(&told);
    assert_eq!(fired.len(), 1, "{told:?}");
    assert_eq!(fired[0].prompt, "Standup: do the thing");
    assert!(!fired[0].relaunch);
    let history = rig.history(&trigger).await;
    assert_eq!(history.len(), 1);
    let tick = &history[0];
    assert_eq!(
        (tick.reason, tick.status, tick.attempts, tick.scheduled_at),
        (
            OccurrenceReason::Cron,
            OccurrenceStatus::Running,
            1,
            at(Paris, 2026, 3, 2, 9, 0).timestamp_millis()
        )
    );
    // The run row and the thread exist, and the occurrence points at them.
    let run = rig
        .store
        .run(tick.run_id.as_deref().unwrap())
        .await
        .unwrap();
    assert_eq!(Some(run.thread_id.as_str()), tick.thread_id.as_deref());
    let thread = rig.store.thread(&run.thread_id).await.unwrap();
    assert_eq!(thread.title, "Standup");

    // The run's end is recorded on its occurrence.
    rig.scheduler
        .run_ended(&run.id, OccurrenceOutcome::Succeeded)
        .await;
    assert_eq!(
        rig.history(&trigger).await[0].status,
        OccurrenceStatus::Succeeded
    );
    // A quiet hour fires nothing more.
    rig.advance_minutes(60).await;
    assert!(rig.told().is_empty());
}

#[tokio::test]
async fn next_fires_follow_daylight_saving_in_two_zones() {
    // 02:30 does not exist on the spring-forward nights: Paris 29 March,
    // New York 8 March 2026. Each fires once, at the first instant after the gap.
    let mut rig = Rig::new(at(New_York, 2026, 3, 7, 23, 0)).await;
    let ny = rig
        .store
        .create_trigger(cron("NY", "30 2 * * *", "America/New_York"))
        .await
        .unwrap();
    rig.start(true).await;
    rig.advance_minutes(6 * 60).await;
    let ny_fires: Vec<_> = rig
        .history(&ny)
        .await
        .iter()
        .map(|o| o.scheduled_at)
        .collect();
    assert_eq!(
        ny_fires,
        vec![at(New_York, 2026, 3, 8, 3, 0).timestamp_millis()]
    );
    assert_eq!(launches(&rig.told()).len(), 1);

    let mut rig = Rig::new(at(Paris, 2026, 3, 28, 23, 0)).await;
    let paris = rig
        .store
        .create_trigger(cron("Paris", "30 2 * * *", "Europe/Paris"))
        .await
        .unwrap();
    rig.start(true).await;
    rig.advance_minutes(6 * 60).await;
    let paris_fires: Vec<_> = rig
        .history(&paris)
        .await
        .iter()
        .map(|o| o.scheduled_at)
        .collect();
    assert_eq!(
        paris_fires,
        vec![at(Paris, 2026, 3, 29, 3, 0).timestamp_millis()]
    );
    assert_eq!(launches(&rig.told()).len(), 1);
}

#[tokio::test]
async fn a_week_missed_while_the_app_was_not_running_fires_once() {
    let rig = Rig::new(at(Paris, 2026, 5, 4, 8, 0)).await;
    let daily = rig
        .store
        .create_trigger(cron("Daily", "0 9 * * *", "Europe/Paris"))
        .await
        .unwrap();
    rig.start(true).await;
    rig.advance_minutes(61).await;
    assert_eq!(rig.history(&daily).await.len(), 1, "Monday's 09:00 ran");
    let first = rig.history(&daily).await[0].clone();
    rig.scheduler
        .run_ended(
            first.run_id.as_deref().unwrap(),
            OccurrenceOutcome::Succeeded,
        )
        .await;

    // Quit; a week later (12:00 the next Monday) the app starts again.
    rig.scheduler.stop();
    rig.clock
        .advance(Duration::from_secs(7 * 24 * 3600 + 2 * 3600));
    let mut rig = rig.restarted().await;
    rig.start(true).await;
    let history = rig.history(&daily).await;
    assert_eq!(
        history.len(),
        2,
        "one catch-up, however many were missed: {history:?}"
    );
    let caught_up = &history[1];
    assert_eq!(
        (caught_up.reason, caught_up.status, caught_up.scheduled_at),
        (
            OccurrenceReason::CronRecovery,
            OccurrenceStatus::Running,
            at(Paris, 2026, 5, 11, 9, 0).timestamp_millis()
        )
    );
    assert_eq!(
        caught_up.sentence.as_deref(),
        Some(
            "7 runs were missed while Pizza Bot was not running or the computer slept; it ran once to catch up."
        )
    );
    assert_eq!(launches(&rig.told()).len(), 1);
    // Starting again later the same day catches up nothing more.
    let mut rig = rig.restarted().await;
    rig.start(true).await;
    let told = rig.told();
    // The catch-up's run was live at the restart: it is relaunched, not fired anew.
    assert!(launches(&told).iter().all(|l| l.relaunch), "{told:?}");
    assert_eq!(rig.history(&daily).await.len(), 2);
}

#[tokio::test]
async fn a_crashed_occurrence_is_relaunched_once_per_start_and_given_up_at_three() {
    let mut rig = Rig::new(at(Paris, 2026, 6, 1, 8, 59)).await;
    let trigger = rig
        .store
        .create_trigger(cron("Report", "0 9 * * *", "Europe/Paris"))
        .await
        .unwrap();
    rig.start(true).await;
    rig.advance(MINUTE).await;
    assert_eq!(launches(&rig.told()).len(), 1);
    let first_thread = rig.history(&trigger).await[0].thread_id.clone();

    for attempt in 2..=3 {
        // A crash: the run never ended. The next start relaunches it once,
        // continuing the same thread.
        rig = rig.restarted().await;
        rig.start(true).await;
        let told = rig.told();
        let relaunched = launches(&told);
        assert_eq!(relaunched.len(), 1, "attempt {attempt}: {told:?}");
        assert!(relaunched[0].relaunch);
        let o = &rig.history(&trigger).await[0];
        assert_eq!((o.status, o.attempts), (OccurrenceStatus::Running, attempt));
        assert_eq!(o.thread_id, first_thread, "the same thread goes on");
    }

    rig = rig.restarted().await;
    rig.start(true).await;
    let told = rig.told();
    assert!(launches(&told).is_empty(), "{told:?}");
    let o = rig.history(&trigger).await[0].clone();
    assert_eq!(
        (o.status, o.sentence.as_deref()),
        (OccurrenceStatus::Dead, Some(GAVE_UP_AFTER_MAX_ATTEMPTS))
    );
    assert_eq!(told, vec![Told::GaveUp(o)]);
    // Its trigger still fires on its next tick.
    rig.advance_minutes(24 * 60).await;
    assert_eq!(rig.history(&trigger).await.len(), 2);
}

#[tokio::test]
async fn a_tick_while_the_previous_run_still_runs_is_skipped_with_a_sentence() {
    let mut rig = Rig::new(at(Paris, 2026, 6, 1, 8, 59)).await;
    let trigger = rig
        .store
        .create_trigger(cron("Every minute", "* * * * *", "Europe/Paris"))
        .await
        .unwrap();
    rig.start(true).await;
    rig.advance(MINUTE).await;
    rig.advance(MINUTE).await;
    let history = rig.history(&trigger).await;
    assert_eq!(
        history
            .iter()
            .map(|o| (o.status, o.sentence.as_deref()))
            .collect::<Vec<_>>(),
        vec![
            (OccurrenceStatus::Running, None),
            (OccurrenceStatus::Skipped, Some(SKIPPED_PREVIOUS_RUNNING)),
        ]
    );
    assert_eq!(
        launches(&rig.told()).len(),
        1,
        "the skipped tick launched nothing"
    );

    // Run now is skipped the same way, and says so.
    let fired = rig
        .scheduler
        .fire_now(&trigger.id, OccurrenceReason::Manual, None)
        .await
        .unwrap();
    assert!(matches!(fired, Fired::Skipped(_)), "{fired:?}");
}

#[tokio::test]
async fn a_start_that_is_refused_fails_its_occurrence_with_the_reason() {
    let rig = Rig::new(at(Paris, 2026, 6, 1, 8, 59)).await;
    let trigger = rig
        .store
        .create_trigger(cron("Report", "0 9 * * *", "Europe/Paris"))
        .await
        .unwrap();
    rig.start(false).await;
    rig.refuse_next_launch("No model is set up yet.");
    let fired = rig
        .scheduler
        .fire_now(
            &trigger.id,
            OccurrenceReason::Manual,
            Some("Only this".to_owned()),
        )
        .await
        .unwrap();
    let Fired::Failed(failed) = fired else {
        panic!("expected a failed fire: {fired:?}");
    };
    assert_eq!(
        (
            failed.status,
            failed.sentence.as_deref(),
            failed.prompt.as_deref()
        ),
        (
            OccurrenceStatus::Failed,
            Some("No model is set up yet."),
            Some("Only this")
        )
    );
    // The next fire is not blocked by it.
    let fired = rig
        .scheduler
        .fire_now(&trigger.id, OccurrenceReason::Manual, None)
        .await
        .unwrap();
    assert!(matches!(fired, Fired::Started { .. }), "{fired:?}");
}

#[tokio::test]
async fn paused_automations_fire_nothing_and_resuming_does_not_catch_up() {
    let mut rig = Rig::new(at(Paris, 2026, 6, 1, 8, 0)).await;
    let trigger = rig
        .store
        .create_trigger(cron("Report", "0 9 * * *", "Europe/Paris"))
        .await
        .unwrap();
    rig.start(false).await;
    assert_eq!(rig.scheduler.armed_count(), 0);
    rig.advance_minutes(120).await;
    assert!(rig.history(&trigger).await.is_empty());
    rig.then(|s| s.set_enabled(true)).await;
    assert_eq!(rig.scheduler.armed_count(), 1);
    rig.advance(MINUTE).await;
    assert!(
        rig.told().is_empty(),
        "09:00 passed while paused: not caught up"
    );
    // Run now works while paused.
    rig.then(|s| s.set_enabled(false)).await;
    let fired = rig
        .scheduler
        .fire_now(&trigger.id, OccurrenceReason::Manual, None)
        .await
        .unwrap();
    assert!(matches!(fired, Fired::Started { .. }));
}

#[tokio::test]
async fn after_sleep_a_missed_tick_fires_once_and_nothing_in_flight_is_replayed() {
    let mut rig = Rig::new(at(Paris, 2026, 6, 1, 8, 59)).await;
    let busy = rig
        .store
        .create_trigger(cron("Busy", "0 9 * * *", "Europe/Paris"))
        .await
        .unwrap();
    let hourly = rig
        .store
        .create_trigger(cron("Hourly", "30 * * * *", "Europe/Paris"))
        .await
        .unwrap();
    rig.start(true).await;
    rig.advance(MINUTE).await;
    assert_eq!(launches(&rig.told()).len(), 1, "Busy's 09:00 is in flight");

    // The lid closes at 09:01 and opens two days later at 11:00.
    rig.then(crate::Scheduler::sleeping).await;
    rig.clock
        .advance(Duration::from_secs(2 * 24 * 3600 + 119 * 60));
    rig.then(crate::Scheduler::woke).await;
    let told = rig.told();
    let fired = launches(&told);
    assert_eq!(fired.len(), 1, "{told:?}");
    assert!(!fired[0].relaunch, "the in-flight run is not replayed");
    assert_eq!(fired[0].trigger.id, hourly.id);
    let caught_up = rig.history(&hourly).await;
    assert_eq!(
        caught_up
            .iter()
            .map(|o| (o.reason, o.scheduled_at))
            .collect::<Vec<_>>(),
        vec![(
            OccurrenceReason::CronRecovery,
            at(Paris, 2026, 6, 3, 10, 30).timestamp_millis()
        )]
    );
    // Busy's catch-up finds its run still going and says so.
    let busy_history = rig.history(&busy).await;
    assert_eq!(
        busy_history.iter().map(|o| o.status).collect::<Vec<_>>(),
        vec![OccurrenceStatus::Running, OccurrenceStatus::Skipped]
    );
}

#[tokio::test]
async fn a_clock_change_rearms_without_firing_twice() {
    let mut rig = Rig::new(at(Paris, 2026, 6, 1, 8, 59)).await;
    let trigger = rig
        .store
        .create_trigger(cron("Hourly", "0 * * * *", "Europe/Paris"))
        .await
        .unwrap();
    rig.start(true).await;
    rig.advance(MINUTE).await;
    let first = rig.history(&trigger).await[0].clone();
    rig.scheduler
        .run_ended(
            first.run_id.as_deref().unwrap(),
            OccurrenceOutcome::Succeeded,
        )
        .await;
    assert_eq!(launches(&rig.told()).len(), 1);

    // The clock is set back 30 minutes (to 08:31): 09:00 comes round again
    // but was recorded, so it does not run again; 10:00 runs on time.
    rig.clock.jump(chrono::Duration::minutes(-30));
    rig.advance_minutes(31).await;
    assert!(rig.told().is_empty(), "09:00 does not run twice");
    rig.advance_minutes(60).await;
    let told = rig.told();
    assert_eq!(launches(&told).len(), 1, "{told:?}");
    let history = rig.history(&trigger).await;
    assert_eq!(
        history
            .iter()
            .map(|o| (o.reason, o.scheduled_at))
            .collect::<Vec<_>>(),
        vec![
            (
                OccurrenceReason::Cron,
                at(Paris, 2026, 6, 1, 9, 0).timestamp_millis()
            ),
            (
                OccurrenceReason::Cron,
                at(Paris, 2026, 6, 1, 10, 0).timestamp_millis()
            ),
        ]
    );
    rig.scheduler
        .run_ended(
            history[1].run_id.as_deref().unwrap(),
            OccurrenceOutcome::Succeeded,
        )
        .await;

    // Set forward three hours (10:01 → 13:01): one catch-up, not three.
    rig.clock.jump(chrono::Duration::hours(3));
    rig.advance(MINUTE).await;
    let history = rig.history(&trigger).await;
    assert_eq!(history.len(), 3, "{history:?}");
    assert_eq!(
        (history[2].reason, history[2].scheduled_at),
        (
            OccurrenceReason::CronRecovery,
            at(Paris, 2026, 6, 1, 13, 0).timestamp_millis()
        )
    );
}
