//! An image a tool returns is kept as an attachment of the thread (the
//! checkpoint holds only its reference) and reaches a vision model as an
//! image part of the tool's result.

use std::sync::Arc;

use base64::Engine as _;
use pizza_llm::{ContentPart, FakeTurn, ImageSource};
use pizza_protocol::RunStatus;
use pizza_store::{Part, ResultPart};
use pizza_tools::ToolRegistry;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::{Harness, SCREENSHOT_PNG, Screenshot, config};

#[tokio::test]
async fn a_tool_image_is_kept_by_reference_and_shown_to_the_model() {
    let h = Harness::new().await;
    h.model
        .push_turn(FakeTurn::tool_call("c1", "screenshot", json!({})));
    h.model.push_turn(FakeTurn::text("A login form."));
    let mut tools = ToolRegistry::with_builtins();
    tools.register(Arc::new(Screenshot));
    let agent = h.agent_with(config(), tools);
    let (outcome, _) = h.run(&agent, Some("What is on screen?")).await;
    assert_eq!(outcome.status, RunStatus::Succeeded, "{:?}", outcome.error);

    // Stored: a reference, the bytes in the thread's attachment.
    let state = h.store.state(&h.thread_id, None).await.unwrap();
    let Part::ToolResult { content, .. } = &state.messages[2].content[0] else {
        panic!("not a tool result: {:?}", state.messages[2].content);
    };
    let ResultPart::Image { attachment } = &content[1] else {
        panic!("no image part: {content:?}");
    };
    assert_eq!(attachment.mime, "image/png");
    assert_eq!(
        h.store.read_attachment(&attachment.id).await.unwrap(),
        SCREENSHOT_PNG
    );
    let kept = h.store.thread_attachments(&h.thread_id).await.unwrap();
    assert_eq!(kept.len(), 1);
    assert!(
        kept[0].sent_at.is_some(),
        "a committed image is never swept"
    );

    // Sent: the image inlined in the result the model reads.
    let second = &h.model.requests()[1];
    let ContentPart::ToolResult { content, .. } = &second.messages[2].content[0] else {
        panic!("not a tool result: {:?}", second.messages[2]);
    };
    assert_eq!(
        content[1],
        ContentPart::Image {
            source: ImageSource::Base64 {
                media_type: "image/png".into(),
                data: base64::engine::general_purpose::STANDARD.encode(SCREENSHOT_PNG),
            },
        }
    );
}
