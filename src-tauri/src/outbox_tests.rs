use super::*;
use pizza_protocol::{AppEvent, RunEvent, RunEventFrame, WindowEvent};

const NO_WAIT: Duration = Duration::ZERO;
const LONG: Duration = Duration::from_secs(30);

fn frame(seq: u64) -> RunEventFrame {
    RunEventFrame {
        seq,
        run_id: "r1".into(),
        thread_id: "t1".into(),
        namespace: Vec::new(),
        event: RunEvent::Lagged,
    }
}

#[tokio::test]
async fn a_page_takes_what_was_queued_for_it_oldest_first() {
    let outboxes = Outboxes::default();
    outboxes.open("main");
    outboxes.open("quick-ask");
    outboxes.broadcast(&PageMessage::App {
        event: AppEvent::SkillsChanged,
    });
    outboxes.send(
        "quick-ask",
        PageMessage::Window {
            event: WindowEvent::QuickAskShown,
        },
    );
    // No page in "other": nothing is kept for it.
    outboxes.send(
        "other",
        PageMessage::Window {
            event: WindowEvent::QuickAskShown,
        },
    );
    let main = outboxes.get("main").take(NO_WAIT).await;
    assert_eq!(
        main,
        [PageMessage::App {
            event: AppEvent::SkillsChanged
        }]
    );
    let quick = outboxes.get("quick-ask").take(NO_WAIT).await;
    assert_eq!(quick.len(), 2);
    assert!(matches!(quick[1], PageMessage::Window { .. }));
    // Taken once.
    assert!(outboxes.get("main").take(NO_WAIT).await.is_empty());
}

#[tokio::test]
async fn a_waiting_page_gets_the_next_message_at_once() {
    let outboxes = Arc::new(Outboxes::default());
    outboxes.open("main");
    let waiting = tokio::spawn({
        let outbox = outboxes.get("main");
        async move { outbox.take(LONG).await }
    });
    // Let the wait start, then send.
    tokio::task::yield_now().await;
    outboxes.broadcast(&PageMessage::App {
        event: AppEvent::PluginsChanged,
    });
    let got = tokio::time::timeout(LONG, waiting).await.unwrap().unwrap();
    assert_eq!(
        got,
        [PageMessage::App {
            event: AppEvent::PluginsChanged
        }]
    );
}

#[tokio::test]
async fn with_nothing_to_send_the_answer_is_empty_after_the_wait() {
    let outboxes = Outboxes::default();
    outboxes.open("main");
    let got = outboxes.get("main").take(Duration::from_millis(20)).await;
    assert!(got.is_empty());
}

#[tokio::test]
async fn a_page_gone_or_loaded_again_answers_its_wait_and_drops_its_queue() {
    let outboxes = Outboxes::default();
    outboxes.open("main");
    let old = outboxes.get("main");
    let waiting = tokio::spawn({
        let old = Arc::clone(&old);
        async move { old.take(LONG).await }
    });
    tokio::task::yield_now().await;
    outboxes.close("main");
    let got = tokio::time::timeout(LONG, waiting).await.unwrap().unwrap();
    assert!(got.is_empty());
    // What is sent to the old page after it went is dropped, and its
    // channels say so.
    assert!(!old.push(PageMessage::App {
        event: AppEvent::SkillsChanged,
    }));
    assert!(old.channel::<RunEventFrame>(1).send(frame(1)).is_err());
    assert!(old.take(NO_WAIT).await.is_empty());

    // A page loaded again does not get what was queued for the one before.
    outboxes.open("main");
    outboxes.broadcast(&PageMessage::App {
        event: AppEvent::SkillsChanged,
    });
    outboxes.open("main");
    assert!(outboxes.get("main").take(NO_WAIT).await.is_empty());
}

#[tokio::test]
async fn a_channel_numbers_its_messages_and_ends_when_dropped() {
    let outbox = Arc::new(Outbox::default());
    let channel = outbox.channel::<RunEventFrame>(42);
    channel.send(frame(1)).unwrap();
    let clone = channel.clone();
    drop(channel);
    clone.send(frame(2)).unwrap();
    drop(clone);
    let got = outbox.take(NO_WAIT).await;
    assert_eq!(got.len(), 3);
    for (index, sent) in got.iter().take(2).enumerate() {
        let PageMessage::Stream {
            channel,
            index: at,
            message,
        } = sent
        else {
            panic!("not a stream message: {sent:?}");
        };
        assert_eq!((*channel, *at), (42, index as u64));
        let decoded: RunEventFrame = serde_json::from_value(message.clone()).unwrap();
        assert_eq!(decoded, frame(index as u64 + 1));
    }
    assert_eq!(
        got[2],
        PageMessage::StreamEnd {
            channel: 42,
            index: 2
        }
    );
}

#[test]
fn drags_keep_their_phase_and_paths() {
    let paths = vec![std::path::PathBuf::from("/tmp/a b.png")];
    let position = tauri::PhysicalPosition::new(1.0, 2.0);
    let dropped = drag_message(&tauri::DragDropEvent::Drop {
        paths: paths.clone(),
        position,
    });
    assert_eq!(
        dropped,
        Some(PageMessage::Drag {
            phase: DragPhase::Drop,
            paths: vec!["/tmp/a b.png".into()],
        })
    );
    let over = drag_message(&tauri::DragDropEvent::Over { position });
    assert_eq!(
        over,
        Some(PageMessage::Drag {
            phase: DragPhase::Over,
            paths: Vec::new(),
        })
    );
    assert_eq!(
        drag_message(&tauri::DragDropEvent::Leave),
        Some(PageMessage::Drag {
            phase: DragPhase::Leave,
            paths: Vec::new(),
        })
    );
}

#[tokio::test]
async fn a_page_that_stopped_taking_keeps_only_the_newest_messages() {
    let outbox = Outbox::default();
    for cursor in 0..(MAX_QUEUED as i64 + 5) {
        outbox.push(PageMessage::App {
            event: AppEvent::ThreadsChanged {
                thread_id: Some(cursor.to_string()),
            },
        });
    }
    let got = outbox.take(NO_WAIT).await;
    assert_eq!(got.len(), MAX_QUEUED);
    assert_eq!(
        got[0],
        PageMessage::App {
            event: AppEvent::ThreadsChanged {
                thread_id: Some("5".into())
            }
        }
    );
}
