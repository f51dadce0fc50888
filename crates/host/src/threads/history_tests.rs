use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use pizza_protocol::{
    CheckpointForkParams, CheckpointGetParams, CheckpointSource, ErrorCode, FilePreview,
    MessagePart, ThreadCreateParams, ThreadFileListParams, ThreadFileParams, ThreadGetParams,
    ThreadIdParams,
};
use pizza_store::{FileChange, NewMessage, Part, Role, StepCommit};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;

use crate::Host;
use crate::tests::open;
use crate::threads::tests::ChosenFiles;

fn text(role: Role, text: &str) -> NewMessage {
    NewMessage::new(role, vec![Part::text(text)], text)
}

/// A thread of two turns; the second writes `/plan.md`. Answers its id.
async fn two_turns(host: &Host) -> String {
    let thread = host
        .thread_create(ThreadCreateParams {
            title: Some("Dough".to_owned()),
            folder_id: None,
        })
        .await
        .unwrap();
    for (question, answer, files) in [
        ("How long should dough rest?", "Two hours.", vec![]),
        (
            "Write the plan",
            "The plan is written.",
            vec![FileChange::write("/plan.md", "# Plan\nRest it.\n")],
        ),
    ] {
        host.store()
            .commit_step(
                &thread.id,
                StepCommit {
                    messages: vec![text(Role::User, question), text(Role::Assistant, answer)],
                    files,
                    ..StepCommit::default()
                },
            )
            .await
            .unwrap();
    }
    thread.id
}

fn texts(messages: &[pizza_protocol::MessageView]) -> Vec<String> {
    messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            MessagePart::Text { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn history_shows_a_checkpoint_and_forks_from_it() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let id = two_turns(&host).await;

    let history = host
        .thread_history(ThreadIdParams {
            thread_id: id.clone(),
        })
        .await
        .unwrap();
    let seen: Vec<_> = history
        .iter()
        .map(|c| {
            (
                c.step,
                c.messages_added,
                c.files_changed.clone(),
                c.preview.as_deref(),
                c.source,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                2,
                2,
                vec!["/plan.md".to_owned()],
                Some("The plan is written."),
                CheckpointSource::Run
            ),
            (1, 2, vec![], Some("Two hours."), CheckpointSource::Run),
        ]
    );

    let earlier = &history[1];
    let state = host
        .checkpoint_get(CheckpointGetParams {
            thread_id: id.clone(),
            checkpoint_id: earlier.id.clone(),
            ..CheckpointGetParams::default()
        })
        .await
        .unwrap();
    assert_eq!(&state.checkpoint, earlier);
    assert_eq!(
        texts(&state.messages),
        ["How long should dough rest?", "Two hours."]
    );
    assert!(!state.has_more_before);
    assert!(state.files.is_empty());
    // A page asked for past the checkpoint still ends at it.
    let page = host
        .checkpoint_get(CheckpointGetParams {
            thread_id: id.clone(),
            checkpoint_id: earlier.id.clone(),
            before_seq: Some(100),
            limit: Some(1),
        })
        .await
        .unwrap();
    assert_eq!(texts(&page.messages), ["Two hours."]);
    assert!(page.has_more_before);
    let later = host
        .checkpoint_get(CheckpointGetParams {
            thread_id: id.clone(),
            checkpoint_id: history[0].id.clone(),
            ..CheckpointGetParams::default()
        })
        .await
        .unwrap();
    assert_eq!(later.messages.len(), 4);
    assert_eq!(later.files.len(), 1);
    assert_eq!(later.files[0].path, "/plan.md");
    assert_eq!(later.files[0].mime, "text/markdown");

    let fork = host
        .checkpoint_fork(CheckpointForkParams {
            thread_id: id.clone(),
            checkpoint_id: earlier.id.clone(),
        })
        .await
        .unwrap();
    assert_eq!(fork.title, "Dough (fork)");
    assert_eq!(fork.parent_thread_id.as_deref(), Some(id.as_str()));
    let forked = host
        .thread_get(ThreadGetParams {
            thread_id: fork.id.clone(),
            ..ThreadGetParams::default()
        })
        .await
        .unwrap();
    assert_eq!(
        texts(&forked.messages),
        ["How long should dough rest?", "Two hours."]
    );
    let fork_history = host
        .thread_history(ThreadIdParams {
            thread_id: fork.id.clone(),
        })
        .await
        .unwrap();
    assert_eq!(fork_history.len(), 1);
    assert_eq!(fork_history[0].source, CheckpointSource::Fork);

    // Another thread's checkpoint, or none at all: not found.
    for err in [
        host.checkpoint_get(CheckpointGetParams {
            thread_id: fork.id.clone(),
            checkpoint_id: earlier.id.clone(),
            ..CheckpointGetParams::default()
        })
        .await
        .unwrap_err(),
        host.checkpoint_fork(CheckpointForkParams {
            thread_id: id.clone(),
            checkpoint_id: "nope".to_owned(),
        })
        .await
        .unwrap_err(),
    ] {
        assert_eq!(err.code, ErrorCode::NotFound, "{err:?}");
    }
}

fn file(thread_id: &str, path: &str) -> ThreadFileParams {
    ThreadFileParams {
        thread_id: thread_id.to_owned(),
        path: path.to_owned(),
        checkpoint_id: None,
    }
}

#[tokio::test]
async fn files_preview_and_save_as() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root).await;
    let id = two_turns(&host).await;
    let png = [0x89, b'P', b'N', b'G', 1, 2, 3];
    let png_b64 = base64::engine::general_purpose::STANDARD.encode(png);
    host.store()
        .commit_step(
            &id,
            StepCommit {
                messages: vec![text(Role::Assistant, "More files.")],
                files: vec![
                    FileChange::write("/art/dot.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>"),
                    FileChange::write("/art/dot.png", png_b64.clone()),
                    FileChange::write("/big.txt", "x".repeat(600 * 1024)),
                ],
                ..StepCommit::default()
            },
        )
        .await
        .unwrap();

    let listed = host
        .thread_file_list(ThreadFileListParams {
            thread_id: id.clone(),
            checkpoint_id: None,
        })
        .await
        .unwrap();
    let listed: Vec<(&str, &str, u64)> = listed
        .iter()
        .map(|f| (f.path.as_str(), f.mime.as_str(), f.size))
        .collect();
    assert_eq!(
        listed,
        [
            ("/art/dot.png", "image/png", png_b64.len() as u64),
            ("/art/dot.svg", "image/svg+xml", 41),
            ("/big.txt", "text/plain", 600 * 1024),
            ("/plan.md", "text/markdown", 16),
        ]
    );

    let plan = host.thread_file_get(file(&id, "/plan.md")).await.unwrap();
    assert_eq!(
        plan.preview,
        FilePreview::Text {
            text: "# Plan\nRest it.\n".to_owned()
        }
    );
    let svg = host
        .thread_file_get(file(&id, "/art/dot.svg"))
        .await
        .unwrap();
    assert!(
        matches!(&svg.preview, FilePreview::Image { src } if src.starts_with("data:image/svg+xml;base64,")),
        "{svg:?}"
    );
    let dot = host
        .thread_file_get(file(&id, "/art/dot.png"))
        .await
        .unwrap();
    assert_eq!(
        dot.preview,
        FilePreview::Image {
            src: format!("data:image/png;base64,{png_b64}")
        }
    );
    let big = host.thread_file_get(file(&id, "/big.txt")).await.unwrap();
    assert_eq!(big.preview, FilePreview::None);
    assert_eq!(big.file.size, 600 * 1024);
    let missing = host
        .thread_file_get(file(&id, "/nope.md"))
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);

    // Save as: the dialog's answer is written; a cancel writes nothing.
    let saved_md = root.base().join("plan-copy.md");
    let saved_png = root.base().join("dot.png");
    host.set_desktop_shell(Arc::new(ChosenFiles(Mutex::new(VecDeque::from([
        saved_md.clone(),
        saved_png.clone(),
        root.base().join("missing/x.md"),
    ])))))
    .await;
    let saved = host
        .thread_file_save(file(&id, "/plan.md"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(saved.path, saved_md.display().to_string());
    assert_eq!(
        std::fs::read_to_string(&saved_md).unwrap(),
        "# Plan\nRest it.\n"
    );
    assert_eq!(saved.bytes, 16);
    // An image kept as base64 is saved as the image.
    host.thread_file_save(file(&id, "/art/dot.png"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(std::fs::read(&saved_png).unwrap(), png);
    let refused = host
        .thread_file_save(file(&id, "/plan.md"))
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert_eq!(
        host.thread_file_save(file(&id, "/plan.md")).await.unwrap(),
        None
    );
    let missing = host
        .thread_file_save(file(&id, "/nope.md"))
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);

    // The files as they were at the first checkpoint: none yet.
    let history = host
        .thread_history(ThreadIdParams {
            thread_id: id.clone(),
        })
        .await
        .unwrap();
    let first = history.last().unwrap();
    let then = host
        .thread_file_list(ThreadFileListParams {
            thread_id: id.clone(),
            checkpoint_id: Some(first.id.clone()),
        })
        .await
        .unwrap();
    assert!(then.is_empty());
    let err = host
        .thread_file_get(ThreadFileParams {
            checkpoint_id: Some(first.id.clone()),
            ..file(&id, "/plan.md")
        })
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}
