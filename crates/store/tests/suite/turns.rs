use pizza_store::{
    CommittedStep, Error, NewMessage, NewThread, QueuedMessage, Role, RunSource, RunStatus,
    StepCommit, Store, ThreadSource, TurnStart, TurnThread,
};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{content, new_thread, open, row_counts, user};

fn step(text: &str) -> StepCommit {
    StepCommit {
        messages: vec![user(text)],
        files: Vec::new(),
        interrupt: None,
        metadata: json!({}),
    }
}

fn turn(thread: TurnThread, text: &str) -> TurnStart {
    TurnStart {
        thread,
        source: RunSource::User,
        step: step(text),
        expected_head: None,
        queued_id: None,
        answers_interrupt: false,
        occurrence: None,
        attachments: Vec::new(),
    }
}

/// Commits a step that waits for a decision (interrupt `i1`).
async fn asks(store: &Store, thread_id: &str) -> CommittedStep {
    store
        .commit_step(
            thread_id,
            StepCommit {
                interrupt: Some(json!({ "interrupt_id": "i1" })),
                ..step("asks")
            },
        )
        .await
        .unwrap()
}

/// The turn that sends `queued` on a thread with no checkpoint yet.
pub(crate) fn queued_turn(thread_id: &str, queued: &QueuedMessage) -> TurnStart {
    TurnStart {
        queued_id: Some(queued.id.clone()),
        attachments: queued.attachment_ids(),
        ..turn(TurnThread::Existing(thread_id.to_owned()), &queued.text)
    }
}

#[tokio::test]
async fn a_turn_writes_its_thread_run_and_message_together() {
    let t = open().await;
    let started = t
        .store
        .start_turn(turn(
            TurnThread::New(NewThread {
                source: Some(ThreadSource::User),
                ..NewThread::default()
            }),
            "hello",
        ))
        .await
        .unwrap();
    assert_eq!(started.run.status, RunStatus::Running);
    assert_eq!(started.run.thread_id, started.thread_id);
    let state = t.store.state(&started.thread_id, None).await.unwrap();
    assert_eq!(state.messages.len(), 1);
    assert_eq!(state.messages[0].text, "hello");
    assert_eq!(
        state.checkpoint.map(|c| c.id),
        Some(started.step.checkpoint.id)
    );
}

#[tokio::test]
async fn a_refused_turn_writes_nothing() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let pending = asks(&t.store, &th.id).await;
    let before = row_counts(t.dir.path()).await;

    // Waiting for a decision: no turn begins, even from the right head.
    let mut waiting = turn(TurnThread::Existing(th.id.clone()), "next");
    waiting.expected_head = Some(pending.checkpoint.id.clone());
    let refused = t.store.start_turn(waiting).await.unwrap_err();
    assert!(matches!(refused, Error::Conflict(_)), "{refused:?}");

    // Prepared from an older head.
    let other = new_thread(&t.store).await;
    t.store.commit_step(&other.id, step("first")).await.unwrap();
    let before_other = row_counts(t.dir.path()).await;
    let stale = t
        .store
        .start_turn(turn(TurnThread::Existing(other.id.clone()), "second"))
        .await
        .unwrap_err();
    assert!(matches!(stale, Error::Conflict(_)), "{stale:?}");

    // A new thread whose step is invalid (a tool result answering no call)
    // is not made either: the thread and run rows roll back with it.
    let mut invalid = turn(TurnThread::New(NewThread::default()), "x");
    invalid.step.messages = vec![NewMessage::new(Role::Tool, content("x"), "x")];
    let refused = t.store.start_turn(invalid).await.unwrap_err();
    assert!(matches!(refused, Error::InvalidInput(_)), "{refused:?}");

    assert_eq!(row_counts(t.dir.path()).await, before_other);
    assert_ne!(before, before_other);
}

#[tokio::test]
async fn a_turn_ends_an_older_resume_offer() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let first = t
        .store
        .start_turn(turn(TurnThread::Existing(th.id.clone()), "one"))
        .await
        .unwrap();
    t.store.interrupt_live_runs().await.unwrap();
    assert!(t.store.thread_resumable(&th.id).await.unwrap());

    let mut next = turn(TurnThread::Existing(th.id.clone()), "two");
    next.expected_head = Some(first.step.checkpoint.id);
    t.store.start_turn(next).await.unwrap();
    assert!(!t.store.thread_resumable(&th.id).await.unwrap());
}

#[tokio::test]
async fn an_answer_to_a_decision_is_written_with_its_run_exactly_once() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let asked = asks(&t.store, &th.id).await;
    let answer = || TurnStart {
        expected_head: Some(asked.checkpoint.id.clone()),
        answers_interrupt: true,
        occurrence: None,
        step: StepCommit {
            metadata: json!({ "approved": ["c1"] }),
            ..step("the answer")
        },
        ..turn(TurnThread::Existing(th.id.clone()), "unused")
    };
    let answered = t.store.start_turn(answer()).await.unwrap();
    let state = t.store.state(&th.id, None).await.unwrap();
    assert_eq!(state.interrupt, None);
    assert_eq!(
        state.checkpoint.map(|c| c.id),
        Some(answered.step.checkpoint.id)
    );
    t.store
        .finish_run(
            &answered.run.id,
            pizza_store::RunOutcome {
                status: RunStatus::Succeeded,
                error: None,
                usage: None,
            },
        )
        .await
        .unwrap();

    // Answered already: a second answer writes nothing.
    let before = row_counts(t.dir.path()).await;
    let again = t.store.start_turn(answer()).await.unwrap_err();
    assert!(matches!(again, Error::Conflict(_)), "{again:?}");
    assert_eq!(row_counts(t.dir.path()).await, before);
}

#[tokio::test]
async fn a_trigger_run_and_its_occurrence_are_written_together() {
    use pizza_store::{
        NewOccurrence, OccurrenceLaunch, OccurrenceReason, OccurrenceStatus, Recorded,
    };
    let t = open().await;
    let trigger = t
        .store
        .create_trigger(super::support::cron_trigger("Daily"))
        .await
        .unwrap();
    let Recorded::Pending(pending) = t
        .store
        .record_occurrence(NewOccurrence {
            trigger_id: trigger.id.clone(),
            scheduled_at: 1,
            reason: OccurrenceReason::Manual,
            prompt: None,
            sentence: None,
        })
        .await
        .unwrap()
    else {
        panic!("expected a pending occurrence");
    };
    let new_trigger_thread = || {
        TurnThread::New(NewThread {
            source: Some(ThreadSource::Trigger),
            ..NewThread::default()
        })
    };
    let launch = OccurrenceLaunch {
        occurrence_id: pending.id.clone(),
        relaunch: false,
    };
    let started = t
        .store
        .start_turn(TurnStart {
            source: RunSource::Trigger,
            occurrence: Some(launch.clone()),
            ..turn(new_trigger_thread(), "Summarise my inbox")
        })
        .await
        .unwrap();
    let running = t.store.occurrence(&pending.id).await.unwrap();
    assert_eq!(
        (
            running.status,
            running.attempts,
            running.run_id.as_deref(),
            running.thread_id.as_deref()
        ),
        (
            OccurrenceStatus::Running,
            1,
            Some(started.run.id.as_str()),
            Some(started.thread_id.as_str())
        )
    );

    // Launching it again is refused and writes no thread, run or message.
    let before = row_counts(t.dir.path()).await;
    let refused = t
        .store
        .start_turn(TurnStart {
            source: RunSource::Trigger,
            occurrence: Some(launch),
            ..turn(new_trigger_thread(), "Summarise my inbox")
        })
        .await
        .unwrap_err();
    assert!(matches!(refused, Error::Conflict(_)), "{refused:?}");
    assert_eq!(row_counts(t.dir.path()).await, before);

    // Startup's relaunch continues the same thread with a new run.
    let relaunched = t
        .store
        .create_run_for(
            &started.thread_id,
            RunSource::Trigger,
            Some(&OccurrenceLaunch {
                occurrence_id: pending.id.clone(),
                relaunch: true,
            }),
        )
        .await;
    // The first run is still live: one live run per thread.
    assert!(
        matches!(relaunched, Err(Error::Conflict(_))),
        "{relaunched:?}"
    );
    t.store
        .finish_run(
            &started.run.id,
            pizza_store::RunOutcome {
                status: RunStatus::Interrupted,
                error: None,
                usage: None,
            },
        )
        .await
        .unwrap();
    let run = t
        .store
        .create_run_for(
            &started.thread_id,
            RunSource::Trigger,
            Some(&OccurrenceLaunch {
                occurrence_id: pending.id.clone(),
                relaunch: true,
            }),
        )
        .await
        .unwrap();
    let again = t.store.occurrence(&pending.id).await.unwrap();
    assert_eq!(
        (again.attempts, again.run_id.as_deref()),
        (2, Some(run.id.as_str()))
    );
}
