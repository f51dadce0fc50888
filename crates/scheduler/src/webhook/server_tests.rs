//! The listener's life: the port it takes, what stopping frees, what it logs.

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

use pretty_assertions::assert_eq;

use super::*;
use crate::webhook::raw_http_client::post;
use crate::webhook::recording_target::{Outcome, RecordingTarget, SECRET, listen};

#[tokio::test]
async fn a_taken_port_is_refused_with_a_sentence_a_person_can_act_on() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let target = RecordingTarget::with(&[]);
    let refused = WebhookServer::start(port, target).await.unwrap_err();
    assert!(
        matches!(refused, WebhookError::PortTaken(p) if p == port),
        "{refused:?}"
    );
    assert_eq!(
        refused.to_string(),
        format!(
            "port {port} on 127.0.0.1 is already in use by another program: choose another webhook port in the automations settings, or quit the program using it"
        )
    );
}

#[tokio::test]
async fn port_zero_picks_a_free_port_and_stop_frees_it() {
    let target = RecordingTarget::with(&[("daily", Outcome::Fires)]);
    let server = listen(target.clone()).await;
    let port = server.port();
    assert_ne!(port, 0);
    let response = post(
        port,
        "/triggers/daily",
        &[("X-Trigger-Secret", SECRET)],
        b"",
    )
    .await;
    assert_eq!(response.status, 202, "{response:?}");

    server.stop().await;
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err(),
        "still accepting after stop"
    );
    // The same port can be taken again at once.
    let again = WebhookServer::start(port, target).await.unwrap();
    assert_eq!(again.port(), port);
    again.stop().await;
}

#[tokio::test]
async fn stop_ends_idle_keep_alive_connections_too() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let target = RecordingTarget::with(&[("daily", Outcome::Fires)]);
    let server = listen(target).await;
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", server.port()))
        .await
        .unwrap();
    // A kept-alive connection with nothing in flight must not hold `stop` up.
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut first = [0_u8; 12];
    stream.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 404");
    server.stop().await;
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).await.unwrap();
}

#[tokio::test]
async fn dropping_the_server_ends_every_task_it_started() {
    use tokio::io::AsyncWriteExt;

    let target = RecordingTarget::with(&[("daily", Outcome::Fires)]);
    let server = listen(target).await;
    let port = server.port();
    let mut idle = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    idle.write_all(b"POST /triggers/daily HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let tasks = server.tasks.clone();
    drop(server);
    // Waits for the accept loop and the half-sent connection to end.
    tasks.close();
    tasks.wait().await;
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
    );
}

/// Everything `tracing` emits in this test binary. Installed as the global
/// subscriber: a thread-local one misses events whose callsite another test
/// thread cached as uninteresting first.
#[derive(Clone, Default)]
struct CapturedLog(Arc<Mutex<Vec<u8>>>);

impl Write for CapturedLog {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn captured_log() -> &'static CapturedLog {
    static LOG: OnceLock<CapturedLog> = OnceLock::new();
    LOG.get_or_init(|| {
        let log = CapturedLog::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::set_global_default(subscriber)
            .expect("no other test installs a global subscriber");
        log
    })
}

#[tokio::test]
async fn nothing_logs_the_secret_or_the_authorization_header() {
    let log = captured_log();
    let target = RecordingTarget::with(&[("logged", Outcome::Fires)]);
    let server = listen(target).await;
    let bearer = format!("Bearer {SECRET}");
    let wrong = format!("Bearer {SECRET}-wrong");
    let pasted_in_path = format!("/triggers/{SECRET}");
    post(server.port(), &pasted_in_path, &[], b"").await;
    for headers in [
        [("Authorization", bearer.as_str())],
        [("X-Trigger-Secret", SECRET)],
        [("Authorization", wrong.as_str())],
    ] {
        post(server.port(), "/triggers/logged", &headers, b"{}").await;
    }
    server.stop().await;

    // Other tests log here too, with the same secret: all of it is checked.
    let log = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains("webhook request answered"), "{log}");
    assert!(log.contains(r#"trigger="logged" status=401"#), "{log}");
    assert!(!log.contains(SECRET), "the secret was logged: {log}");
    assert!(
        !log.contains("Bearer"),
        "the Authorization header was logged: {log}"
    );
}
