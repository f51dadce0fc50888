//! Parse throughput from bytes to `StreamEvent`, per wire format, over
//! synthetic recorded streams of 10,000 events (Bedrock's in binary
//! AWS event-stream framing). Plain timing; prints figures.
// A bench binary: a setup failure should abort loudly.
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use aws_smithy_types::event_stream::{Header, HeaderValue, Message};
use bytes::Bytes;
use futures::StreamExt;
use pizza_llm::CancellationToken;
use pizza_providers::{
    AnthropicDecoder, BedrockDecoder, ChatDecoder, Decoder, Framing, GeminiDecoder, OllamaDecoder,
    ResponsesDecoder, decode_stream,
};

const EVENTS: usize = 10_000;
const CHUNK: usize = 16 * 1024;

/// One binary ConverseStream event, as Bedrock frames it (with padding).
fn bedrock_event(out: &mut Vec<u8>, kind: &str, payload: &str) {
    let message = Message::new(payload.as_bytes().to_vec())
        .add_header(Header::new(
            ":event-type",
            HeaderValue::String(kind.to_owned().into()),
        ))
        .add_header(Header::new(
            ":content-type",
            HeaderValue::String("application/json".into()),
        ))
        .add_header(Header::new(
            ":message-type",
            HeaderValue::String("event".into()),
        ));
    aws_smithy_eventstream::frame::write_message_to(&message, out).unwrap();
}

fn bedrock_recording() -> Vec<u8> {
    let mut body = Vec::new();
    bedrock_event(
        &mut body,
        "messageStart",
        r#"{"p":"abcdefghijkl","role":"assistant"}"#,
    );
    for _ in 0..EVENTS {
        bedrock_event(
            &mut body,
            "contentBlockDelta",
            r#"{"contentBlockIndex":0,"delta":{"text":"lorem ipsum "},"p":"abcdefghijklmnop"}"#,
        );
    }
    bedrock_event(
        &mut body,
        "messageStop",
        r#"{"p":"abcdefgh","stopReason":"end_turn"}"#,
    );
    bedrock_event(
        &mut body,
        "metadata",
        r#"{"metrics":{"latencyMs":1},"usage":{"inputTokens":1,"outputTokens":2}}"#,
    );
    body
}

fn recording(name: &str) -> (Vec<u8>, Framing) {
    if name == "bedrock" {
        return (bedrock_recording(), Framing::AwsEventStream);
    }
    let (body, framing) = text_recording(name);
    (body.into_bytes(), framing)
}

fn text_recording(name: &str) -> (String, Framing) {
    let mut body = String::new();
    let word = "lorem ipsum ";
    match name {
        "openai_chat" => {
            for _ in 0..EVENTS {
                body.push_str(&format!("data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{word}\"}},\"finish_reason\":null}}]}}\n\n"));
            }
            body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
            (body, Framing::Sse)
        }
        "openai_responses" => {
            for i in 0..EVENTS {
                body.push_str(&format!("event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"sequence_number\":{i},\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"{word}\"}}\n\n"));
            }
            body.push_str("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}}\n\n");
            (body, Framing::Sse)
        }
        "anthropic" => {
            body.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
            for _ in 0..EVENTS {
                body.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{word}\"}}}}\n\n"));
            }
            body.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
            (body, Framing::Sse)
        }
        "gemini" => {
            for i in 0..EVENTS {
                let finish = if i + 1 == EVENTS {
                    ",\"finishReason\":\"STOP\""
                } else {
                    ""
                };
                body.push_str(&format!("data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"text\":\"{word}\"}}],\"role\":\"model\"}},\"index\":0{finish}}}],\"modelVersion\":\"gemini-2.5-flash\"}}\n\n"));
            }
            (body, Framing::Sse)
        }
        _ => {
            for _ in 0..EVENTS {
                body.push_str(&format!("{{\"model\":\"llama3.2\",\"created_at\":\"2023-08-04T08:52:19.385406455-07:00\",\"message\":{{\"role\":\"assistant\",\"content\":\"{word}\"}},\"done\":false}}\n"));
            }
            body.push_str("{\"model\":\"llama3.2\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\"}\n");
            (body, Framing::Ndjson)
        }
    }
}

fn decoder(name: &str) -> Box<dyn Decoder> {
    match name {
        "openai_chat" => Box::new(ChatDecoder::new("m")),
        "openai_responses" => Box::new(ResponsesDecoder::new("m")),
        "anthropic" => Box::new(AnthropicDecoder::new("m")),
        "gemini" => Box::new(GeminiDecoder::new("m")),
        "bedrock" => Box::new(BedrockDecoder::new("m")),
        _ => Box::new(OllamaDecoder::new("m")),
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "{:<18} {:>10} {:>10} {:>12} {:>12}",
        "format", "bytes", "events", "MB/s", "µs/event"
    );
    for name in [
        "openai_chat",
        "openai_responses",
        "anthropic",
        "gemini",
        "ollama",
        "bedrock",
    ] {
        let (body, framing) = recording(name);
        let bytes = Bytes::from(body);
        let chunks: Vec<Bytes> = (0..bytes.len())
            .step_by(CHUNK)
            .map(|at| bytes.slice(at..(at + CHUNK).min(bytes.len())))
            .collect();
        let mut best = f64::MAX;
        let mut count = 0;
        for _ in 0..5 {
            let input = futures::stream::iter(chunks.clone().into_iter().map(Ok)).boxed();
            let started = Instant::now();
            count = runtime.block_on(async {
                let mut stream = decode_stream(
                    input,
                    framing,
                    decoder(name),
                    CancellationToken::new(),
                    None,
                );
                let mut n = 0usize;
                while let Some(item) = stream.next().await {
                    item.unwrap();
                    n += 1;
                }
                n
            });
            best = best.min(started.elapsed().as_secs_f64());
        }
        let mb_per_s = bytes.len() as f64 / best / 1e6;
        let us_per_event = best * 1e6 / count as f64;
        println!(
            "{name:<18} {:>10} {count:>10} {mb_per_s:>12.1} {us_per_event:>12.2}",
            bytes.len()
        );
    }
}
