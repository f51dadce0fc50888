use std::path::Path;

use pizza_protocol::{AttachmentKind, AttachmentView, MessagePart, attachment_src};
use pizza_store::{
    Attachment, AttachmentRef, Error, ForkAt, NewAttachment, NewMessage, NewThread, Part, Role,
    RunOutcome, RunSource, RunStatus, StepCommit, Store, TurnStart, TurnStarted, TurnThread,
    transcript,
};
use pretty_assertions::assert_eq;
use sqlx::{Connection, SqliteConnection};

use super::support::{T0, assert_not_found, new_thread, open, row_counts, user};

fn upload<'a>(thread_id: Option<&'a str>, name: &'a str, bytes: &'a [u8]) -> NewAttachment<'a> {
    NewAttachment {
        thread_id,
        name,
        mime: "image/png",
        bytes,
    }
}

/// A user message showing `attachment` as an image, with `text`.
fn with_image(text: &str, attachment: &Attachment) -> NewMessage {
    let parts = vec![
        Part::Image {
            attachment: attachment.reference(),
        },
        Part::text(text),
    ];
    NewMessage::new(Role::User, parts, text)
}

/// A turn on `thread` whose message carries `attachments`.
fn turn(thread: TurnThread, message: NewMessage, attachments: &[&Attachment]) -> TurnStart {
    TurnStart {
        thread,
        source: RunSource::User,
        step: StepCommit {
            messages: vec![message],
            ..StepCommit::default()
        },
        expected_head: None,
        queued_id: None,
        answers_interrupt: false,
        occurrence: None,
        attachments: attachments.iter().map(|a| a.id.clone()).collect(),
    }
}

async fn finish(store: &Store, started: &TurnStarted) {
    store
        .finish_run(
            &started.run.id,
            RunOutcome {
                status: RunStatus::Succeeded,
                error: None,
                usage: None,
            },
        )
        .await
        .unwrap();
}

/// The names of the files in the attachments folder, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn an_upload_is_stored_owner_only_and_reads_back() {
    let t = open().await;
    let bytes = b"\x89PNG not really".to_vec();
    let added = t
        .store
        .add_attachment(upload(None, "shot.png", &bytes))
        .await
        .unwrap();
    assert_eq!(
        (
            added.size,
            added.created_at,
            added.sent_at,
            added.sha256.len()
        ),
        (bytes.len() as u64, T0, None, 64)
    );
    assert_eq!(t.store.attachment(&added.id).await.unwrap(), added);
    assert_eq!(t.store.read_attachment(&added.id).await.unwrap(), bytes);

    let path = t.store.attachment_path(&added.id).unwrap();
    assert_eq!(path, t.store.attachments_dir().join(&added.id));
    assert_eq!(t.store.attachments_dir(), t.dir.path().join("attachments"));
    assert_eq!(files_in(&t.store.attachments_dir()), vec![added.id.clone()]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&t.store.attachments_dir()), 0o700);
    }

    assert_eq!(
        added.view(),
        AttachmentView {
            id: added.id.clone(),
            name: "shot.png".into(),
            mime: "image/png".into(),
            size: bytes.len() as u64,
            kind: AttachmentKind::Image,
            thumbnail: Some(attachment_src(&added.id)),
        }
    );
    assert_eq!(t.store.attachment_path("../pizza-bot.sqlite"), None);
}

#[tokio::test]
async fn bad_uploads_are_refused_and_leave_no_file() {
    let t = open().await;
    let missing = t
        .store
        .add_attachment(upload(Some("no-such-thread"), "a.png", b"x"))
        .await
        .unwrap_err();
    assert_not_found(&missing, "thread");
    for bad in [
        upload(None, "../a.png", b"x"),
        NewAttachment {
            mime: " ",
            ..upload(None, "a.png", b"x")
        },
    ] {
        let refused = t.store.add_attachment(bad).await.unwrap_err();
        assert!(matches!(refused, Error::InvalidInput(_)), "{refused:?}");
    }
    let huge = vec![0; pizza_protocol::ATTACHMENT_MAX_BYTES as usize + 1];
    let refused = t
        .store
        .add_attachment(upload(None, "a.png", &huge))
        .await
        .unwrap_err();
    assert!(matches!(refused, Error::InvalidInput(_)), "{refused:?}");
    assert_eq!(files_in(&t.store.attachments_dir()), Vec::<String>::new());

    assert_not_found(&t.store.attachment("nope").await.unwrap_err(), "attachment");
    assert_not_found(
        &t.store.read_attachment("nope").await.unwrap_err(),
        "attachment",
    );
}

#[tokio::test]
async fn identical_bytes_are_stored_once_per_thread_not_across_threads() {
    let t = open().await;
    let a = new_thread(&t.store).await;
    let b = new_thread(&t.store).await;
    let first = t
        .store
        .add_attachment(upload(Some(&a.id), "one.png", b"same"))
        .await
        .unwrap();
    let again = t
        .store
        .add_attachment(upload(Some(&a.id), "two.png", b"same"))
        .await
        .unwrap();
    assert_eq!(again, first);
    assert_eq!(files_in(&t.store.attachments_dir()).len(), 1);

    let other = t
        .store
        .add_attachment(upload(Some(&b.id), "one.png", b"same"))
        .await
        .unwrap();
    assert_ne!(other.id, first.id);
    assert_eq!(other.sha256, first.sha256);
    assert_eq!(files_in(&t.store.attachments_dir()).len(), 2);
    assert_eq!(
        t.store.thread_attachments(&a.id).await.unwrap(),
        vec![first.clone()]
    );
    assert_eq!(
        t.store
            .attachments_by_id(&[other.id.clone(), first.id.clone()])
            .await
            .unwrap(),
        vec![other.clone(), first.clone()]
    );
    let unknown = t
        .store
        .attachments_by_id(&[first.id.clone(), "gone".into()])
        .await
        .unwrap_err();
    assert!(
        matches!(&unknown, Error::NotFound { id, .. } if id == "gone"),
        "{unknown:?}"
    );
}

#[tokio::test]
async fn a_thread_less_upload_is_linked_and_marked_sent_by_its_turn() {
    let t = open().await;
    let image = t
        .store
        .add_attachment(upload(None, "chart.png", b"png"))
        .await
        .unwrap();
    t.clock.advance(5);
    let started = t
        .store
        .start_turn(turn(
            TurnThread::New(NewThread::default()),
            with_image("what is this?", &image),
            &[&image],
        ))
        .await
        .unwrap();
    let sent = Attachment {
        sent_at: Some(T0 + 5),
        ..image.clone()
    };
    assert_eq!(t.store.attachment(&image.id).await.unwrap(), sent);
    assert_eq!(
        t.store
            .thread_attachments(&started.thread_id)
            .await
            .unwrap(),
        vec![sent]
    );

    // The feed shows the attachment itself, its bytes loaded by URL.
    let view = transcript::view(&started.step.messages[0]);
    assert_eq!(
        view.parts[0],
        MessagePart::Attachment {
            attachment: image.view()
        }
    );
    let pdf = AttachmentRef {
        id: "doc-1".into(),
        name: "spec.pdf".into(),
        mime: "application/pdf".into(),
        size: 9,
    };
    assert_eq!(
        (pdf.view().kind, pdf.view().thumbnail),
        (AttachmentKind::Document, None)
    );
}

#[tokio::test]
async fn an_unknown_attachment_refuses_the_turn_and_writes_nothing() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let known = t
        .store
        .add_attachment(upload(None, "a.png", b"a"))
        .await
        .unwrap();
    let before = row_counts(t.dir.path()).await;
    for thread in [
        TurnThread::Existing(th.id.clone()),
        TurnThread::New(NewThread::default()),
    ] {
        let mut start = turn(thread, user("look"), &[&known]);
        start.attachments.push("no-such-attachment".into());
        let refused = t.store.start_turn(start).await.unwrap_err();
        assert!(matches!(refused, Error::InvalidInput(_)), "{refused:?}");
    }
    assert_eq!(row_counts(t.dir.path()).await, before);
    assert_eq!(t.store.attachment(&known.id).await.unwrap().sent_at, None);
}

#[tokio::test]
async fn an_unsent_upload_can_be_removed_a_sent_one_stays() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let draft = t
        .store
        .add_attachment(upload(Some(&th.id), "draft.png", b"draft"))
        .await
        .unwrap();
    assert!(t.store.remove_unsent_attachment(&draft.id).await.unwrap());
    assert_not_found(
        &t.store.attachment(&draft.id).await.unwrap_err(),
        "attachment",
    );
    assert_eq!(files_in(&t.store.attachments_dir()), Vec::<String>::new());
    assert_eq!(t.store.thread_attachments(&th.id).await.unwrap(), vec![]);
    assert_not_found(
        &t.store
            .remove_unsent_attachment(&draft.id)
            .await
            .unwrap_err(),
        "attachment",
    );

    let kept = t
        .store
        .add_attachment(upload(Some(&th.id), "kept.png", b"kept"))
        .await
        .unwrap();
    t.store
        .start_turn(turn(
            TurnThread::Existing(th.id.clone()),
            with_image("see", &kept),
            &[&kept],
        ))
        .await
        .unwrap();
    assert!(!t.store.remove_unsent_attachment(&kept.id).await.unwrap());
    assert_eq!(t.store.read_attachment(&kept.id).await.unwrap(), b"kept");
}

#[tokio::test]
async fn deleting_a_thread_deletes_its_attachments_and_their_files() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let sent = t
        .store
        .add_attachment(upload(Some(&th.id), "sent.png", b"sent"))
        .await
        .unwrap();
    let draft = t
        .store
        .add_attachment(upload(Some(&th.id), "draft.png", b"draft"))
        .await
        .unwrap();
    let elsewhere = t
        .store
        .add_attachment(upload(None, "other.png", b"other"))
        .await
        .unwrap();
    t.store
        .start_turn(turn(
            TurnThread::Existing(th.id.clone()),
            with_image("see", &sent),
            &[&sent],
        ))
        .await
        .unwrap();
    t.store.delete_thread(&th.id).await.unwrap();

    for gone in [&sent, &draft] {
        assert_not_found(
            &t.store.attachment(&gone.id).await.unwrap_err(),
            "attachment",
        );
    }
    assert_eq!(
        files_in(&t.store.attachments_dir()),
        vec![elsewhere.id.clone()]
    );
}

#[tokio::test]
async fn a_fork_keeps_the_attachments_it_shares_when_the_parent_is_deleted() {
    let t = open().await;
    let parent = new_thread(&t.store).await;
    let image = t
        .store
        .add_attachment(upload(Some(&parent.id), "photo.png", b"photo"))
        .await
        .unwrap();
    let started = t
        .store
        .start_turn(turn(
            TurnThread::Existing(parent.id.clone()),
            with_image("see", &image),
            &[&image],
        ))
        .await
        .unwrap();
    finish(&t.store, &started).await;
    let fork = t
        .store
        .fork(
            &parent.id,
            ForkAt::Message(&started.step.messages[0].id),
            None,
        )
        .await
        .unwrap();

    t.store.delete_thread(&parent.id).await.unwrap();
    let kept = t.store.attachment(&image.id).await.unwrap();
    assert_eq!(
        t.store.thread_attachments(&fork.id).await.unwrap(),
        vec![kept]
    );
    assert_eq!(t.store.read_attachment(&image.id).await.unwrap(), b"photo");

    t.store.delete_thread(&fork.id).await.unwrap();
    assert_not_found(
        &t.store.attachment(&image.id).await.unwrap_err(),
        "attachment",
    );
    assert_eq!(files_in(&t.store.attachments_dir()), Vec::<String>::new());
}

#[tokio::test]
async fn the_sweep_removes_old_drafts_strays_and_temp_files_only() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let old_draft = t
        .store
        .add_attachment(upload(None, "old.png", b"old"))
        .await
        .unwrap();
    let sent = t
        .store
        .add_attachment(upload(None, "sent.png", b"sent"))
        .await
        .unwrap();
    let queued = t
        .store
        .add_attachment(upload(Some(&th.id), "queued.png", b"queued"))
        .await
        .unwrap();
    t.store
        .start_turn(turn(
            TurnThread::New(NewThread::default()),
            with_image("see", &sent),
            &[&sent],
        ))
        .await
        .unwrap();
    t.store
        .queue_message(&th.id, "later", None, std::slice::from_ref(&queued.id))
        .await
        .unwrap();
    t.clock.advance(60_000);
    let new_draft = t
        .store
        .add_attachment(upload(None, "new.png", b"new"))
        .await
        .unwrap();

    let dir = t.store.attachments_dir();
    for stray in [
        "0190a0b0-0000-7000-8000-000000000000",
        "0190a0b0-0000-7000-8000-000000000001.partial",
        "notes.txt",
    ] {
        std::fs::write(dir.join(stray), b"stray").unwrap();
        // Left by a crash long ago (a file newer than the cutoff may be an
        // upload in flight).
        std::fs::File::options()
            .write(true)
            .open(dir.join(stray))
            .unwrap()
            .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_millis(T0 as u64))
            .unwrap();
    }
    std::fs::create_dir(dir.join("folder")).unwrap();

    let removed = t.store.sweep_attachments(T0 + 1_000).await.unwrap();
    assert_eq!(removed, 4);
    assert_not_found(
        &t.store.attachment(&old_draft.id).await.unwrap_err(),
        "attachment",
    );
    let mut left = vec![
        sent.id.clone(),
        queued.id.clone(),
        new_draft.id.clone(),
        "folder".to_owned(),
    ];
    left.sort();
    assert_eq!(files_in(&dir), left);
    assert_eq!(t.store.sweep_attachments(T0 + 1_000).await.unwrap(), 0);
}

#[tokio::test]
async fn a_queued_message_keeps_its_attachments_until_its_turn_sends_them() {
    let t = open().await;
    let th = new_thread(&t.store).await;
    let a = t
        .store
        .add_attachment(upload(None, "a.png", b"a"))
        .await
        .unwrap();
    let b = t
        .store
        .add_attachment(upload(None, "b.png", b"b"))
        .await
        .unwrap();
    let queued = t
        .store
        .queue_message(&th.id, "both", None, &[b.id.clone(), a.id.clone()])
        .await
        .unwrap();
    assert_eq!(queued.attachments, vec![b.clone(), a.clone()]);
    assert_eq!(
        t.store.queued_messages(&th.id).await.unwrap(),
        vec![queued.clone()]
    );
    let shown = pizza_protocol::QueuedMessage::from(queued.clone());
    assert_eq!(shown.attachments, vec![b.view(), a.view()]);
    // Queued with the thread: the thread's attachments already.
    assert_eq!(
        t.store.thread_attachments(&th.id).await.unwrap(),
        vec![a.clone(), b.clone()]
    );

    let refused = t
        .store
        .queue_message(&th.id, "x", None, &["missing".into()])
        .await
        .unwrap_err();
    assert!(matches!(refused, Error::InvalidInput(_)), "{refused:?}");

    // Removed meanwhile: the queued message goes without it.
    assert!(t.store.remove_unsent_attachment(&b.id).await.unwrap());
    let left = t.store.queued_messages(&th.id).await.unwrap();
    assert_eq!(left[0].attachments, vec![a.clone()]);

    t.clock.advance(1);
    t.store
        .start_turn(super::turns::queued_turn(&th.id, &left[0]))
        .await
        .unwrap();
    assert_eq!(
        t.store.attachment(&a.id).await.unwrap().sent_at,
        Some(T0 + 1)
    );
    assert_eq!(t.store.queued_messages(&th.id).await.unwrap(), vec![]);
}

/// The database's size in bytes, committed pages (the WAL's too).
async fn database_bytes(dir: &Path) -> i64 {
    let url = format!("sqlite://{}", dir.join(pizza_store::DB_FILE_NAME).display());
    let mut conn = SqliteConnection::connect(&url).await.unwrap();
    let pages: i64 = sqlx::query_scalar("PRAGMA page_count")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let page_size: i64 = sqlx::query_scalar("PRAGMA page_size")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    pages * page_size
}

#[tokio::test]
async fn a_step_with_an_attachment_adds_only_the_reference_bytes() {
    const BOUND: i64 = 16 * 1024;
    let t = open().await;
    let th = new_thread(&t.store).await;
    let thread = || TurnThread::Existing(th.id.clone());

    let before = database_bytes(t.dir.path()).await;
    let plain = t
        .store
        .start_turn(turn(thread(), user("a turn without an attachment"), &[]))
        .await
        .unwrap();
    finish(&t.store, &plain).await;
    let plain_growth = database_bytes(t.dir.path()).await - before;

    let before = database_bytes(t.dir.path()).await;
    let bytes = vec![0xa5; 5 * 1024 * 1024];
    let image = t
        .store
        .add_attachment(upload(Some(&th.id), "big.png", &bytes))
        .await
        .unwrap();
    let mut with = turn(thread(), with_image("and one with", &image), &[&image]);
    with.expected_head = Some(plain.step.checkpoint.id.clone());
    t.store.start_turn(with).await.unwrap();
    let attached_growth = database_bytes(t.dir.path()).await - before;

    assert!(
        attached_growth < BOUND && attached_growth <= plain_growth + BOUND,
        "a 5 MiB attachment grew the database by {attached_growth} bytes \
         (a plain turn: {plain_growth})"
    );
    let file = std::fs::metadata(t.store.attachment_path(&image.id).unwrap()).unwrap();
    assert_eq!(file.len(), bytes.len() as u64);
}
