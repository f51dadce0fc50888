//! Bytes → frames (SSE events, NDJSON lines, AWS event-stream messages), and
//! frames → `StreamEvent`s through a per-format [`Decoder`].
//!
//! Parsers never see HTTP: the same pipeline runs over a `reqwest` body or
//! over recorded bytes (tests, the bench).

use std::collections::VecDeque;
use std::time::Duration;

use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};
use bytes::{Buf, Bytes, BytesMut};
use eventsource_stream::Eventsource;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use pizza_llm::{CancellationToken, Error, EventStream, Result, StreamEvent};

/// A body as a stream of byte chunks (errors are already STREAM_ERROR).
pub(crate) type ByteStream = BoxStream<'static, Result<Bytes>>;

/// One unit of a provider's stream.
#[derive(Debug)]
pub enum Frame {
    Sse {
        event: String,
        data: String,
    },
    Line(String),
    /// An AWS event-stream message: `:event-type` (or `:exception-type`),
    /// `:message-type`, payload.
    Binary {
        event_type: String,
        message_type: String,
        payload: Bytes,
    },
}

impl Frame {
    /// The data of an SSE frame that carries any; `None` for a keep-alive
    /// or a frame of another framing, which the SSE formats pass over.
    pub(crate) fn sse_data(self) -> Option<String> {
        match self {
            Frame::Sse { data, .. } if !data.trim().is_empty() => Some(data),
            _ => None,
        }
    }
}

/// Which framing a wire format uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Sse,
    Ndjson,
    AwsEventStream,
}

/// Turns frames of one wire format into neutral events.
pub trait Decoder: Send {
    fn decode(&mut self, frame: Frame, out: &mut Vec<StreamEvent>) -> Result<()>;
    /// True once the format's terminal event arrived; reading stops there.
    fn is_done(&self) -> bool;
    /// The body ended. Errors unless the terminal event was seen, so a cut
    /// stream never passes for a short answer.
    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<()>;
}

pub(crate) fn frames(bytes: ByteStream, framing: Framing) -> BoxStream<'static, Result<Frame>> {
    match framing {
        Framing::Sse => sse_frames(bytes).boxed(),
        Framing::Ndjson => ndjson_frames(bytes).boxed(),
        Framing::AwsEventStream => aws_frames(bytes).boxed(),
    }
}

fn sse_frames(bytes: ByteStream) -> impl Stream<Item = Result<Frame>> {
    bytes.eventsource().map(|item| match item {
        Ok(event) => Ok(Frame::Sse {
            event: event.event,
            data: event.data,
        }),
        Err(eventsource_stream::EventStreamError::Transport(error)) => Err(error),
        Err(error) => Err(Error::stream(format!("malformed event stream: {error}"))),
    })
}

fn ndjson_frames(bytes: ByteStream) -> impl Stream<Item = Result<Frame>> {
    let state = (
        bytes,
        BytesMut::new(),
        VecDeque::<Result<Frame>>::new(),
        false,
    );
    futures::stream::unfold(
        state,
        |(mut bytes, mut buffer, mut ready, mut ended)| async move {
            loop {
                if let Some(frame) = ready.pop_front() {
                    return Some((frame, (bytes, buffer, ready, ended)));
                }
                if ended {
                    return None;
                }
                match bytes.next().await {
                    Some(Ok(chunk)) => {
                        buffer.extend_from_slice(&chunk);
                        while let Some(at) = buffer.iter().position(|&b| b == b'\n') {
                            let line = buffer.split_to(at + 1);
                            push_line(&line[..at], &mut ready);
                        }
                    }
                    Some(Err(error)) => {
                        ready.push_back(Err(error));
                        ended = true;
                    }
                    None => {
                        let rest = std::mem::take(&mut buffer);
                        push_line(&rest, &mut ready);
                        ended = true;
                    }
                }
            }
        },
    )
}

fn push_line(line: &[u8], ready: &mut VecDeque<Result<Frame>>) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    ready.push_back(
        std::str::from_utf8(line)
            .map(|text| Frame::Line(text.to_owned()))
            .map_err(|_| Error::stream("a stream line is not UTF-8")),
    );
}

fn aws_frames(bytes: ByteStream) -> impl Stream<Item = Result<Frame>> {
    let state = (
        bytes,
        BytesMut::new(),
        MessageFrameDecoder::new(),
        VecDeque::<Result<Frame>>::new(),
        false,
    );
    futures::stream::unfold(
        state,
        |(mut bytes, mut buffer, mut decoder, mut ready, mut ended)| async move {
            loop {
                if let Some(frame) = ready.pop_front() {
                    return Some((frame, (bytes, buffer, decoder, ready, ended)));
                }
                if ended {
                    return None;
                }
                match bytes.next().await {
                    Some(Ok(chunk)) => {
                        buffer.extend_from_slice(&chunk);
                        loop {
                            match decoder.decode_frame(&mut buffer) {
                                Ok(DecodedFrame::Complete(message)) => {
                                    ready.push_back(Ok(binary_frame(&message)));
                                }
                                Ok(DecodedFrame::Incomplete) => break,
                                Err(error) => {
                                    ready.push_back(Err(Error::stream(format!(
                                        "malformed event-stream frame: {error}"
                                    ))));
                                    ended = true;
                                    break;
                                }
                            }
                        }
                    }
                    Some(Err(error)) => {
                        ready.push_back(Err(error));
                        ended = true;
                    }
                    None => {
                        if buffer.has_remaining() {
                            ready.push_back(Err(Error::stream("the event stream ended mid-frame")));
                        }
                        ended = true;
                    }
                }
            }
        },
    )
}

fn binary_frame(message: &aws_smithy_types::event_stream::Message) -> Frame {
    let mut event_type = String::new();
    let mut message_type = String::new();
    for header in message.headers() {
        let value = header
            .value()
            .as_string()
            .map(|value| value.as_str().to_owned())
            .unwrap_or_default();
        match header.name().as_str() {
            // `:error-code` names protocol-level (`:message-type` error) failures.
            ":event-type" | ":exception-type" | ":error-code" => event_type = value,
            ":message-type" => message_type = value,
            _ => {}
        }
    }
    Frame::Binary {
        event_type,
        message_type,
        payload: message.payload().clone(),
    }
}

struct Pipeline {
    frames: Option<BoxStream<'static, Result<Frame>>>,
    decoder: Box<dyn Decoder>,
    pending: VecDeque<Result<StreamEvent>>,
    scratch: Vec<StreamEvent>,
    cancel: CancellationToken,
    idle: Option<Duration>,
}

impl Pipeline {
    /// Ends the stream: drops the body (closing the connection) first.
    fn end_with(&mut self, error: Option<Error>) {
        self.frames = None;
        if let Some(error) = error {
            self.pending.push_back(Err(error));
        }
    }

    fn flush(&mut self, result: Result<()>) {
        self.pending
            .extend(self.scratch.drain(..).map(Ok::<_, Error>));
        if let Err(error) = result {
            self.end_with(Some(error));
        }
    }

    async fn step(&mut self) {
        let Some(frames) = self.frames.as_mut() else {
            return;
        };
        let next = frames.next();
        let next = async {
            match self.idle {
                Some(idle) => tokio::time::timeout(idle, next).await.ok(),
                None => Some(next.await),
            }
        };
        let cancel = self.cancel.clone();
        let outcome = tokio::select! {
            biased;
            () = cancel.cancelled() => None,
            outcome = next => Some(outcome),
        };
        match outcome {
            None => self.end_with(Some(Error::Cancelled)),
            Some(None) => {
                let idle = self.idle.unwrap_or_default();
                self.end_with(Some(Error::Timeout {
                    message: format!("no data from the provider for {} s", idle.as_secs_f32()),
                }));
            }
            Some(Some(Some(Ok(frame)))) => {
                let result = self.decoder.decode(frame, &mut self.scratch);
                self.flush(result);
                if self.decoder.is_done() {
                    self.end_with(None);
                }
            }
            Some(Some(Some(Err(error)))) => {
                self.flush(Ok(()));
                self.end_with(Some(error));
            }
            Some(Some(None)) => {
                let result = self.decoder.finish(&mut self.scratch);
                self.flush(result);
                self.end_with(None);
            }
        }
    }
}

/// Runs `bytes` through `framing` and `decoder`. Cancelling `cancel` yields
/// `Cancelled`; no frame for `idle` yields `Timeout`; either ends the stream
/// and drops the connection.
pub fn decode_stream(
    bytes: ByteStream,
    framing: Framing,
    decoder: Box<dyn Decoder>,
    cancel: CancellationToken,
    idle: Option<Duration>,
) -> EventStream {
    let pipeline = Pipeline {
        frames: Some(frames(bytes, framing)),
        decoder,
        pending: VecDeque::new(),
        scratch: Vec::new(),
        cancel,
        idle,
    };
    futures::stream::unfold(pipeline, |mut pipeline| async move {
        loop {
            if let Some(item) = pipeline.pending.pop_front() {
                if item.is_err() {
                    pipeline.pending.clear();
                }
                return Some((item, pipeline));
            }
            pipeline.frames.as_ref()?;
            pipeline.step().await;
        }
    })
    .boxed()
}
