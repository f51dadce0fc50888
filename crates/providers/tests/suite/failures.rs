//! The transport's failure handling, for every wire format.

use std::time::{Duration, Instant};

use pizza_llm::{StopReason, StreamEvent};
use pizza_test_support::mock_provider::{MockProvider, MockResponse};
use serde_json::json;

use super::common::{ALL, Format, cancel_soon, request, run, run_with, streamed};

async fn server(format: Format) -> MockProvider {
    let server = MockProvider::start().await.unwrap();
    if format == Format::Ollama {
        server.set_default(
            "/api/show",
            MockResponse::json(200, &json!({"capabilities": ["completion", "tools"]})),
        );
    }
    server
}

fn ok_stop(events: &[StreamEvent]) -> bool {
    matches!(
        events.last(),
        Some(StreamEvent::Stop {
            reason: StopReason::EndTurn
        })
    )
}

#[tokio::test]
async fn unauthorized_is_auth_expired_without_retry() {
    for format in ALL {
        let server = server(format).await;
        server.push_for(
            format.path(),
            MockResponse::json(
                401,
                &json!({"error": {"message": "invalid x-api-key", "type": "authentication_error"}}),
            ),
        );
        let provider = format.provider(&server.url());
        let (events, error) = run(provider.as_ref(), request("test-model")).await;
        let error = error.unwrap();
        assert_eq!(error.code(), "AUTH_EXPIRED", "{format:?}");
        assert!(!error.retryable());
        assert!(
            error
                .provider_message()
                .unwrap()
                .contains("invalid x-api-key"),
            "{format:?}"
        );
        assert!(events.is_empty());
        let calls = server
            .requests()
            .iter()
            .filter(|r| r.path == format.path())
            .count();
        assert_eq!(calls, 1, "{format:?}");
    }
}

#[tokio::test]
async fn rate_limit_waits_for_retry_after_then_succeeds() {
    // One format pays the real one-second `retry-after`; the rest use `retry-after-ms`.
    for format in ALL {
        let server = server(format).await;
        let (header, value, min) = if format == Format::Chat {
            ("retry-after", "1", Duration::from_millis(950))
        } else {
            ("retry-after-ms", "120", Duration::from_millis(110))
        };
        server.push_for(
            format.path(),
            MockResponse::json(429, &json!({"error": {"message": "slow down"}}))
                .header(header, value),
        );
        server.push_for(format.path(), streamed(format, &format.text_fixture()));
        let provider = format.provider(&server.url());
        let started = Instant::now();
        let (events, error) = run(provider.as_ref(), request("test-model")).await;
        assert!(error.is_none(), "{format:?}: {error:?}");
        assert!(ok_stop(&events), "{format:?}");
        assert!(
            started.elapsed() >= min,
            "{format:?} retried after {:?}",
            started.elapsed()
        );
    }
}

#[tokio::test]
async fn two_server_errors_then_success() {
    for format in ALL {
        let server = server(format).await;
        server.push_for(format.path(), MockResponse::text(500, "internal error"));
        server.push_for(format.path(), MockResponse::text(503, "unavailable"));
        server.push_for(format.path(), streamed(format, &format.text_fixture()));
        let provider = format.provider(&server.url());
        let (events, error) = run(provider.as_ref(), request("test-model")).await;
        assert!(error.is_none(), "{format:?}: {error:?}");
        assert!(ok_stop(&events), "{format:?}");
        let calls = server
            .requests()
            .iter()
            .filter(|r| r.path == format.path())
            .count();
        assert_eq!(calls, 3, "{format:?}");
    }
}

#[tokio::test]
async fn persistent_server_errors_give_up_retryable() {
    let format = Format::Chat;
    let server = server(format).await;
    server.set_default(format.path(), MockResponse::text(502, "bad gateway"));
    let provider = format.provider(&server.url());
    let (_, error) = run(provider.as_ref(), request("test-model")).await;
    let error = error.unwrap();
    assert_eq!(error.code(), "GENERAL");
    assert!(error.retryable());
    assert_eq!(server.requests().len(), 4, "one try and three retries");
}

#[tokio::test]
async fn truncated_stream_is_a_stream_error() {
    for format in ALL {
        // Cleanly closed after half the frames, and cut mid-body.
        for cut in [false, true] {
            let server = server(format).await;
            let frames = format.text_fixture();
            let mut response = streamed(format, &frames[..frames.len() / 2]);
            if cut {
                response = response.cut();
            }
            server.push_for(format.path(), response);
            let provider = format.provider(&server.url());
            let (events, error) = run(provider.as_ref(), request("test-model")).await;
            let error =
                error.unwrap_or_else(|| panic!("{format:?} cut={cut}: no error after {events:?}"));
            assert_eq!(
                error.code(),
                "STREAM_ERROR",
                "{format:?} cut={cut}: {error:?}"
            );
            assert!(!events.iter().any(|e| matches!(e, StreamEvent::Stop { .. })));
        }
    }
}

#[tokio::test]
async fn hung_stream_times_out() {
    for format in ALL {
        let server = server(format).await;
        let frames = format.text_fixture();
        server.push_for(format.path(), streamed(format, &frames[..1]).hang());
        let provider = format.provider(&server.url());
        let (_, error) = run(provider.as_ref(), request("test-model")).await;
        assert_eq!(error.unwrap().code(), "TIMEOUT", "{format:?}");
    }
}

#[tokio::test]
async fn cancel_mid_stream_stops_at_once() {
    for format in ALL {
        let server = server(format).await;
        let frames = format.text_fixture();
        server.push_for(
            format.path(),
            streamed(format, &frames[..1]).delay(Duration::from_secs(30)),
        );
        let provider = format.provider(&server.url());
        let started = Instant::now();
        let (_, error) = run_with(provider.as_ref(), request("test-model"), cancel_soon()).await;
        assert_eq!(error.unwrap().code(), "CANCELLED", "{format:?}");
        assert!(started.elapsed() < Duration::from_secs(2));
    }
}

#[tokio::test]
async fn context_overflow_and_unknown_model_are_classified() {
    let server = server(Format::Anthropic).await;
    server.push_for(
        "/v1/messages",
        MockResponse::json(
            400,
            &json!({"type": "error", "error": {"type": "invalid_request_error",
            "message": "prompt is too long: 215000 tokens > 200000 maximum"}}),
        ),
    );
    server.push_for(
        "/v1/messages",
        MockResponse::json(404, &json!({"type": "error", "error": {"type": "not_found_error", "message": "model: claude-9"}})),
    );
    let provider = Format::Anthropic.provider(&server.url());
    let (_, error) = run(provider.as_ref(), request("claude-9")).await;
    assert_eq!(error.unwrap().code(), "CONTEXT_LENGTH");
    let (_, error) = run(provider.as_ref(), request("claude-9")).await;
    assert_eq!(error.unwrap().code(), "MODEL_UNAVAILABLE");
}
