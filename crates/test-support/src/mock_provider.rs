//! A real HTTP server on 127.0.0.1 that tests script per request, to stand
//! in for model providers (and for an OpenAI-compatible server in the app's
//! end-to-end tests).
//!
//! Responses are taken, in order, from a queue for the request's path, then
//! from the general queue, then from a repeating default for the path; an
//! unscripted request gets a 599 so a test fails loudly. Every request is
//! recorded for assertions.

mod response;
pub mod sse;

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::{CancellationToken, DropGuard};

pub use response::{Chunk, Gate, MockBody, MockResponse};

/// One request the server received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    /// Header names are lower-case.
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The body as JSON (`Null` if it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

#[derive(Debug, Default)]
struct Script {
    general: VecDeque<MockResponse>,
    by_path: HashMap<String, VecDeque<MockResponse>>,
    defaults: HashMap<String, MockResponse>,
    requests: Vec<RecordedRequest>,
}

impl Script {
    fn next_for(&mut self, path: &str) -> MockResponse {
        if let Some(response) = self.by_path.get_mut(path).and_then(VecDeque::pop_front) {
            return response;
        }
        if let Some(response) = self.general.pop_front() {
            return response;
        }
        if let Some(response) = self.defaults.get(path) {
            return response.clone();
        }
        MockResponse::text(
            599,
            format!("mock provider: no response scripted for {path}"),
        )
    }
}

/// The server; it stops (and drops hanging streams) when this is dropped.
#[derive(Debug)]
pub struct MockProvider {
    addr: SocketAddr,
    script: Arc<Mutex<Script>>,
    arrived: Arc<tokio::sync::Notify>,
    _stop: DropGuard,
}

impl MockProvider {
    /// Binds 127.0.0.1:0 and starts serving on the current tokio runtime.
    pub async fn start() -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let script = Arc::new(Mutex::new(Script::default()));
        let arrived = Arc::new(tokio::sync::Notify::new());
        let stop = CancellationToken::new();
        tokio::spawn(accept_loop(
            listener,
            script.clone(),
            arrived.clone(),
            stop.clone(),
        ));
        Ok(Self {
            addr,
            script,
            arrived,
            _stop: stop.drop_guard(),
        })
    }

    /// `http://127.0.0.1:<port>` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Answers the next request (any path) with `response`.
    pub fn push(&self, response: MockResponse) -> &Self {
        self.lock().general.push_back(response);
        self
    }

    /// Answers the next request to `path` with `response`.
    pub fn push_for(&self, path: &str, response: MockResponse) -> &Self {
        self.lock()
            .by_path
            .entry(path.to_owned())
            .or_default()
            .push_back(response);
        self
    }

    /// Answers every otherwise unscripted request to `path` with `response`.
    pub fn set_default(&self, path: &str, response: MockResponse) -> &Self {
        self.lock().defaults.insert(path.to_owned(), response);
        self
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// Waits until `done` holds for the requests received so far (checked
    /// at once, then as each request arrives).
    pub async fn wait_until(&self, mut done: impl FnMut(&[RecordedRequest]) -> bool) {
        loop {
            let arrived = self.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            if done(&self.lock().requests) {
                return;
            }
            arrived.await;
        }
    }

    /// The most recent request (panics in the caller's test if none).
    pub fn last_request(&self) -> Option<RecordedRequest> {
        self.lock().requests.last().cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

async fn accept_loop(
    listener: TcpListener,
    script: Arc<Mutex<Script>>,
    arrived: Arc<tokio::sync::Notify>,
    stop: CancellationToken,
) {
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else { continue };
        let script = script.clone();
        let arrived = arrived.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                handle(request, script.clone(), arrived.clone(), stop.clone())
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            // Errors here are the scripted cuts and clients going away.
            let _ = connection.await;
        });
    }
}

async fn handle(
    request: hyper::Request<Incoming>,
    script: Arc<Mutex<Script>>,
    arrived: Arc<tokio::sync::Notify>,
    stop: CancellationToken,
) -> Result<hyper::Response<response::ResponseBody>, Infallible> {
    let (parts, body) = request.into_parts();
    let body = body
        .collect()
        .await
        .map(http_body_util::Collected::to_bytes)
        .unwrap_or_default();
    let recorded = RecordedRequest {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
    };
    let path = recorded.path.clone();
    let scripted = {
        let mut script = script.lock().unwrap_or_else(PoisonError::into_inner);
        script.requests.push(recorded);
        script.next_for(&path)
    };
    arrived.notify_waiters();
    Ok(scripted.into_hyper(stop))
}
