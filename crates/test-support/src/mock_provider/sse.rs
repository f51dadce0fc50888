//! SSE frame builders, and ready-made OpenAI Chat Completions streams for
//! end-to-end tests of the app against an OpenAI-compatible server.

use serde_json::{Value, json};

use super::MockResponse;

/// One SSE frame: optional `event:` line, one `data:` line, blank line.
pub fn frame(event: Option<&str>, data: &Value) -> String {
    match event {
        Some(event) => format!("event: {event}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// OpenAI's terminal frame.
pub const OPENAI_DONE: &str = "data: [DONE]\n\n";

/// One `chat.completion.chunk` frame; `extra` holds its choices (and usage).
fn chat_frame(model: &str, extra: Value) -> String {
    let mut chunk = json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": model,
    });
    if let (Some(chunk), Value::Object(extra)) = (chunk.as_object_mut(), extra) {
        chunk.extend(extra);
    }
    frame(None, &chunk)
}

fn chat_chunk(model: &str, delta: &Value, finish: Option<&str>) -> String {
    chat_frame(
        model,
        json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
    )
}

fn chat_usage(model: &str) -> String {
    chat_frame(
        model,
        json!({
            "choices": [],
            "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
        }),
    )
}

/// An OpenAI chat completion that streams `text` word by word and stops.
pub fn openai_chat_text(text: &str) -> MockResponse {
    let model = "mock-model";
    let mut frames = vec![chat_chunk(
        model,
        &json!({"role": "assistant", "content": ""}),
        None,
    )];
    for piece in text.split_inclusive(' ') {
        frames.push(chat_chunk(model, &json!({"content": piece}), None));
    }
    frames.push(chat_chunk(model, &json!({}), Some("stop")));
    frames.push(chat_usage(model));
    frames.push(OPENAI_DONE.to_owned());
    MockResponse::sse(frames)
}

/// An OpenAI chat completion that streams `first`, then holds until `gate`
/// opens, then streams `rest` and stops.
pub fn openai_chat_text_held(first: &str, gate: &super::Gate, rest: &str) -> MockResponse {
    let model = "mock-model";
    let mut response = MockResponse::sse([chat_chunk(
        model,
        &json!({"role": "assistant", "content": ""}),
        None,
    )]);
    for piece in first.split_inclusive(' ') {
        response = response.chunk(chat_chunk(model, &json!({"content": piece}), None));
    }
    response = response.wait_for(gate);
    for piece in rest.split_inclusive(' ') {
        response = response.chunk(chat_chunk(model, &json!({"content": piece}), None));
    }
    response
        .chunk(chat_chunk(model, &json!({}), Some("stop")))
        .chunk(chat_usage(model))
        .chunk(OPENAI_DONE)
}

/// An OpenAI chat completion that calls tool `name` with `arguments`.
pub fn openai_chat_tool_call(id: &str, name: &str, arguments: &Value) -> MockResponse {
    openai_chat_tool_calls(&[(id, name, arguments.clone())])
}

/// An OpenAI chat completion that calls several tools in parallel.
pub fn openai_chat_tool_calls(calls: &[(&str, &str, Value)]) -> MockResponse {
    let model = "mock-model";
    let mut frames = vec![chat_chunk(
        model,
        &json!({"role": "assistant", "content": null}),
        None,
    )];
    for (index, (id, name, arguments)) in calls.iter().enumerate() {
        frames.push(chat_chunk(
            model,
            &json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                "function": {"name": name, "arguments": ""}}]}),
            None,
        ));
        // Split the arguments like real servers do, mid-token.
        let text = arguments.to_string();
        let middle = text
            .char_indices()
            .nth(text.chars().count() / 2)
            .map_or(0, |(at, _)| at);
        for part in [&text[..middle], &text[middle..]] {
            frames.push(chat_chunk(
                model,
                &json!({"tool_calls": [{"index": index, "function": {"arguments": part}}]}),
                None,
            ));
        }
    }
    frames.push(chat_chunk(model, &json!({}), Some("tool_calls")));
    frames.push(chat_usage(model));
    frames.push(OPENAI_DONE.to_owned());
    MockResponse::sse(frames)
}

/// An Anthropic Messages stream of `text` (for quick happy-path tests).
pub fn anthropic_text(text: &str) -> MockResponse {
    let mut frames = vec![
        frame(
            Some("message_start"),
            &json!({"type": "message_start", "message": {"id": "msg_mock", "type": "message",
                "role": "assistant", "content": [], "model": "mock", "stop_reason": null,
                "stop_sequence": null, "usage": {"input_tokens": 12, "output_tokens": 1}}}),
        ),
        frame(
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
        ),
    ];
    for piece in text.split_inclusive(' ') {
        frames.push(frame(
            Some("content_block_delta"),
            &json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": piece}}),
        ));
    }
    frames.push(frame(
        Some("content_block_stop"),
        &json!({"type": "content_block_stop", "index": 0}),
    ));
    frames.push(frame(
        Some("message_delta"),
        &json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
            "usage": {"output_tokens": 7}}),
    ));
    frames.push(frame(
        Some("message_stop"),
        &json!({"type": "message_stop"}),
    ));
    MockResponse::sse(frames)
}
