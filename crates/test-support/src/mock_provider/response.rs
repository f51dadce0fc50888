//! Scripted responses: a whole body, or chunks with delays, a hang or a cut.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use http_body_util::StreamBody;
use hyper::body::Frame;
use tokio_util::sync::CancellationToken;

pub(super) type ResponseBody = StreamBody<BoxStream<'static, Result<Frame<Bytes>, std::io::Error>>>;

/// One step of a streamed body.
#[derive(Debug, Clone)]
pub enum Chunk {
    Data(Bytes),
    Delay(Duration),
    /// Send nothing more, keep the connection open (until the server stops).
    Hang,
    /// Abort the connection mid-body, as a crashed upstream would.
    Cut,
    /// Send nothing more until the test opens the gate.
    Wait(Gate),
}

/// Holds a streamed body at a [`Chunk::Wait`] until [`Gate::open`]: a test
/// decides when the rest of an answer comes, instead of guessing a delay.
#[derive(Debug, Clone)]
pub struct Gate(std::sync::Arc<tokio::sync::Semaphore>);

impl Default for Gate {
    fn default() -> Self {
        Self::new()
    }
}

impl Gate {
    pub fn new() -> Self {
        Self(std::sync::Arc::new(tokio::sync::Semaphore::new(0)))
    }

    /// Lets every body waiting here (now or later) go on.
    pub fn open(&self) {
        self.0.add_permits(tokio::sync::Semaphore::MAX_PERMITS / 2);
    }

    async fn passed(&self) {
        // Each waiter takes a permit and gives it back, so the gate stays open.
        if let Ok(permit) = self.0.acquire().await {
            drop(permit);
        }
    }
}

#[derive(Debug, Clone)]
pub enum MockBody {
    Full(Bytes),
    Chunks(Vec<Chunk>),
}

/// A scripted HTTP response.
#[derive(Debug, Clone)]
pub struct MockResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: MockBody,
}

impl MockResponse {
    pub fn new(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: MockBody::Full(Bytes::new()),
        }
    }

    pub fn text(status: u16, body: impl Into<String>) -> Self {
        Self::new(status)
            .header("content-type", "text/plain")
            .body(body.into())
    }

    pub fn json(status: u16, body: &serde_json::Value) -> Self {
        Self::new(status)
            .header("content-type", "application/json")
            .body(body.to_string())
    }

    /// A 200 `text/event-stream` whose body is `frames` (each a complete SSE
    /// frame, e.g. from [`super::sse::frame`]), one chunk per frame.
    pub fn sse<I, S>(frames: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut response = Self::new(200).header("content-type", "text/event-stream");
        for frame in frames {
            response = response.chunk(frame.into());
        }
        response
    }

    /// A 200 `text/event-stream` replaying a recorded stream verbatim.
    pub fn sse_raw(body: impl Into<String>) -> Self {
        Self::new(200)
            .header("content-type", "text/event-stream")
            .chunk(body.into())
    }

    /// A 200 `application/vnd.amazon.eventstream` (Bedrock) whose body is
    /// `frames`, each one complete binary event-stream message, one chunk
    /// per frame. Frames come encoded by the caller (with
    /// `aws_smithy_eventstream::frame::write_message_to`), which keeps the
    /// AWS codec out of this crate's dependencies.
    pub fn aws_event_stream<I, B>(frames: I) -> Self
    where
        I: IntoIterator<Item = B>,
        B: Into<Bytes>,
    {
        let mut response =
            Self::new(200).header("content-type", "application/vnd.amazon.eventstream");
        for frame in frames {
            response = response.chunk(frame);
        }
        response
    }

    /// A 200 `application/x-ndjson` with one chunk per line.
    pub fn ndjson<I>(lines: I) -> Self
    where
        I: IntoIterator<Item = serde_json::Value>,
    {
        let mut response = Self::new(200).header("content-type", "application/x-ndjson");
        for line in lines {
            response = response.chunk(format!("{line}\n"));
        }
        response
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Replaces the body with `body`, sent whole.
    pub fn body(mut self, body: impl Into<Bytes>) -> Self {
        self.body = MockBody::Full(body.into());
        self
    }

    fn push_chunk(mut self, chunk: Chunk) -> Self {
        match &mut self.body {
            MockBody::Chunks(chunks) => chunks.push(chunk),
            MockBody::Full(bytes) => {
                let mut chunks = Vec::new();
                if !bytes.is_empty() {
                    chunks.push(Chunk::Data(bytes.clone()));
                }
                chunks.push(chunk);
                self.body = MockBody::Chunks(chunks);
            }
        }
        self
    }

    /// Appends a body chunk (streams the body chunk by chunk).
    pub fn chunk(self, data: impl Into<Bytes>) -> Self {
        self.push_chunk(Chunk::Data(data.into()))
    }

    pub fn delay(self, delay: Duration) -> Self {
        self.push_chunk(Chunk::Delay(delay))
    }

    /// Delays every data chunk by `delay`.
    pub fn with_delay_between_chunks(mut self, delay: Duration) -> Self {
        if let MockBody::Chunks(chunks) = &mut self.body {
            let mut spaced = Vec::with_capacity(chunks.len() * 2);
            for chunk in chunks.drain(..) {
                spaced.push(Chunk::Delay(delay));
                spaced.push(chunk);
            }
            *chunks = spaced;
        }
        self
    }

    pub fn hang(self) -> Self {
        self.push_chunk(Chunk::Hang)
    }

    /// Sends nothing more until `gate` opens.
    pub fn wait_for(self, gate: &Gate) -> Self {
        self.push_chunk(Chunk::Wait(gate.clone()))
    }

    pub fn cut(self) -> Self {
        self.push_chunk(Chunk::Cut)
    }

    pub(super) fn into_hyper(self, stop: CancellationToken) -> hyper::Response<ResponseBody> {
        let chunks: VecDeque<Chunk> = match self.body {
            MockBody::Full(bytes) => VecDeque::from([Chunk::Data(bytes)]),
            MockBody::Chunks(chunks) => chunks.into(),
        };
        let stream = futures::stream::unfold((chunks, stop), |(mut chunks, stop)| async move {
            loop {
                match chunks.pop_front()? {
                    Chunk::Data(bytes) => return Some((Ok(Frame::data(bytes)), (chunks, stop))),
                    Chunk::Delay(delay) => {
                        tokio::select! {
                            () = tokio::time::sleep(delay) => {}
                            () = stop.cancelled() => return None,
                        }
                    }
                    Chunk::Hang => {
                        stop.cancelled().await;
                        return None;
                    }
                    Chunk::Wait(gate) => {
                        tokio::select! {
                            () = gate.passed() => {}
                            () = stop.cancelled() => return None,
                        }
                    }
                    Chunk::Cut => {
                        // Let what was sent reach the client first: a cut
                        // models an upstream dying mid-body, not before it.
                        tokio::time::sleep(Duration::from_millis(30)).await;
                        let cut = std::io::Error::new(
                            std::io::ErrorKind::ConnectionReset,
                            "scripted cut",
                        );
                        return Some((Err(cut), (VecDeque::new(), stop)));
                    }
                }
            }
        })
        .boxed();
        let mut response = hyper::Response::new(StreamBody::new(stream));
        *response.status_mut() = hyper::StatusCode::from_u16(self.status)
            .unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
        for (name, value) in &self.headers {
            if let (Ok(name), Ok(value)) = (
                hyper::header::HeaderName::from_bytes(name.as_bytes()),
                hyper::header::HeaderValue::from_str(value),
            ) {
                response.headers_mut().append(name, value);
            }
        }
        response
    }
}
