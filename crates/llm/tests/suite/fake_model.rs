use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use pizza_llm::{
    CancellationToken, ContentPart, Error, FakeModel, FakeTurn, Message, ModelClient, ModelRequest,
    StopReason, ToolCall, collect_stream,
};
use pretty_assertions::assert_eq;
use serde_json::json;

#[tokio::test]
async fn replays_turns_in_order_and_records_requests() {
    let model = FakeModel::with_turns([
        FakeTurn::tool_call("c1", "ls", json!({"path": "/"})),
        FakeTurn::text("all done"),
    ]);
    let client: Arc<dyn ModelClient> = Arc::new(model.clone());

    let first = client
        .stream(
            ModelRequest::new("m", vec![Message::user("hi")]),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let first = collect_stream(first).await.unwrap();
    assert_eq!(first.stop_reason, StopReason::ToolUse);
    assert_eq!(
        first.message.content,
        vec![ContentPart::ToolCall(ToolCall {
            id: "c1".into(),
            name: "ls".into(),
            arguments: json!({"path": "/"}),
        })]
    );

    let second = client
        .stream(ModelRequest::new("m", vec![]), CancellationToken::new())
        .await
        .unwrap();
    let second = collect_stream(second).await.unwrap();
    assert_eq!(second.message.text(), "all done");
    assert_eq!(model.requests().len(), 2);
    assert_eq!(model.requests()[0].messages, vec![Message::user("hi")]);

    let none_left = client
        .stream(ModelRequest::default(), CancellationToken::new())
        .await;
    assert!(none_left.is_err());
}

#[tokio::test]
async fn errors_at_start_and_mid_stream() {
    let model = FakeModel::with_turns([
        FakeTurn::error(Error::RateLimit {
            provider_message: "slow down".into(),
            retry_after: None,
        }),
        FakeTurn::text("partial").then_error(Error::stream("boom")),
    ]);
    let err = model
        .stream(ModelRequest::default(), CancellationToken::new())
        .await
        .err()
        .unwrap();
    assert_eq!(err.code(), "RATE_LIMIT");
    assert!(err.retryable());
    assert_eq!(err.provider_message(), Some("slow down"));

    let stream = model
        .stream(ModelRequest::default(), CancellationToken::new())
        .await
        .unwrap();
    let items: Vec<_> = stream.collect().await;
    assert_eq!(
        items.last().unwrap().as_ref().unwrap_err().code(),
        "STREAM_ERROR"
    );
}

#[tokio::test]
async fn hang_ends_with_cancelled_when_cancelled() {
    let model = FakeModel::with_turns([FakeTurn::from_events([]).then_hang()]);
    let cancel = CancellationToken::new();
    let mut stream = model
        .stream(ModelRequest::default(), cancel.clone())
        .await
        .unwrap();
    let canceller = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        canceller.cancel();
    });
    let item = stream.next().await.unwrap();
    assert_eq!(item.unwrap_err(), Error::Cancelled);
    assert!(stream.next().await.is_none());
}

#[tokio::test]
async fn per_event_delay_is_cancellable() {
    let model = FakeModel::with_turns([
        FakeTurn::text("a b c").with_delay_per_event(Duration::from_secs(60))
    ]);
    let cancel = CancellationToken::new();
    let mut stream = model
        .stream(ModelRequest::default(), cancel.clone())
        .await
        .unwrap();
    cancel.cancel();
    assert_eq!(stream.next().await.unwrap().unwrap_err(), Error::Cancelled);
}
