//! A tiny HTTP/1.1 client over a plain TCP stream, so listener tests send
//! exactly the bytes they mean (a lying Content-Length, a chunked body, an
//! `Expect` header) and read the answer as it came.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A guard against a listener that never answers: the test fails instead
/// of hanging. Answers normally come in milliseconds.
const EXCHANGE_DEADLINE: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub(super) struct RawResponse {
    pub(super) status: u16,
    /// Names in lower case.
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: String,
}

impl RawResponse {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    pub(super) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {:?}", self.body))
    }
}

/// `POST path` with `headers`, a Content-Length and `body`.
pub(super) async fn post(
    port: u16,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> RawResponse {
    let mut request = format!("POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);
    send(port, &bytes).await
}

/// Writes `request` as it is and reads the answer until the server closes.
/// The request should say `Connection: close`.
pub(super) async fn send(port: u16, request: &[u8]) -> RawResponse {
    let exchange = async {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        stream.write_all(request).await.unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.unwrap();
        answer
    };
    let answer = tokio::time::timeout(EXCHANGE_DEADLINE, exchange)
        .await
        .expect("the listener did not answer in time");
    parse(&answer)
}

fn parse(answer: &[u8]) -> RawResponse {
    let text = String::from_utf8(answer.to_vec()).expect("the answer is not UTF-8");
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no end of head in {text:?}"));
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status in {status_line:?}"));
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    RawResponse {
        status,
        headers,
        body: body.to_owned(),
    }
}
