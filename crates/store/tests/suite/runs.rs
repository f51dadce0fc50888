use pizza_store::{
    ACTIVITY_RETAINED, Error, INTERRUPTED_BY_RESTART, NewActivity, RunError, RunOutcome, RunSource,
    RunStatus,
};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{T0, new_thread, open, row_counts};

#[tokio::test]
async fn run_lifecycle_and_one_live_run_per_thread() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let run = t.store.create_run(&th.id, RunSource::User).await.unwrap();
    assert_eq!(
        (run.status, run.started_at, run.ended_at),
        (RunStatus::Running, T0, None)
    );

    let before = row_counts(t.dir.path()).await;
    let err = t
        .store
        .create_run(&th.id, RunSource::Trigger)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Conflict(_)), "{err:?}");
    assert!(matches!(
        t.store.create_run("missing", RunSource::User).await,
        Err(Error::NotFound { .. })
    ));
    let err = t
        .store
        .finish_run(
            &run.id,
            RunOutcome {
                status: RunStatus::Running,
                error: None,
                usage: None,
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
    assert_eq!(row_counts(t.dir.path()).await, before);
    assert_eq!(t.store.live_runs().await.unwrap(), vec![run.clone()]);

    t.clock.advance(2_000);
    let outcome = RunOutcome {
        status: RunStatus::Failed,
        error: Some(RunError {
            code: "RATE_LIMIT".into(),
            message: "Slow down".into(),
        }),
        usage: Some(json!({ "input_tokens": 10, "output_tokens": 3 })),
    };
    let done = t.store.finish_run(&run.id, outcome.clone()).await.unwrap();
    assert_eq!(done.status, RunStatus::Failed);
    assert_eq!(done.error, outcome.error);
    assert_eq!(done.usage, outcome.usage);
    assert_eq!(done.ended_at, Some(T0 + 2_000));
    assert!(matches!(
        t.store.finish_run(&run.id, outcome.clone()).await,
        Err(Error::Conflict(_))
    ));
    assert!(matches!(
        t.store.finish_run("missing", outcome).await,
        Err(Error::NotFound { .. })
    ));
    assert_eq!(t.store.live_runs().await.unwrap(), vec![]);

    // The thread is free again.
    let again = t
        .store
        .create_run(&th.id, RunSource::Trigger)
        .await
        .unwrap();
    let history = t.store.thread_runs(&th.id, 10).await.unwrap();
    assert_eq!(
        history.iter().map(|r| &r.id).collect::<Vec<_>>(),
        [&again.id, &run.id]
    );
}

#[tokio::test]
async fn crash_recovery_interrupts_live_runs() {
    let t = open().await;
    let a = new_thread(&t.store).await;
    let b = new_thread(&t.store).await;
    let ra = t.store.create_run(&a.id, RunSource::User).await.unwrap();
    let rb = t.store.create_run(&b.id, RunSource::Trigger).await.unwrap();
    t.store
        .finish_run(
            &rb.id,
            RunOutcome {
                status: RunStatus::Succeeded,
                error: None,
                usage: None,
            },
        )
        .await
        .unwrap();
    t.store.create_run(&b.id, RunSource::User).await.unwrap();
    t.store.close().await;

    let store = super::support::open_at(t.dir.path(), t.clock.clone()).await;
    t.clock.advance(7);
    let interrupted = store.interrupt_live_runs().await.unwrap();
    assert_eq!(interrupted.len(), 2);
    for run in &interrupted {
        assert_eq!(run.status, RunStatus::Interrupted);
        assert_eq!(run.ended_at, Some(T0 + 7));
        assert_eq!(
            run.error.as_ref().map(|e| e.code.as_str()),
            Some(INTERRUPTED_BY_RESTART)
        );
    }
    assert!(interrupted.iter().any(|r| r.id == ra.id));
    assert_eq!(store.live_runs().await.unwrap(), vec![]);
    assert_eq!(
        store.run(&rb.id).await.unwrap().status,
        RunStatus::Succeeded
    );
    assert_eq!(store.interrupt_live_runs().await.unwrap(), vec![]);
}

#[tokio::test]
async fn activity_is_cursored_and_pruned_to_the_last_5000() {
    let t = open().await;
    let entry = |i: i64| NewActivity {
        thread_id: format!("t{}", i % 7),
        run_id: Some(format!("r{i}")),
        status: RunStatus::Succeeded,
        detail: json!({ "i": i }),
    };
    let first = t.store.append_activity(entry(0)).await.unwrap();
    let second = t.store.append_activity(entry(1)).await.unwrap();
    assert!(second.cursor > first.cursor);
    let since = t.store.activity_since(first.cursor, 10).await.unwrap();
    assert_eq!(since, vec![second.clone()]);

    let total = ACTIVITY_RETAINED + 123;
    let mut last = second;
    for i in 2..total {
        last = t.store.append_activity(entry(i)).await.unwrap();
    }
    let rows = row_counts(t.dir.path()).await;
    assert_eq!(
        rows.iter().find(|(n, _)| n == "activity").unwrap().1,
        ACTIVITY_RETAINED
    );

    let mut all = Vec::new();
    let mut cursor = 0;
    loop {
        let page = t.store.activity_since(cursor, 1_000).await.unwrap();
        let Some(end) = page.last() else { break };
        cursor = end.cursor;
        all.extend(page);
    }
    assert_eq!(all.len(), usize::try_from(ACTIVITY_RETAINED).unwrap());
    assert_eq!(all.last().unwrap(), &last);
    assert_eq!(all[0].detail, json!({ "i": total - ACTIVITY_RETAINED }));
    assert!(all.windows(2).all(|w| w[0].cursor < w[1].cursor));

    let err = t
        .store
        .append_activity(NewActivity {
            status: RunStatus::Running,
            ..entry(0)
        })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
}

#[tokio::test]
async fn resumable_is_set_with_the_interruption_and_cleared_by_a_newer_run() {
    let t = open().await;
    let a = new_thread(&t.store).await;
    let b = new_thread(&t.store).await;
    t.store.create_run(&a.id, RunSource::User).await.unwrap();
    t.store.create_run(&b.id, RunSource::User).await.unwrap();
    let interrupted = t.store.interrupt_live_runs().await.unwrap();
    assert!(interrupted.iter().all(|r| r.resumable));
    assert!(t.store.thread_resumable(&a.id).await.unwrap());
    assert!(t.store.thread_resumable(&b.id).await.unwrap());

    assert!(t.store.clear_resumable(&a.id).await.unwrap());
    assert!(!t.store.clear_resumable(&a.id).await.unwrap());
    assert!(!t.store.thread_resumable(&a.id).await.unwrap());

    let newer = t.store.create_run(&b.id, RunSource::User).await.unwrap();
    assert!(!newer.resumable);
    assert!(!t.store.thread_resumable(&b.id).await.unwrap());
}

#[tokio::test]
async fn last_ended_runs_give_each_threads_newest_outcome_in_one_query() {
    let t = open().await;
    let a = new_thread(&t.store).await;
    let b = new_thread(&t.store).await;
    let idle = new_thread(&t.store).await;
    let finish = |status: RunStatus, code: Option<&str>| RunOutcome {
        status,
        error: code.map(|c| RunError {
            code: c.into(),
            message: "no".into(),
        }),
        usage: None,
    };
    let old = t.store.create_run(&a.id, RunSource::User).await.unwrap();
    t.store
        .finish_run(&old.id, finish(RunStatus::Succeeded, None))
        .await
        .unwrap();
    t.clock.advance(10);
    let failed = t.store.create_run(&a.id, RunSource::Trigger).await.unwrap();
    t.store
        .finish_run(&failed.id, finish(RunStatus::Failed, Some("RATE_LIMIT")))
        .await
        .unwrap();
    t.clock.advance(10);
    // Live runs are not outcomes.
    t.store.create_run(&a.id, RunSource::User).await.unwrap();
    let only = t.store.create_run(&b.id, RunSource::User).await.unwrap();
    t.store
        .finish_run(&only.id, finish(RunStatus::Cancelled, None))
        .await
        .unwrap();

    let last = t
        .store
        .last_ended_runs(&[a.id.clone(), b.id.clone(), idle.id.clone()])
        .await
        .unwrap();
    assert_eq!(last.len(), 2);
    assert_eq!(last[&a.id].id, failed.id);
    assert_eq!(
        last[&a.id].error.as_ref().map(|e| e.code.as_str()),
        Some("RATE_LIMIT")
    );
    assert_eq!(last[&b.id].status, RunStatus::Cancelled);
    assert!(t.store.last_ended_runs(&[]).await.unwrap().is_empty());
}
