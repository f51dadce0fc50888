//! `eval` in the app: offered to the model when the app gives a worker,
//! stopped at the timeout Settings › Agent holds, and no worker left after
//! quitting.

use std::time::Duration;

use pizza_llm::{FakeModel, FakeTurn};
use pizza_protocol::{ErrorCode, RunEvent, SettingsPatch};
use pizza_test_support::data_root::TempDataRoot;
use serde_json::json;

use crate::runs::tests::{open_with, start, subscribe, until_finished};
use crate::{Host, HostOptions, WorkerCommand};

async fn open_with_eval(root: &TempDataRoot, model: &FakeModel) -> Host {
    let worker = WorkerCommand::test_worker()
        .expect("the pizza-eval-worker binary is built (cargo test --workspace builds it)");
    open_with(root, model, HostOptions::default().with_eval_worker(worker)).await
}

#[tokio::test]
async fn a_program_stops_at_the_set_timeout_and_quitting_leaves_no_worker() {
    let root = TempDataRoot::new().unwrap();
    let model = FakeModel::with_turns([
        FakeTurn::tool_call("e1", "eval", json!({"code": "while (true) {}"})),
        FakeTurn::text("It ran too long."),
    ]);
    let host = open_with_eval(&root, &model).await;
    for bad in [0, 3_601] {
        let refused = host
            .settings_update(SettingsPatch {
                eval_timeout_secs: Some(bad),
                ..SettingsPatch::default()
            })
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidInput);
        assert!(
            refused.message.starts_with("eval_timeout_secs:"),
            "{}",
            refused.message
        );
    }
    let saved = host
        .settings_update(SettingsPatch {
            eval_timeout_secs: Some(1),
            ..SettingsPatch::default()
        })
        .await
        .unwrap();
    assert_eq!(saved.agent.eval_timeout_secs, 1);

    let started = host.run_start(start(None, "Spin")).await.unwrap();
    let mut frames = subscribe(&host, &started.thread_id, None).await;
    let frames = until_finished(&mut frames).await;
    let result = frames.iter().find_map(|frame| match &frame.event {
        RunEvent::ToolFinished {
            name,
            result,
            is_error: true,
            ..
        } if name == "eval" => Some(result.clone()),
        _ => None,
    });
    let result = result.expect("the program's ending");
    assert!(result.contains("stopped after 1 s"), "{result}");
    let offered = &model.requests()[0].tools;
    assert!(offered.iter().any(|tool| tool.name == "eval"));

    let eval = host.inner.eval.clone().unwrap();
    host.shutdown(Duration::from_secs(5)).await;
    assert_eq!(eval.sandbox().live_workers(), 0);
}
