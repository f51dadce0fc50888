use pizza_store::{FileChange, StepCommit, TaskStep};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{calls, new_thread, open, tool, user};

fn task_step(messages: Vec<pizza_store::NewMessage>, files: Vec<FileChange>) -> TaskStep {
    TaskStep {
        task_id: "call_task".to_owned(),
        skill: "notes".to_owned(),
        ask: "tidy my notes".to_owned(),
        messages,
        files,
        metadata: json!({ "model_calls": 1 }),
    }
}

#[tokio::test]
async fn a_delegation_keeps_its_own_transcript_and_commits_files_to_the_thread() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    t.commit(
        &th.id,
        StepCommit {
            messages: vec![user("tidy my notes"), calls(&["call_task"])],
            metadata: json!({ "orchestrator": true }),
            ..StepCommit::default()
        },
    )
    .await;
    assert_eq!(t.store.task(&th.id, "call_task").await.unwrap(), None);

    let first = t
        .store
        .commit_task_step(&th.id, task_step(vec![user("tidy my notes")], Vec::new()))
        .await
        .unwrap();
    assert_eq!(first[0].seq, 1);
    let head = t.store.state(&th.id, None).await.unwrap();
    assert_eq!(
        head.messages.len(),
        2,
        "the thread's transcript is untouched"
    );
    let step_before = head.checkpoint.as_ref().unwrap().step;

    let mut second = task_step(
        vec![calls(&["c1"]), tool("c1", "ok")],
        vec![FileChange::write("/notes.md", "tidy")],
    );
    second.metadata = json!({ "model_calls": 2 });
    let stored = t.store.commit_task_step(&th.id, second).await.unwrap();
    assert_eq!(stored.iter().map(|m| m.seq).collect::<Vec<_>>(), [2, 3]);

    let task = t.store.task(&th.id, "call_task").await.unwrap().unwrap();
    assert_eq!(
        (task.skill.as_str(), task.ask.as_str()),
        ("notes", "tidy my notes")
    );
    assert_eq!(task.metadata, json!({ "model_calls": 2 }));
    assert_eq!(task.messages.len(), 3);

    // The file change is a thread checkpoint that keeps the head's metadata.
    let head = t.store.state(&th.id, None).await.unwrap();
    let checkpoint = head.checkpoint.unwrap();
    assert_eq!(checkpoint.step, step_before + 1);
    assert_eq!(checkpoint.metadata, json!({ "orchestrator": true }));
    assert_eq!(head.files["/notes.md"].content, "tidy");
    assert_eq!(head.messages.len(), 2);
    let hits = t.store.search("tidy", 10).await.unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert!(
        hits.iter().all(|h| h.message_id != first[0].id),
        "a subagent's messages are not searched"
    );

    t.store.delete_thread(&th.id).await.unwrap();
    assert_eq!(t.store.task(&th.id, "call_task").await.unwrap(), None);
}
