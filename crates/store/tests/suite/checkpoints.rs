use std::collections::BTreeMap;

use pizza_store::{Error, FileChange, NewMessage, Role, StateUpdate, StepCommit, ThreadState};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{
    T0, assert_not_found, assistant, calls, content, new_thread, open, row_counts, step,
    step_with_files, tool, user,
};

fn files(state: &ThreadState) -> BTreeMap<String, String> {
    state
        .files
        .iter()
        .map(|(p, f)| (p.clone(), f.content.clone()))
        .collect()
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(p, c)| ((*p).to_owned(), (*c).to_owned()))
        .collect()
}

#[tokio::test]
async fn commit_appends_messages_and_links_checkpoints() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    t.clock.advance(5);
    let first = t
        .commit(
            &th.id,
            StepCommit {
                messages: vec![user("What is 2+2?"), calls(&["c1"])],
                metadata: json!({ "node": "model" }),
                ..StepCommit::default()
            },
        )
        .await;
    assert_eq!(first.checkpoint.step, 1);
    assert_eq!(first.checkpoint.parent_id, None);
    assert_eq!(first.checkpoint.message_seq, 2);
    assert_eq!(first.checkpoint.files_version, 0);
    assert_eq!(first.checkpoint.metadata, json!({ "node": "model" }));
    assert_eq!(first.checkpoint.created_at, T0 + 5);
    let seqs: Vec<i64> = first.messages.iter().map(|m| m.seq).collect();
    assert_eq!(seqs, [1, 2]);
    assert_eq!(first.messages[1].tool_call_ids, ["c1"]);

    let second = t
        .commit(&th.id, step(vec![tool("c1", "4"), assistant("It is 4.")]))
        .await;
    assert_eq!(second.checkpoint.step, 2);
    assert_eq!(
        second.checkpoint.parent_id,
        Some(first.checkpoint.id.clone())
    );
    assert_eq!(second.checkpoint.message_seq, 4);
    assert_eq!(second.checkpoint.metadata, json!({}));

    let thread = t.store.thread(&th.id).await.unwrap();
    assert_eq!(thread.last_seq, 4);
    assert_eq!(
        thread.head_checkpoint_id,
        Some(second.checkpoint.id.clone())
    );
    assert_eq!(thread.preview, "It is 4.");
    assert_eq!(thread.last_activity_at, T0 + 5);

    // A step of only tool output keeps the last human-readable preview.
    t.commit(&th.id, step(vec![calls(&["c2"]), tool("c2", "raw output")]))
        .await;
    assert_eq!(t.store.thread(&th.id).await.unwrap().preview, "It is 4.");

    let state = t.store.state(&th.id, None).await.unwrap();
    let texts: Vec<&str> = state.messages.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(
        texts,
        ["What is 2+2?", "", "4", "It is 4.", "", "raw output"]
    );
    assert_eq!(state.messages[0].content, content("What is 2+2?"));
    assert_eq!(state.messages[2].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(state.messages[2].role, Role::Tool);

    let at_first = t
        .store
        .state(&th.id, Some(&first.checkpoint.id))
        .await
        .unwrap();
    assert_eq!(at_first.messages.len(), 2);
    assert_eq!(at_first.checkpoint, Some(first.checkpoint));
}

#[tokio::test]
async fn files_are_versioned_and_snapshots_read_old_checkpoints() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let c1 = t
        .commit(
            &th.id,
            step_with_files(
                vec![user("write")],
                vec![
                    FileChange::write("/a.md", "a1"),
                    FileChange::write("/b.md", "b1"),
                ],
            ),
        )
        .await
        .checkpoint;
    // Rewriting identical content and deleting a missing file are no change.
    let c2 = t
        .commit(
            &th.id,
            step_with_files(
                vec![],
                vec![FileChange::write("/a.md", "a1"), FileChange::delete("/zzz")],
            ),
        )
        .await
        .checkpoint;
    let c3 = t
        .commit(
            &th.id,
            step_with_files(
                vec![assistant("edited")],
                vec![
                    FileChange::write("/a.md", "a2"),
                    FileChange::delete("/b.md"),
                ],
            ),
        )
        .await
        .checkpoint;
    let c4 = t.commit(&th.id, step(vec![user("more")])).await.checkpoint;
    let c5 = t
        .commit(
            &th.id,
            step_with_files(vec![], vec![FileChange::write("/b.md", "b-again")]),
        )
        .await
        .checkpoint;
    let versions: Vec<i64> = [&c1, &c2, &c3, &c4, &c5]
        .iter()
        .map(|c| c.files_version)
        .collect();
    assert_eq!(versions, [1, 1, 2, 2, 3]);

    let at = |id: String| {
        let store = t.store.clone();
        let th = th.id.clone();
        async move { files(&store.state(&th, Some(&id)).await.unwrap()) }
    };
    assert_eq!(
        at(c1.id.clone()).await,
        map(&[("/a.md", "a1"), ("/b.md", "b1")])
    );
    assert_eq!(
        at(c2.id.clone()).await,
        map(&[("/a.md", "a1"), ("/b.md", "b1")])
    );
    assert_eq!(at(c3.id.clone()).await, map(&[("/a.md", "a2")]));
    assert_eq!(at(c4.id.clone()).await, map(&[("/a.md", "a2")]));
    assert_eq!(
        files(&t.store.state(&th.id, None).await.unwrap()),
        map(&[("/a.md", "a2"), ("/b.md", "b-again")])
    );

    let rows = row_counts(t.dir.path()).await;
    let file_rows = rows.iter().find(|(n, _)| n == "thread_files").unwrap().1;
    // a1, b1, a2, b tombstone, b-again: one row per real change, never a full copy.
    assert_eq!(file_rows, 5);

    let history = t.store.history(&th.id, None, 100).await.unwrap();
    let steps: Vec<i64> = history.iter().map(|c| c.step).collect();
    assert_eq!(steps, [5, 4, 3, 2, 1]);
    let older = t.store.history(&th.id, Some(4), 2).await.unwrap();
    assert_eq!(older.iter().map(|c| c.step).collect::<Vec<_>>(), [3, 2]);
}

#[tokio::test]
async fn interrupts_and_state_updates() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let empty = t.store.state(&th.id, None).await.unwrap();
    assert_eq!(empty.checkpoint, None);
    assert!(empty.messages.is_empty() && empty.files.is_empty());

    let interrupt = json!({ "action": "write_file", "allowed": ["approve", "reject"] });
    t.commit(
        &th.id,
        StepCommit {
            messages: vec![user("go"), calls(&["w1"])],
            interrupt: Some(interrupt.clone()),
            ..StepCommit::default()
        },
    )
    .await;
    let state = t.store.state(&th.id, None).await.unwrap();
    assert_eq!(state.interrupt, Some(interrupt.clone()));

    // A user's edit keeps the pending decision.
    let edited = t
        .store
        .update_state(
            &th.id,
            StateUpdate {
                files: vec![FileChange::write("/notes.md", "by hand")],
                ..StateUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(edited.checkpoint.interrupt, Some(interrupt));
    assert_eq!(edited.checkpoint.metadata, json!({ "source": "update" }));
    assert_eq!(edited.checkpoint.step, 2);

    let appended = t
        .store
        .update_state(
            &th.id,
            StateUpdate {
                messages: vec![user("note")],
                ..StateUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(appended.messages[0].seq, 3);
    let state = t.store.state(&th.id, None).await.unwrap();
    assert_eq!(state.messages.len(), 3);
    assert_eq!(files(&state), map(&[("/notes.md", "by hand")]));

    // The next step answers the interrupt.
    t.commit(&th.id, step(vec![tool("w1", "approved")])).await;
    assert_eq!(t.store.state(&th.id, None).await.unwrap().interrupt, None);

    let err = t
        .store
        .update_state(&th.id, StateUpdate::default())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
}

#[tokio::test]
async fn bad_steps_write_nothing() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let other = new_thread(&t.store).await;
    let c = t.commit(&th.id, step(vec![user("start")])).await;
    let before = row_counts(t.dir.path()).await;

    let bad_steps = vec![
        step(vec![
            user("fine"),
            NewMessage::new(Role::Tool, Vec::new(), "no call id"),
        ]),
        step(vec![
            user("fine"),
            NewMessage::new(Role::User, Vec::new(), "x").with_tool_calls(["c"]),
        ]),
        step(vec![
            NewMessage::new(Role::Assistant, Vec::new(), "x").answering("c"),
        ]),
        step(vec![calls(&[""])]),
        step_with_files(
            vec![user("fine")],
            vec![FileChange::write("/a", "1"), FileChange::write("/a", "2")],
        ),
        step_with_files(vec![user("fine")], vec![FileChange::write(" ", "1")]),
        step_with_files(
            vec![user("fine")],
            vec![FileChange::write("x".repeat(1025), "1")],
        ),
    ];
    for bad in bad_steps {
        let err = t.store.commit_step(&th.id, bad).await.unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
    }
    let err = t
        .store
        .commit_step("missing", step(vec![user("x")]))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    assert_eq!(row_counts(t.dir.path()).await, before);

    // A checkpoint of another thread is not found here.
    let err = t
        .store
        .state(&other.id, Some(&c.checkpoint.id))
        .await
        .unwrap_err();
    assert_not_found(&err, "checkpoint");
    assert!(matches!(
        t.store.history("missing", None, 10).await,
        Err(Error::NotFound { .. })
    ));
}

#[tokio::test]
async fn concurrent_commits_from_clones_keep_seqs_contiguous() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let store = t.store.clone();
            let id = th.id.clone();
            tokio::spawn(async move {
                for j in 0..5 {
                    store
                        .commit_step(&id, step(vec![user(&format!("{i}-{j}a")), user("b")]))
                        .await
                        .unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let state = t.store.state(&th.id, None).await.unwrap();
    let seqs: Vec<i64> = state.messages.iter().map(|m| m.seq).collect();
    assert_eq!(seqs, (1..=80).collect::<Vec<_>>());
    let history = t.store.history(&th.id, None, 100).await.unwrap();
    assert_eq!(history.len(), 40);
    // Each step's pair stays adjacent: no interleaving inside a step.
    for pair in state.messages.chunks(2) {
        assert!(pair[0].text.ends_with('a') && pair[1].text == "b");
    }
}

#[tokio::test]
async fn an_untitled_thread_is_listed_under_the_start_of_its_first_message() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    assert_eq!(th.title, "");
    let long =
        "Plan   a week of pizza nights\nwith a different dough each night and a shopping list";
    t.commit(
        &th.id,
        StepCommit {
            messages: vec![user(long)],
            ..StepCommit::default()
        },
    )
    .await;
    let interim = t.store.thread(&th.id).await.unwrap().title;
    assert!(
        interim.starts_with("Plan a week of pizza nights with a different dough each"),
        "{interim}"
    );
    assert!(
        interim.ends_with('…') && interim.chars().count() <= 60,
        "{interim}"
    );

    // A later message leaves it; the automatic title replaces it.
    t.commit(
        &th.id,
        StepCommit {
            messages: vec![assistant("Sure."), user("And desserts?")],
            ..StepCommit::default()
        },
    )
    .await;
    assert_eq!(t.store.thread(&th.id).await.unwrap().title, interim);
    assert!(t.store.set_auto_title(&th.id, "Pizza week").await.unwrap());
    assert_eq!(t.store.thread(&th.id).await.unwrap().title, "Pizza week");

    // A title the person gave is never replaced.
    let named = t
        .store
        .create_thread(pizza_store::NewThread {
            title: Some("Mine".into()),
            ..pizza_store::NewThread::default()
        })
        .await
        .unwrap();
    t.commit(
        &named.id,
        StepCommit {
            messages: vec![user("hello there")],
            ..StepCommit::default()
        },
    )
    .await;
    assert_eq!(t.store.thread(&named.id).await.unwrap().title, "Mine");
}
