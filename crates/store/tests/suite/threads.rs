use pizza_store::{
    Error, FileChange, FolderFilter, ForkAt, NewThread, RunSource, ThreadQuery, ThreadSource,
    ThreadUpdate, ThreadView, ViewCounts,
};
use pretty_assertions::assert_eq;

use super::support::{T0, assistant, new_thread, open, row_counts, step, step_with_files, user};

#[tokio::test]
async fn create_and_get() {
    let t = open().await;
    let plain = new_thread(&t.store).await;
    assert_eq!(plain.source, ThreadSource::User);
    assert_eq!((plain.title.as_str(), plain.user_titled), ("", false));
    assert_eq!((plain.created_at, plain.last_activity_at), (T0, T0));
    assert_eq!(
        (plain.last_seq, plain.head_checkpoint_id.clone()),
        (0, None)
    );

    let titled = t
        .store
        .create_thread(NewThread {
            title: Some("  Weekly report ".into()),
            source: Some(ThreadSource::Trigger),
            model: Some("claude".into()),
            ..NewThread::default()
        })
        .await
        .unwrap();
    assert_eq!(titled.title, "Weekly report");
    assert!(titled.user_titled);
    assert_eq!(titled.source, ThreadSource::Trigger);
    assert_eq!(t.store.thread(&titled.id).await.unwrap(), titled);
    assert!(matches!(
        t.store.thread("nope").await,
        Err(Error::NotFound { what: "thread", .. })
    ));
}

#[tokio::test]
async fn bad_create_writes_nothing() {
    let t = open().await;
    let before = row_counts(t.dir.path()).await;
    let bad = [
        NewThread {
            title: Some("x".repeat(201)),
            ..NewThread::default()
        },
        NewThread {
            title: Some("   ".into()),
            ..NewThread::default()
        },
        NewThread {
            source: Some(ThreadSource::Fork),
            ..NewThread::default()
        },
    ];
    for new in bad {
        let err = t.store.create_thread(new).await.unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
    }
    let err = t
        .store
        .create_thread(NewThread {
            folder_id: Some("missing".into()),
            ..NewThread::default()
        })
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::NotFound { what: "folder", .. }),
        "{err:?}"
    );
    assert_eq!(row_counts(t.dir.path()).await, before);
}

#[tokio::test]
async fn list_pages_by_activity_with_views_and_folders() {
    let t = open().await;
    let folder = t.store.create_folder("Work").await.unwrap();
    let mut ids = Vec::new();
    for i in 0..7 {
        t.clock.advance(1_000);
        let th = t
            .store
            .create_thread(NewThread {
                folder_id: (i % 2 == 0).then(|| folder.id.clone()),
                ..NewThread::default()
            })
            .await
            .unwrap();
        ids.push(th.id);
    }
    // Two threads share a timestamp: id breaks the tie.
    t.clock.advance(1_000);
    let a = new_thread(&t.store).await;
    let b = new_thread(&t.store).await;
    ids.push(a.id.clone());
    ids.push(b.id.clone());
    for (i, id) in ids.iter().enumerate() {
        t.store
            .update_thread(
                id,
                ThreadUpdate {
                    unread: Some(i % 3 == 0),
                    awaiting_action: Some(i == 4),
                    ..ThreadUpdate::default()
                },
            )
            .await
            .unwrap();
    }

    let mut expected: Vec<String> = ids.clone();
    expected.reverse();
    // v7 ids are time-ordered, so the later-created of the tie sorts first.
    assert!(b.id > a.id);

    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = t
            .store
            .list_threads(&ThreadQuery {
                cursor: cursor.clone(),
                limit: 2,
                ..ThreadQuery::default()
            })
            .await
            .unwrap();
        assert!(page.threads.len() <= 2);
        seen.extend(page.threads.into_iter().map(|t| t.id));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, expected);

    let list = |view, folder| {
        let store = t.store.clone();
        async move {
            store
                .list_threads(&ThreadQuery {
                    view,
                    folder,
                    limit: 100,
                    ..ThreadQuery::default()
                })
                .await
                .unwrap()
                .threads
                .into_iter()
                .map(|t| t.id)
                .collect::<Vec<_>>()
        }
    };
    let pick = |f: &dyn Fn(usize) -> bool| -> Vec<String> {
        (0..ids.len())
            .rev()
            .filter(|i| f(*i))
            .map(|i| ids[i].clone())
            .collect()
    };
    assert_eq!(
        list(ThreadView::Unread, FolderFilter::Any).await,
        pick(&|i| i % 3 == 0)
    );
    assert_eq!(
        list(ThreadView::Action, FolderFilter::Any).await,
        pick(&|i| i == 4)
    );
    let in_folder = FolderFilter::Folder(folder.id.clone());
    assert_eq!(
        list(ThreadView::All, in_folder.clone()).await,
        pick(&|i| i < 7 && i % 2 == 0)
    );
    assert_eq!(
        list(ThreadView::Unread, in_folder.clone()).await,
        pick(&|i| i < 7 && i % 2 == 0 && i % 3 == 0)
    );
    assert_eq!(
        list(ThreadView::All, FolderFilter::Unfiled).await,
        pick(&|i| i >= 7 || i % 2 == 1)
    );

    assert_eq!(
        t.store.thread_counts(&FolderFilter::Any).await.unwrap(),
        ViewCounts {
            all: 9,
            unread: 3,
            action: 1
        }
    );
    assert_eq!(
        t.store.thread_counts(&in_folder).await.unwrap(),
        ViewCounts {
            all: 4,
            unread: 2,
            action: 1
        }
    );

    let err = t
        .store
        .list_threads(&ThreadQuery {
            cursor: Some("garbage".into()),
            ..ThreadQuery::default()
        })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
}

#[tokio::test]
async fn activity_moves_a_thread_to_the_top() {
    let t = open().await;
    let old = new_thread(&t.store).await;
    t.clock.advance(10);
    let newer = new_thread(&t.store).await;
    t.clock.advance(10);
    t.commit(&old.id, step(vec![user("hi")])).await;
    let page = t.store.list_threads(&ThreadQuery::default()).await.unwrap();
    let order: Vec<_> = page.threads.iter().map(|t| t.id.clone()).collect();
    assert_eq!(order, vec![old.id.clone(), newer.id]);
    assert_eq!(page.threads[0].last_activity_at, T0 + 20);
    assert_eq!(page.threads[0].preview, "hi");
}

#[tokio::test]
async fn update_and_user_title_wins_over_auto_title() {
    let t = open().await;
    let folder = t.store.create_folder("F").await.unwrap();
    let th = new_thread(&t.store).await;
    assert!(t.store.set_auto_title(&th.id, "Auto").await.unwrap());
    assert_eq!(t.store.thread(&th.id).await.unwrap().title, "Auto");

    let updated = t
        .store
        .update_thread(
            &th.id,
            ThreadUpdate {
                title: Some("Mine".into()),
                pinned: Some(true),
                unread: Some(true),
                awaiting_action: Some(true),
                folder_id: Some(Some(folder.id.clone())),
            },
        )
        .await
        .unwrap();
    assert_eq!(updated.title, "Mine");
    assert!(updated.user_titled && updated.pinned && updated.unread && updated.awaiting_action);
    assert_eq!(updated.folder_id, Some(folder.id.clone()));
    // Metadata edits are not activity.
    assert_eq!(updated.last_activity_at, T0);

    assert!(!t.store.set_auto_title(&th.id, "Generated").await.unwrap());
    assert_eq!(t.store.thread(&th.id).await.unwrap().title, "Mine");

    let cleared = t
        .store
        .update_thread(
            &th.id,
            ThreadUpdate {
                folder_id: Some(None),
                pinned: Some(false),
                ..ThreadUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!((cleared.folder_id, cleared.pinned), (None, false));
}

#[tokio::test]
async fn bad_update_writes_nothing() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let before = row_counts(t.dir.path()).await;
    let err = t
        .store
        .update_thread(
            &th.id,
            ThreadUpdate {
                title: Some(String::new()),
                pinned: Some(true),
                ..ThreadUpdate::default()
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
    let err = t
        .store
        .update_thread(
            &th.id,
            ThreadUpdate {
                folder_id: Some(Some("missing".into())),
                pinned: Some(true),
                ..ThreadUpdate::default()
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    let err = t
        .store
        .update_thread("missing", ThreadUpdate::default())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    assert!(matches!(
        t.store.set_auto_title(&th.id, " ").await,
        Err(Error::InvalidInput(_))
    ));
    assert_eq!(row_counts(t.dir.path()).await, before);
    assert!(!t.store.thread(&th.id).await.unwrap().pinned);
}

#[tokio::test]
async fn delete_cascades_and_forks_lose_their_parent() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let done = t
        .commit(
            &th.id,
            step_with_files(
                vec![user("hello"), assistant("world")],
                vec![FileChange::write("/a.md", "A")],
            ),
        )
        .await;
    t.store.create_run(&th.id, RunSource::User).await.unwrap();
    let fork = t
        .store
        .fork(&th.id, ForkAt::Message(&done.messages[1].id), None)
        .await
        .unwrap();
    let fork_counts = row_counts(t.dir.path()).await;

    t.store.delete_thread(&th.id).await.unwrap();
    assert!(matches!(
        t.store.thread(&th.id).await,
        Err(Error::NotFound { .. })
    ));
    let after = row_counts(t.dir.path()).await;
    let count = |rows: &[(String, i64)], table: &str| {
        rows.iter()
            .find(|(n, _)| n == table)
            .map(|(_, c)| *c)
            .unwrap()
    };
    assert_eq!(count(&fork_counts, "messages"), 4);
    assert_eq!(count(&after, "messages"), 2);
    assert_eq!(count(&after, "messages_fts"), 2);
    assert_eq!(count(&after, "checkpoints"), 1);
    assert_eq!(count(&after, "thread_files"), 1);
    assert_eq!(count(&after, "runs"), 0);
    assert!(
        t.store
            .search("hello", 10)
            .await
            .unwrap()
            .iter()
            .all(|h| h.thread_id == fork.id)
    );

    let orphan = t.store.thread(&fork.id).await.unwrap();
    assert_eq!(orphan.parent_thread_id, None);
    assert_eq!(
        t.store.state(&fork.id, None).await.unwrap().messages.len(),
        2
    );
    assert!(matches!(
        t.store.delete_thread(&th.id).await,
        Err(Error::NotFound { .. })
    ));
}

#[tokio::test]
async fn messages_page_from_the_end() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let msgs = (1..=25).map(|i| user(&format!("m{i}"))).collect();
    t.commit(&th.id, step(msgs)).await;

    let last = t.store.messages_before(&th.id, None, 10).await.unwrap();
    let seqs: Vec<i64> = last.messages.iter().map(|m| m.seq).collect();
    assert_eq!(seqs, (16..=25).collect::<Vec<_>>());
    assert!(last.has_more);
    let earlier = t.store.messages_before(&th.id, Some(16), 10).await.unwrap();
    assert_eq!(earlier.messages.first().map(|m| m.seq), Some(6));
    let first = t.store.messages_before(&th.id, Some(6), 10).await.unwrap();
    assert_eq!(first.messages.len(), 5);
    assert!(!first.has_more);
    assert_eq!(first.messages[0].text, "m1");
    assert!(matches!(
        t.store.messages_before("missing", None, 10).await,
        Err(Error::NotFound { .. })
    ));
}
