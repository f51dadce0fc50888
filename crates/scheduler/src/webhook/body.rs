//! Reading a request body without ever holding more than the limit, and
//! draining what a refused request still sends so its answer arrives.
//!
//! Why drain: closing a socket with unread bytes in it makes the kernel
//! reset the connection, and a client (curl) then reports "connection
//! reset" instead of the 401 or 413 it was sent. A bounded amount is read
//! and thrown away first; a client that sends more than that is cut off.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Incoming};
use hyper::header::{CONTENT_LENGTH, EXPECT, HeaderMap};

/// The most a refused request may still send before its connection is cut.
const DRAIN_MAX_BYTES: usize = 1024 * 1024;
/// How long a refused request may take to send the rest.
const DRAIN_DEADLINE: Duration = Duration::from_secs(2);

/// Why a body was not read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum BodyError {
    /// Declared or sent over the limit.
    TooLarge,
    /// The client went away or broke the framing mid-body.
    Broken,
}

/// A request's body, read at most once.
#[derive(Debug)]
pub(super) struct RequestBody {
    incoming: Incoming,
    /// A client that sent `Expect: 100-continue` sends nothing until the
    /// body is first read (hyper answers `100 Continue` then): a refusal
    /// before that must not invite the body it is about to refuse.
    waits_for_continue: bool,
    /// `Content-Length`, when the client sent one that parses.
    declared_bytes: Option<u64>,
    started: bool,
}

impl RequestBody {
    pub(super) fn new(incoming: Incoming, headers: &HeaderMap) -> Self {
        let waits_for_continue = headers
            .get(EXPECT)
            .is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"100-continue"));
        let declared_bytes = headers
            .get(CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok());
        Self {
            incoming,
            waits_for_continue,
            declared_bytes,
            started: false,
        }
    }

    /// Whether `Content-Length` already says the body is over `limit`.
    pub(super) fn declared_over(&self, limit: usize) -> bool {
        self.declared_bytes
            .is_some_and(|declared| declared > limit as u64)
    }

    /// The whole body, or `TooLarge` as soon as more than `limit` bytes have
    /// arrived (a chunked body declares no length up front).
    pub(super) async fn read_at_most(&mut self, limit: usize) -> Result<Bytes, BodyError> {
        self.started = true;
        let mut buffered: Vec<u8> = Vec::new();
        while let Some(frame) = self.incoming.frame().await {
            let frame = frame.map_err(|_| BodyError::Broken)?;
            let Ok(data) = frame.into_data() else {
                continue; // trailers carry nothing the listener reads
            };
            if buffered.len() + data.len() > limit {
                return Err(BodyError::TooLarge);
            }
            buffered.extend_from_slice(&data);
        }
        Ok(Bytes::from(buffered))
    }

    /// Reads and drops what is left of the body, within a bound, so the
    /// connection can close cleanly after a refusal.
    pub(super) async fn discard_rest(mut self) {
        let held_back = self.waits_for_continue && !self.started;
        // Declared past the drain bound: it would be cut off anyway.
        if self.incoming.is_end_stream() || held_back || self.declared_over(DRAIN_MAX_BYTES) {
            return;
        }
        let drain = async {
            let mut discarded = 0_usize;
            while let Some(Ok(frame)) = self.incoming.frame().await {
                if let Ok(data) = frame.into_data() {
                    discarded += data.len();
                    if discarded > DRAIN_MAX_BYTES {
                        return;
                    }
                }
            }
        };
        // A client that stalls is simply cut off when the deadline passes.
        let _ = tokio::time::timeout(DRAIN_DEADLINE, drain).await;
    }
}
