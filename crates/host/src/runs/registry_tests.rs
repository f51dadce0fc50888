//! The registry's buffers over time, on tokio's paused clock: nothing else
//! runs, so the only thing that can drop a finished run's frames is the
//! registry's own timer.

use super::*;

fn delta(text: &str) -> RunEvent {
    RunEvent::TextDelta {
        text: text.to_owned(),
    }
}

/// How many frames a new subscription from the start replays; each is
/// checked to name its thread and run.
fn replayed(registry: &RunRegistry, thread_id: &str) -> usize {
    let mut subscription = registry.subscribe(thread_id, Some(0), "main");
    let mut frames = 0;
    while let Ok(frame) = subscription.frames.try_recv() {
        assert_eq!(frame.thread_id, thread_id);
        assert!(frame.run_id.starts_with('r'), "{frame:?}");
        frames += 1;
    }
    registry.unsubscribe(thread_id, &subscription.id, "main");
    frames
}

#[tokio::test(start_paused = true)]
async fn a_replay_gives_each_frame_its_run_and_thread_in_order() {
    let registry = RunRegistry::default();
    let first = registry.reserve("t1").unwrap().bind("r1".to_owned());
    first.emit(&["task-1".to_owned()], delta("inside"));
    first.finish(delta("first"));
    let second = registry.reserve("t1").unwrap().bind("r2".to_owned());
    second.emit(&[], delta("second"));

    let mut subscription = registry.subscribe("t1", Some(0), "main");
    let mut seen = Vec::new();
    while let Ok(frame) = subscription.frames.try_recv() {
        seen.push((frame.seq, frame.run_id, frame.thread_id, frame.namespace));
    }
    assert_eq!(
        seen,
        [
            (
                1,
                "r1".to_owned(),
                "t1".to_owned(),
                vec!["task-1".to_owned()]
            ),
            (2, "r1".to_owned(), "t1".to_owned(), vec![]),
            (3, "r2".to_owned(), "t1".to_owned(), vec![]),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_finished_runs_frames_go_after_the_retention_though_no_other_run_starts() {
    let registry = RunRegistry::default();
    let run = registry.reserve("t1").unwrap().bind("r1".to_owned());
    run.emit(&[], delta("Hello"));
    run.emit(&[], delta(", world"));
    run.finish(delta("."));
    let entry = lock(&registry.threads).get("t1").cloned().unwrap();

    // Replayable for the whole retention...
    tokio::time::sleep(FINISHED_RETENTION - Duration::from_secs(1)).await;
    assert_eq!(replayed(&registry, "t1"), 3);

    // ...then gone, with no reservation or subscription to sweep them.
    tokio::time::sleep(Duration::from_secs(1) + Duration::from_millis(1)).await;
    assert!(lock(&entry).buffers.is_empty());
    assert_eq!(replayed(&registry, "t1"), 0);
}

#[tokio::test(start_paused = true)]
async fn the_live_runs_frames_stay_while_an_earlier_runs_go() {
    let registry = RunRegistry::default();
    let first = registry.reserve("t1").unwrap().bind("r1".to_owned());
    first.finish(delta("first"));
    let second = registry.reserve("t1").unwrap().bind("r2".to_owned());
    second.emit(&[], delta("still going"));
    let entry = lock(&registry.threads).get("t1").cloned().unwrap();

    tokio::time::sleep(FINISHED_RETENTION + Duration::from_secs(1)).await;
    let kept: Vec<RunId> = lock(&entry)
        .buffers
        .iter()
        .map(|b| b.run_id.clone())
        .collect();
    assert_eq!(kept, ["r2"]);
    second.finish(delta("done"));
    assert_eq!(replayed(&registry, "t1"), 2);
}
