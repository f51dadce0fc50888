//! What a thread shows of a run: an answer's sources, and a name while the
//! first run has not given it a title yet.

use std::collections::HashMap;
use std::sync::Arc;

use pizza_llm::{FakeModel, FakeStep, FakeTurn, Source, StopReason, StreamEvent};
use pizza_protocol::{MessagePart, ThreadGetParams, ThreadListParams};
use pizza_test_support::data_root::TempDataRoot;
use pretty_assertions::assert_eq;

use crate::runs::tests::{open, start, subscribe, until_finished};

#[tokio::test]
async fn an_answers_sources_come_back_in_thread_get_and_the_export() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::new();
    // The automatic title's call comes second.
    model.push_turn(FakeTurn::from_events([
        StreamEvent::TextDelta {
            text: "Rome was founded in 753 BC.".into(),
        },
        StreamEvent::Source(Source::web("https://a.example/rome", Some("Rome"))),
        StreamEvent::Source(Source::web("https://b.example/history?id=1", None)),
        StreamEvent::Stop {
            reason: StopReason::EndTurn,
        },
    ]));
    model.push_turn(FakeTurn::text("Founding of Rome"));
    let host = open(&root, &model).await;
    let started = host
        .run_start(start(None, "When was Rome founded?"))
        .await
        .unwrap();
    until_finished(&mut subscribe(&host, &started.thread_id, Some(0)).await).await;

    let detail = host
        .thread_get(ThreadGetParams {
            thread_id: started.thread_id.clone(),
            before_seq: None,
            limit: None,
        })
        .await
        .unwrap();
    let answer = detail.messages.last().unwrap();
    let source = |url: &str, title: Option<&str>| pizza_protocol::Source {
        url: Some(url.to_owned()),
        title: title.map(str::to_owned),
        cited_text: None,
    };
    assert_eq!(
        answer.parts,
        vec![
            MessagePart::Text {
                text: "Rome was founded in 753 BC.".into()
            },
            MessagePart::Sources {
                sources: vec![
                    source("https://a.example/rome", Some("Rome")),
                    source("https://b.example/history?id=1", None),
                ]
            },
        ]
    );

    let markdown = super::export::markdown("Rome", &detail.messages, &HashMap::new());
    assert!(
        markdown.contains(
            "**Sources**\n\n- [Rome](<https://a.example/rome>)\n\
             - <https://b.example/history?id=1>\n"
        ),
        "{markdown}"
    );
}

#[tokio::test]
async fn a_thread_whose_first_run_is_still_going_is_listed_under_its_first_message() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    // The answer waits until the list has been read.
    let mut turn = FakeTurn::text("Sure.");
    turn.steps.insert(0, FakeStep::Gate(Arc::clone(&gate)));
    model.push_turn(turn);
    model.push_turn(FakeTurn::text("Pizza week"));
    let host = open(&root, &model).await;
    let started = host
        .run_start(start(None, "Plan a week of\npizza nights"))
        .await
        .unwrap();
    let mut events = subscribe(&host, &started.thread_id, Some(0)).await;

    let listed = host
        .thread_list(ThreadListParams::default())
        .await
        .unwrap()
        .threads;
    let row = listed
        .iter()
        .find(|t| t.id == started.thread_id)
        .expect("the thread is listed");
    assert_eq!(row.title, "Plan a week of pizza nights");
    assert_eq!(row.live_run_id.as_ref(), Some(&started.run_id));
    gate.notify_one();
    until_finished(&mut events).await;
}
