//! The history panel's reads: checkpoints with what each step changed, the
//! files at a checkpoint, one file, and forking at a checkpoint.

use pizza_store::{FileChange, ForkAt, StateFileInfo, StateUpdate};
use pretty_assertions::assert_eq;

use super::support::{
    T0, assert_not_found, assistant, calls, new_thread, open, row_counts, step, step_with_files,
    tool, user,
};

#[tokio::test]
async fn entries_say_what_each_step_added() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let s1 = t
        .commit(
            &th.id,
            step_with_files(
                vec![user("Write the plan")],
                vec![FileChange::write("/plan.md", "# Plan")],
            ),
        )
        .await;
    t.clock.advance(10);
    let s2 = t.commit(&th.id, step(vec![calls(&["c1"])])).await;
    let s3 = t
        .commit(
            &th.id,
            step_with_files(
                vec![tool("c1", "ok"), assistant("Plan written.")],
                vec![
                    FileChange::write("/plan.md", "# Plan v2"),
                    FileChange::write("/b.txt", "b"),
                ],
            ),
        )
        .await;
    let s4 = t
        .store
        .update_state(
            &th.id,
            StateUpdate {
                files: vec![FileChange::delete("/b.txt")],
                ..StateUpdate::default()
            },
        )
        .await
        .unwrap();

    let entries = t.store.history_entries(&th.id, None, 50).await.unwrap();
    let seen: Vec<(&str, i64, Vec<&str>, Option<&str>)> = entries
        .iter()
        .map(|e| {
            (
                e.checkpoint.id.as_str(),
                e.messages_added,
                e.files_changed.iter().map(String::as_str).collect(),
                e.preview.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (s4.checkpoint.id.as_str(), 0, vec!["/b.txt"], None),
            (
                s3.checkpoint.id.as_str(),
                2,
                vec!["/b.txt", "/plan.md"],
                Some("Plan written.")
            ),
            (s2.checkpoint.id.as_str(), 1, vec![], None),
            (
                s1.checkpoint.id.as_str(),
                1,
                vec!["/plan.md"],
                Some("Write the plan")
            ),
        ]
    );

    // A page further back counts from the checkpoint before it, not from zero.
    let older = t
        .store
        .history_entries(&th.id, Some(s3.checkpoint.step), 1)
        .await
        .unwrap();
    assert_eq!(older.len(), 1);
    assert_eq!(older[0].checkpoint.id, s2.checkpoint.id);
    assert_eq!(older[0].messages_added, 1);
    assert!(older[0].files_changed.is_empty());

    let empty = new_thread(&t.store).await;
    assert!(
        t.store
            .history_entries(&empty.id, None, 50)
            .await
            .unwrap()
            .is_empty()
    );
    let err = t.store.history_entries("nope", None, 50).await.unwrap_err();
    assert_not_found(&err, "thread");
}

#[tokio::test]
async fn files_and_one_file_at_a_checkpoint() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    assert!(t.store.state_files(&th.id, None).await.unwrap().is_empty());
    let s1 = t
        .commit(
            &th.id,
            step_with_files(
                vec![user("go")],
                vec![
                    FileChange::write("/notes.md", "héllo"),
                    FileChange::write("/a.svg", "<svg/>"),
                ],
            ),
        )
        .await;
    t.clock.advance(5);
    t.commit(
        &th.id,
        step_with_files(
            vec![assistant("done")],
            vec![
                FileChange::write("/notes.md", "hello again"),
                FileChange::delete("/a.svg"),
            ],
        ),
    )
    .await;

    assert_eq!(
        t.store.state_files(&th.id, None).await.unwrap(),
        [StateFileInfo {
            path: "/notes.md".to_owned(),
            size: 11,
            modified_at: T0 + 5,
        }]
    );
    assert_eq!(
        t.store
            .state_files(&th.id, Some(&s1.checkpoint.id))
            .await
            .unwrap(),
        [
            StateFileInfo {
                path: "/a.svg".to_owned(),
                size: 6,
                modified_at: T0,
            },
            StateFileInfo {
                path: "/notes.md".to_owned(),
                // Bytes, not characters.
                size: 6,
                modified_at: T0,
            },
        ]
    );

    let now = t.store.state_file(&th.id, "/notes.md", None).await.unwrap();
    assert_eq!(now.content, "hello again");
    let then = t
        .store
        .state_file(&th.id, "/notes.md", Some(&s1.checkpoint.id))
        .await
        .unwrap();
    assert_eq!(then.content, "héllo");
    for err in [
        t.store
            .state_file(&th.id, "/a.svg", None)
            .await
            .unwrap_err(),
        t.store
            .state_file(&th.id, "/missing", None)
            .await
            .unwrap_err(),
    ] {
        assert_not_found(&err, "file");
    }
    let other = new_thread(&t.store).await;
    let err = t
        .store
        .state_files(&other.id, Some(&s1.checkpoint.id))
        .await
        .unwrap_err();
    assert_not_found(&err, "checkpoint");
    let err = t
        .store
        .checkpoint(&other.id, &s1.checkpoint.id)
        .await
        .unwrap_err();
    assert_not_found(&err, "checkpoint");
    assert_eq!(
        t.store.checkpoint(&th.id, &s1.checkpoint.id).await.unwrap(),
        s1.checkpoint
    );
}

#[tokio::test]
async fn fork_at_a_checkpoint_takes_its_messages_and_files() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let s1 = t
        .commit(
            &th.id,
            step_with_files(
                vec![user("first"), assistant("one")],
                vec![FileChange::write("/d.md", "v1")],
            ),
        )
        .await;
    let s2 = t
        .commit(&th.id, step(vec![user("second"), calls(&["c1"])]))
        .await;
    t.commit(
        &th.id,
        step_with_files(
            vec![tool("c1", "ok"), assistant("two")],
            vec![FileChange::write("/d.md", "v2")],
        ),
    )
    .await;

    let fork = t
        .store
        .fork(&th.id, ForkAt::Checkpoint(&s1.checkpoint.id), Some("Early"))
        .await
        .unwrap();
    assert_eq!(fork.parent_checkpoint_id, Some(s1.checkpoint.id.clone()));
    assert_eq!(fork.title, "Early");
    let state = t.store.state(&fork.id, None).await.unwrap();
    let texts: Vec<&str> = state.messages.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["first", "one"]);
    assert_eq!(state.files["/d.md"].content, "v1");
    let entries = t.store.history_entries(&fork.id, None, 50).await.unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].messages_added, 2);

    // Mid tool call: refused, nothing written.
    let before = row_counts(t.dir.path()).await;
    let err = t
        .store
        .fork(&th.id, ForkAt::Checkpoint(&s2.checkpoint.id), None)
        .await
        .unwrap_err();
    assert!(
        matches!(err, pizza_store::Error::InvalidInput(_)),
        "{err:?}"
    );
    assert_eq!(row_counts(t.dir.path()).await, before);
    let other = new_thread(&t.store).await;
    let err = t
        .store
        .fork(&other.id, ForkAt::Checkpoint(&s1.checkpoint.id), None)
        .await
        .unwrap_err();
    assert_not_found(&err, "checkpoint");
}
