//! The listener's answers, through a real server on a free port.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::webhook::MAX_BODY_BYTES;
use crate::webhook::raw_http_client::{RawResponse, post, send};
use crate::webhook::recording_target::{Outcome, RecordingTarget, SECRET, listen, listen_limited};

const JSON: (&str, &str) = ("Content-Type", "application/json");

fn bearer() -> (&'static str, String) {
    ("Authorization", format!("Bearer {SECRET}"))
}

fn assert_json_error(response: &RawResponse, status: u16, error: &str) {
    assert_eq!(
        (response.status, response.json()),
        (status, json!({ "error": error })),
        "{response:?}"
    );
    assert_eq!(response.header("content-type"), Some("application/json"));
}

#[tokio::test]
async fn a_good_bearer_secret_fires_with_the_json_prompt() {
    let target = RecordingTarget::with(&[("daily", Outcome::Fires)]);
    let server = listen(target.clone()).await;
    let (name, value) = bearer();
    let response = post(
        server.port(),
        "/triggers/daily",
        &[(name, &value), JSON],
        br#"{"prompt": "Summarize the deploy log"}"#,
    )
    .await;
    assert_eq!(response.status, 202, "{response:?}");
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(
        response.json(),
        json!({ "thread_id": "thread-1", "run_id": "run-1" })
    );
    assert_eq!(
        target.fired(),
        vec![(
            "daily".to_owned(),
            Some("Summarize the deploy log".to_owned())
        )]
    );
}

#[tokio::test]
async fn a_good_secret_header_fires_with_a_text_body_or_with_none() {
    let target = RecordingTarget::with(&[("daily", Outcome::Fires)]);
    let server = listen(target.clone()).await;
    let secret = ("X-Trigger-Secret", SECRET);
    let text = post(
        server.port(),
        "/triggers/daily",
        &[secret, ("Content-Type", "text/plain")],
        b"Check the backups\n",
    )
    .await;
    assert_eq!(text.status, 202, "{text:?}");
    let empty = post(server.port(), "/triggers/daily", &[secret], b"").await;
    assert_eq!(empty.status, 202, "{empty:?}");
    assert_eq!(
        empty.json(),
        json!({ "thread_id": "thread-2", "run_id": "run-2" })
    );
    assert_eq!(
        target.fired(),
        vec![
            ("daily".to_owned(), Some("Check the backups".to_owned())),
            ("daily".to_owned(), None),
        ]
    );
}

#[tokio::test]
async fn a_wrong_or_missing_secret_is_unauthorized_without_detail() {
    let target = RecordingTarget::with(&[("daily", Outcome::Fires)]);
    let server = listen(target.clone()).await;
    let wrong_bearer = format!("Bearer {SECRET}x");
    let basic = format!("Basic {SECRET}");
    let attempts: [&[(&str, &str)]; 6] = [
        &[("Authorization", &wrong_bearer)],
        &[("X-Trigger-Secret", "pzb_not-the-secret-at-all-000000")],
        &[],
        &[("Authorization", "Bearer ")],
        &[("Authorization", &basic)],
        &[("X-Trigger-Secret", "")],
    ];
    for headers in attempts {
        let response = post(server.port(), "/triggers/daily", headers, b"{}").await;
        assert_json_error(&response, 401, "unauthorized");
        assert_eq!(response.header("www-authenticate"), Some("Bearer"));
    }
    assert_eq!(target.fired(), vec![]);
}

#[tokio::test]
async fn an_unknown_trigger_or_another_path_is_not_found_and_another_method_not_allowed() {
    let target = RecordingTarget::with(&[("daily", Outcome::Fires)]);
    let server = listen(target.clone()).await;
    let (name, value) = bearer();
    for path in [
        "/triggers/nightly",
        "/triggers/",
        "/triggers/daily/x",
        "/",
        "/daily",
    ] {
        let response = post(server.port(), path, &[(name, &value)], b"").await;
        assert_json_error(&response, 404, "not found");
    }
    let get = send(
        server.port(),
        b"GET /triggers/daily HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_json_error(&get, 405, "use POST to fire a trigger");
    assert_eq!(get.header("allow"), Some("POST"));
    assert_eq!(target.fired(), vec![]);
}

#[tokio::test]
async fn a_body_over_64_kib_is_refused_by_its_length_or_as_it_arrives() {
    let target = RecordingTarget::with(&[("daily", Outcome::Fires)]);
    let server = listen(target.clone()).await;
    let head = format!(
        "POST /triggers/daily HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {SECRET}\r\nConnection: close\r\n"
    );

    // Declared too long: refused by its Content-Length, before the body is
    // read (a client declaring megabytes is answered without sending them).
    let (name, value) = bearer();
    let over = vec![b'a'; MAX_BODY_BYTES + 1];
    let response = post(server.port(), "/triggers/daily", &[(name, &value)], &over).await;
    assert_json_error(&response, 413, "the body is over 64 KiB");
    let declared = format!("{head}Content-Length: {}\r\n\r\n", 10 * 1024 * 1024);
    let response = send(server.port(), declared.as_bytes()).await;
    assert_json_error(&response, 413, "the body is over 64 KiB");

    // Chunked, so no length up front: cut off once past the limit.
    let mut chunked = format!("{head}Transfer-Encoding: chunked\r\n\r\n").into_bytes();
    for _ in 0..5 {
        chunked.extend_from_slice(format!("{:x}\r\n", 16 * 1024).as_bytes());
        chunked.extend_from_slice(&[b'a'; 16 * 1024]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let response = send(server.port(), &chunked).await;
    assert_json_error(&response, 413, "the body is over 64 KiB");

    assert_eq!(target.fired(), vec![]);

    // Exactly the limit is fine.
    let full = vec![b'b'; MAX_BODY_BYTES];
    let response = post(server.port(), "/triggers/daily", &[(name, &value)], &full).await;
    assert_eq!(response.status, 202, "{response:?}");
    let fired = target.fired();
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].1.as_deref().map(str::len), Some(MAX_BODY_BYTES));
}

#[tokio::test]
async fn a_chunked_body_under_the_limit_is_read_whole() {
    let target = RecordingTarget::with(&[("daily", Outcome::Fires)]);
    let server = listen(target.clone()).await;
    let request = format!(
        "POST /triggers/daily HTTP/1.1\r\nHost: x\r\nX-Trigger-Secret: {SECRET}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n\
         b\r\n{{\"text\": \"h\r\n6\r\nello\"}}\r\n0\r\n\r\n"
    );
    let response = send(server.port(), request.as_bytes()).await;
    assert_eq!(response.status, 202, "{response:?}");
    assert_eq!(
        target.fired(),
        vec![("daily".to_owned(), Some("hello".to_owned()))]
    );
}

#[tokio::test]
async fn a_malformed_body_is_a_bad_request_that_fires_nothing() {
    let target = RecordingTarget::with(&[("daily", Outcome::Fires)]);
    let server = listen(target.clone()).await;
    let (name, value) = bearer();
    let auth = (name, value.as_str());

    let broken = post(
        server.port(),
        "/triggers/daily",
        &[auth, JSON],
        b"{\"prompt\": ",
    )
    .await;
    assert_eq!(broken.status, 400, "{broken:?}");
    let sentence = broken.json()["error"].as_str().unwrap().to_owned();
    assert!(
        sentence.starts_with("the body is not valid JSON: "),
        "{sentence}"
    );

    let number = post(
        server.port(),
        "/triggers/daily",
        &[auth, JSON],
        br#"{"prompt": 7}"#,
    )
    .await;
    assert_json_error(&number, 400, "`prompt` must be a string");

    let latin1 = post(server.port(), "/triggers/daily", &[auth], b"caf\xe9").await;
    assert_json_error(&latin1, 400, "the body is not UTF-8 text");

    let form = post(
        server.port(),
        "/triggers/daily",
        &[auth, ("Content-Type", "application/x-www-form-urlencoded")],
        b"prompt=hi",
    )
    .await;
    assert_eq!(form.status, 415, "{form:?}");

    assert_eq!(target.fired(), vec![]);
}

#[tokio::test]
async fn past_the_rate_limit_every_request_for_the_trigger_waits() {
    let target = RecordingTarget::with(&[("daily", Outcome::Fires), ("other", Outcome::Fires)]);
    let server = listen_limited(target.clone(), 3).await;
    let (name, value) = bearer();
    let good = [(name, value.as_str())];
    let wrong = [("X-Trigger-Secret", "pzb_a-guess-at-the-secret-000000")];

    // Failed guesses count towards the limit.
    for headers in [&wrong, &wrong] {
        let response = post(server.port(), "/triggers/daily", headers, b"").await;
        assert_eq!(response.status, 401);
    }
    let response = post(server.port(), "/triggers/daily", &good, b"").await;
    assert_eq!(response.status, 202, "{response:?}");

    for headers in [&good, &wrong] {
        let limited = post(server.port(), "/triggers/daily", headers, b"").await;
        assert_json_error(
            &limited,
            429,
            &format!(
                "too many requests for this trigger; try again in {} s",
                limited.header("retry-after").unwrap()
            ),
        );
        let retry_after: u64 = limited.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=60).contains(&retry_after), "{retry_after}");
    }

    // Another trigger has its own window.
    let other = post(server.port(), "/triggers/other", &good, b"").await;
    assert_eq!(other.status, 202, "{other:?}");
    assert_eq!(
        target.fired(),
        vec![("daily".to_owned(), None), ("other".to_owned(), None)]
    );
}

#[tokio::test]
async fn a_busy_or_unavailable_trigger_answers_its_sentence() {
    let target = RecordingTarget::with(&[("busy", Outcome::Busy), ("down", Outcome::Unavailable)]);
    let server = listen(target.clone()).await;
    let (name, value) = bearer();
    let busy = post(server.port(), "/triggers/busy", &[(name, &value)], b"").await;
    assert_json_error(
        &busy,
        409,
        "the previous run of this trigger is still running",
    );
    let down = post(server.port(), "/triggers/down", &[(name, &value)], b"").await;
    assert_json_error(&down, 503, "the run could not be started");
}

#[tokio::test]
async fn a_refusal_does_not_ask_for_a_body_the_client_is_holding_back() {
    let target = RecordingTarget::with(&[("daily", Outcome::Fires)]);
    let server = listen(target.clone()).await;
    // curl sends `Expect: 100-continue` before a large body and waits; a
    // wrong secret must be answered without inviting the body first.
    let request = "POST /triggers/daily HTTP/1.1\r\nHost: x\r\nX-Trigger-Secret: wrong-secret-000000000\r\n\
                   Expect: 100-continue\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n";
    let response = send(server.port(), request.as_bytes()).await;
    assert_json_error(&response, 401, "unauthorized");
    assert_eq!(target.fired(), vec![]);
}
