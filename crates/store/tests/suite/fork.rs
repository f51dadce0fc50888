use pizza_store::{Error, FileChange, ForkAt, ThreadSource};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{
    assert_not_found, assistant, calls, new_thread, open, row_counts, step, step_with_files, tool,
    user,
};

#[tokio::test]
async fn fork_copies_messages_and_files_up_to_the_message() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    t.store.set_auto_title(&th.id, "Research").await.unwrap();
    let s1 = t
        .commit(
            &th.id,
            step_with_files(
                vec![user("draft it")],
                vec![FileChange::write("/d.md", "v1")],
            ),
        )
        .await;
    let s2 = t.commit(&th.id, step(vec![calls(&["c1", "c2"])])).await;
    let s3 = t
        .commit(
            &th.id,
            step_with_files(
                vec![
                    tool("c1", "ok"),
                    tool("c2", "ok"),
                    assistant("Done, v2 written."),
                ],
                vec![FileChange::write("/d.md", "v2")],
            ),
        )
        .await;
    t.commit(
        &th.id,
        step_with_files(vec![user("again")], vec![FileChange::write("/d.md", "v3")]),
    )
    .await;

    let at = &s3.messages[2];
    t.clock.advance(100);
    let fork = t
        .store
        .fork(&th.id, ForkAt::Message(&at.id), None)
        .await
        .unwrap();
    assert_eq!(fork.source, ThreadSource::Fork);
    assert_eq!(fork.parent_thread_id, Some(th.id.clone()));
    assert_eq!(fork.parent_checkpoint_id, Some(s3.checkpoint.id.clone()));
    assert_eq!(fork.title, "Research");
    assert!(!fork.user_titled);
    assert_eq!(fork.last_seq, 5);
    assert_eq!(fork.preview, "Done, v2 written.");

    let state = t.store.state(&fork.id, None).await.unwrap();
    let texts: Vec<&str> = state.messages.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["draft it", "", "ok", "ok", "Done, v2 written."]);
    let original = t
        .store
        .state(&th.id, Some(&s3.checkpoint.id))
        .await
        .unwrap();
    for (copy, orig) in state.messages.iter().zip(&original.messages) {
        assert_ne!(copy.id, orig.id);
        assert_eq!(
            (
                copy.seq,
                copy.role,
                &copy.content,
                &copy.tool_call_ids,
                &copy.tool_call_id
            ),
            (
                orig.seq,
                orig.role,
                &orig.content,
                &orig.tool_call_ids,
                &orig.tool_call_id
            )
        );
    }
    assert_eq!(state.files["/d.md"].content, "v2");
    let cp = state.checkpoint.unwrap();
    assert_eq!((cp.step, cp.message_seq, cp.parent_id), (1, 5, None));
    assert_eq!(cp.metadata["source"], json!("fork"));

    // The fork goes on independently.
    let next = t.commit(&fork.id, step(vec![user("branch")])).await;
    assert_eq!(next.messages[0].seq, 6);
    assert_eq!(t.store.thread(&th.id).await.unwrap().last_seq, 6);
    assert_eq!(t.store.search("branch", 10).await.unwrap().len(), 1);

    // At the first message, with a title of the user's own.
    let early = t
        .store
        .fork(
            &th.id,
            ForkAt::Message(&s1.messages[0].id),
            Some("Try again"),
        )
        .await
        .unwrap();
    assert!(early.user_titled);
    let early_state = t.store.state(&early.id, None).await.unwrap();
    assert_eq!(early_state.messages.len(), 1);
    assert_eq!(early_state.files["/d.md"].content, "v1");
    let _ = s2;
}

#[tokio::test]
async fn fork_inside_a_tool_call_is_refused_and_writes_nothing() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    t.commit(&th.id, step(vec![user("go")])).await;
    let issued = t.commit(&th.id, step(vec![calls(&["a", "b"])])).await;
    let half = t.commit(&th.id, step(vec![tool("a", "one")])).await;
    let all = t
        .commit(&th.id, step(vec![tool("b", "two"), assistant("both done")]))
        .await;
    let before = row_counts(t.dir.path()).await;

    for inside in [&issued.messages[0].id, &half.messages[0].id] {
        let err = t
            .store
            .fork(&th.id, ForkAt::Message(inside), None)
            .await
            .unwrap_err();
        match &err {
            Error::InvalidInput(msg) => assert!(msg.contains("tool call"), "{msg}"),
            other => panic!("expected InvalidInput, got {other:?}"),
        }
    }
    let err = t
        .store
        .fork(&th.id, ForkAt::Message("no-such-message"), None)
        .await
        .unwrap_err();
    assert_not_found(&err, "message");
    let err = t
        .store
        .fork(&th.id, ForkAt::Message(&all.messages[0].id), Some(""))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
    assert_eq!(row_counts(t.dir.path()).await, before);

    // Once every call has its result, forking there is fine.
    assert!(
        t.store
            .fork(&th.id, ForkAt::Message(&all.messages[0].id), None)
            .await
            .is_ok()
    );
}
