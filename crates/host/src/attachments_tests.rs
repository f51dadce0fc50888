//! Attachment commands against a real temp store, and what a run sends the
//! model: the bytes inlined at the call, never stored in the transcript.

use base64::Engine as _;
use pizza_llm::{ContentPart, DocumentSource, FakeModel, FakeTurn, ImageSource};
use pizza_protocol::{
    AttachmentAddParams, AttachmentIdParams, AttachmentKind, AttachmentSource, ErrorCode,
    MessagePart, Role, ThreadGetParams, ThreadIdParams,
};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;

use crate::runs::tests::{open, start, subscribe, until_finished};
use crate::threads::tests::ChosenFiles;

/// A tiny valid PNG (1×1).
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0,
    1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 0x0a, 0x49, 0x44, 0x41, 0x54,
    0x78, 0x9c, 0x63, 0, 1, 0, 0, 5, 0, 1, 0x0d, 0x0a, 0x2d, 0xb4, 0, 0, 0, 0, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

fn bytes(name: &str, data: &[u8]) -> AttachmentAddParams {
    AttachmentAddParams {
        thread_id: None,
        source: AttachmentSource::Bytes {
            name: name.to_owned(),
            data: base64::engine::general_purpose::STANDARD.encode(data),
            mime: None,
        },
    }
}

fn path(path: &std::path::Path) -> AttachmentAddParams {
    AttachmentAddParams {
        thread_id: None,
        source: AttachmentSource::Path {
            path: path.display().to_string(),
        },
    }
}

fn stored_files(root: &TempDataRoot) -> usize {
    std::fs::read_dir(root.path().join("attachments")).map_or(0, Iterator::count)
}

#[tokio::test]
async fn bad_input_is_refused_with_a_sentence_and_nothing_stored() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::new()).await;
    let outside = tempfile::tempdir().unwrap();
    let empty = outside.path().join("empty.txt");
    std::fs::write(&empty, b"").unwrap();
    let big = outside.path().join("big.txt");
    std::fs::write(
        &big,
        vec![b'a'; (pizza_protocol::ATTACHMENT_MAX_BYTES + 1) as usize],
    )
    .unwrap();
    let song = outside.path().join("song.mp3");
    std::fs::write(&song, b"ID3").unwrap();

    let cases = [
        (path(&empty), "is empty"),
        (path(&big), "attachments can be up to 10.0 MB"),
        (path(&song), "is not a type a model can read"),
        (path(&outside.path().join("gone.png")), "is no longer there"),
        (path(outside.path()), "is a folder"),
        (bytes("../evil.txt", b"x"), "path separator"),
        (bytes("bell\u{7}.txt", b"x"), "control characters"),
    ];
    for (params, expected) in cases {
        let error = host.attachment_add(params).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidInput);
        assert!(
            error.message.contains(expected),
            "{expected:?} not in {:?}",
            error.message
        );
    }
    let mut damaged = bytes("a.txt", b"x");
    if let AttachmentSource::Bytes { data, .. } = &mut damaged.source {
        *data = "not base64!".into();
    }
    assert!(host.attachment_add(damaged).await.is_err());
    assert_eq!(stored_files(&root), 0, "no partial file left");
}

#[tokio::test]
async fn a_sent_image_reaches_the_model_inlined_and_the_thread_keeps_a_reference() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("a red dot"), FakeTurn::text("ok")]);
    let host = open(&root, &model).await;
    let outside = tempfile::tempdir().unwrap();
    let notes = outside.path().join("notes.md");
    std::fs::write(&notes, "# Plan\nship it").unwrap();

    let image = host.attachment_add(bytes("dot.png", PNG)).await.unwrap();
    assert_eq!(image.kind, AttachmentKind::Image);
    assert_eq!(image.mime, "image/png");
    assert!(image.thumbnail.as_deref().unwrap().ends_with(&image.id));
    let text = host.attachment_add(path(&notes)).await.unwrap();
    assert_eq!(text.kind, AttachmentKind::Text);

    let mut params = start(None, "what is this?");
    params.attachments = vec![image.id.clone(), text.id.clone()];
    let started = host.run_start(params).await.unwrap();
    let mut rx = subscribe(&host, &started.thread_id, None).await;
    until_finished(&mut rx).await;

    let request = &model.requests()[0];
    let user = request.messages.last().unwrap();
    assert_eq!(
        user.content,
        vec![
            ContentPart::text("what is this?"),
            ContentPart::Image {
                source: ImageSource::Base64 {
                    media_type: "image/png".into(),
                    data: base64::engine::general_purpose::STANDARD.encode(PNG),
                },
            },
            ContentPart::text(
                "<attachment name=\"notes.md\" type=\"text/markdown\">\n# Plan\nship it\n</attachment>"
            ),
        ]
    );
    // The thread shows the attachments; removing a sent one's chip keeps it.
    host.attachment_remove(AttachmentIdParams {
        id: image.id.clone(),
    })
    .await
    .unwrap();
    let detail = host
        .thread_get(ThreadGetParams {
            thread_id: started.thread_id.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    let first = &detail.messages[0];
    assert_eq!(first.role, Role::User);
    let shown: Vec<&str> = first
        .parts
        .iter()
        .filter_map(|p| match p {
            MessagePart::Attachment { attachment } => Some(attachment.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(shown, ["dot.png", "notes.md"]);
    assert_eq!(stored_files(&root), 2);

    // Deleting the thread deletes its files.
    host.thread_delete(ThreadIdParams {
        thread_id: started.thread_id,
    })
    .await
    .unwrap();
    assert_eq!(stored_files(&root), 0);
}

#[tokio::test]
async fn a_missing_file_and_an_unread_type_get_notices_not_a_failed_run() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("ok")]);
    let host = open(&root, &model).await;
    let image = host.attachment_add(bytes("dot.png", PNG)).await.unwrap();
    let pdf = host
        .attachment_add(bytes("spec.pdf", b"%PDF-1.4 tiny"))
        .await
        .unwrap();
    std::fs::remove_file(root.path().join("attachments").join(&image.id)).unwrap();

    let mut params = start(None, "read these");
    params.attachments = vec![image.id, pdf.id];
    let started = host.run_start(params).await.unwrap();
    let mut rx = subscribe(&host, &started.thread_id, None).await;
    let frames = until_finished(&mut rx).await;
    assert!(matches!(
        frames.last().unwrap().event,
        pizza_protocol::RunEvent::RunFinished {
            status: pizza_protocol::RunStatus::Succeeded,
            ..
        }
    ));
    let user = model.requests()[0].messages.last().unwrap().clone();
    assert_eq!(
        user.content,
        vec![
            ContentPart::text("read these"),
            ContentPart::text("[attachment dot.png unavailable]"),
            // The scripted provider takes no documents.
            ContentPart::text(
                "[document spec.pdf not shown: this model cannot read PDF documents]"
            ),
        ]
    );
    assert!(!user.content.iter().any(|p| matches!(
        p,
        ContentPart::Document {
            source: DocumentSource::Reference { .. },
            ..
        }
    )));
}

#[tokio::test]
async fn an_unsent_upload_is_removed_with_its_chip_and_an_unknown_id_is_refused_at_send() {
    let root = TempDataRoot::new().unwrap();
    let host = open(&root, &FakeModel::new()).await;
    let upload = host.attachment_add(bytes("a.txt", b"hello")).await.unwrap();
    assert_eq!(stored_files(&root), 1);
    host.attachment_remove(AttachmentIdParams { id: upload.id })
        .await
        .unwrap();
    assert_eq!(stored_files(&root), 0);

    let mut params = start(None, "hi");
    params.attachments = vec!["0000-gone".into()];
    let error = host.run_start(params).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidInput);
    assert!(error.message.contains("attach the file again"));
    let list = host
        .thread_list(pizza_protocol::ThreadListParams::default())
        .await
        .unwrap();
    assert!(
        list.threads.is_empty(),
        "nothing written for a refused send"
    );
}

#[tokio::test]
async fn identical_bytes_in_one_thread_are_stored_once() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("ok")]);
    let host = open(&root, &model).await;
    let first = host.attachment_add(bytes("a.png", PNG)).await.unwrap();
    let mut params = start(None, "one");
    params.attachments = vec![first.id.clone()];
    let started = host.run_start(params).await.unwrap();
    let mut rx = subscribe(&host, &started.thread_id, None).await;
    until_finished(&mut rx).await;

    let mut again = bytes("copy.png", PNG);
    again.thread_id = Some(started.thread_id.clone());
    let second = host.attachment_add(again).await.unwrap();
    assert_eq!(second.id, first.id);
    assert_eq!(stored_files(&root), 1);
}

#[tokio::test]
async fn a_message_of_files_alone_is_sent() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("a dot")]);
    let host = open(&root, &model).await;
    let image = host.attachment_add(bytes("dot.png", PNG)).await.unwrap();
    let mut params = start(None, "  ");
    params.attachments = vec![image.id];
    let started = host.run_start(params).await.unwrap();
    let mut rx = subscribe(&host, &started.thread_id, None).await;
    until_finished(&mut rx).await;
    let user = model.requests()[0].messages.last().unwrap().clone();
    assert!(matches!(
        user.content.as_slice(),
        [ContentPart::Image {
            source: ImageSource::Base64 { .. }
        }]
    ));
    // Without text or files, nothing is sent.
    let error = host.run_start(start(None, " ")).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidInput);
}

#[tokio::test]
async fn exports_write_the_files_beside_markdown_and_name_them_by_hash_in_jsonl() {
    use pizza_protocol::{ExportChooseParams, ExportFormat, ThreadExportParams};
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([FakeTurn::text("a dot")]);
    let host = open(&root, &model).await;
    let image = host.attachment_add(bytes("dot.png", PNG)).await.unwrap();
    let mut params = start(None, "look");
    params.attachments = vec![image.id];
    let started = host.run_start(params).await.unwrap();
    let mut rx = subscribe(&host, &started.thread_id, None).await;
    until_finished(&mut rx).await;

    let md = root.base().join("dot thread.md");
    let jsonl = root.base().join("dot thread.jsonl");
    host.set_desktop_shell(std::sync::Arc::new(ChosenFiles(std::sync::Mutex::new(
        [md.clone(), jsonl.clone()].into_iter().collect(),
    ))))
    .await;
    for format in [ExportFormat::Markdown, ExportFormat::Jsonl] {
        let token = host
            .export_choose(ExportChooseParams {
                format,
                suggested_name: None,
            })
            .await
            .unwrap()
            .unwrap()
            .token;
        host.thread_export(ThreadExportParams {
            thread_id: started.thread_id.clone(),
            format,
            token,
        })
        .await
        .unwrap();
    }
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains("![dot.png](<dot thread files/dot.png>)"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(root.base().join("dot thread files/dot.png")).unwrap(),
        PNG
    );
    let first: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&jsonl)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let part = &first["parts"][1];
    assert_eq!(part["type"], "attachment");
    assert_eq!(part["name"], "dot.png");
    assert_eq!(part["sha256"].as_str().unwrap().len(), 64);
    assert!(part.get("id").is_none(), "no app ids or URLs: {part}");
}
