use pizza_store::{Error, QUEUE_MAX_PER_THREAD, RunStatus};
use pretty_assertions::assert_eq;

use super::support::{T0, new_thread, open};
use super::turns::queued_turn;

#[tokio::test]
async fn the_queue_keeps_order_survives_reopen_and_is_taken_with_its_run() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let first = t
        .store
        .queue_message(&th.id, "first", None, &[])
        .await
        .unwrap();
    // Same millisecond: insertion order still decides.
    let second = t
        .store
        .queue_message(&th.id, "second", Some("fake:m"), &[])
        .await
        .unwrap();
    assert_eq!(
        (first.created_at, second.model.as_deref()),
        (T0, Some("fake:m"))
    );
    t.store.close().await;

    let store = super::support::open_at(t.dir.path(), t.clock.clone()).await;
    assert_eq!(
        store.queued_messages(&th.id).await.unwrap(),
        vec![first.clone(), second.clone()]
    );
    assert_eq!(
        store.threads_with_queued().await.unwrap(),
        vec![th.id.clone()]
    );

    let started = store.start_turn(queued_turn(&th.id, &first)).await.unwrap();
    assert_eq!(started.run.status, RunStatus::Running);
    assert_eq!(
        store.queued_messages(&th.id).await.unwrap(),
        vec![second.clone()]
    );

    // Busy: the message stays queued.
    let mut second_turn = queued_turn(&th.id, &second);
    second_turn.expected_head = Some(started.step.checkpoint.id.clone());
    let busy = store.start_turn(second_turn).await.unwrap_err();
    assert!(matches!(busy, Error::Conflict(_)), "{busy:?}");
    assert_eq!(
        store.queued_messages(&th.id).await.unwrap(),
        vec![second.clone()]
    );

    store.remove_queued(&th.id, &second.id).await.unwrap();
    assert!(matches!(
        store.remove_queued(&th.id, &second.id).await,
        Err(Error::NotFound { .. })
    ));
    assert!(store.threads_with_queued().await.unwrap().is_empty());
}

#[tokio::test]
async fn bad_queue_input_is_refused_and_the_queue_is_bounded() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    assert!(matches!(
        t.store.queue_message(&th.id, "  ", None, &[]).await,
        Err(Error::InvalidInput(_))
    ));
    let too_long = "x".repeat(pizza_protocol::MESSAGE_TEXT_MAX_BYTES + 1);
    assert!(matches!(
        t.store.queue_message(&th.id, &too_long, None, &[]).await,
        Err(Error::InvalidInput(_))
    ));
    assert!(matches!(
        t.store.queue_message("missing", "hi", None, &[]).await,
        Err(Error::NotFound { .. })
    ));
    for i in 0..QUEUE_MAX_PER_THREAD {
        t.store
            .queue_message(&th.id, &format!("m{i}"), None, &[])
            .await
            .unwrap();
    }
    assert!(matches!(
        t.store
            .queue_message(&th.id, "one too many", None, &[])
            .await,
        Err(Error::Conflict(_))
    ));
    t.store.delete_thread(&th.id).await.unwrap();
    assert!(t.store.threads_with_queued().await.unwrap().is_empty());
}
