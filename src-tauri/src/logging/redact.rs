//! A second line of defence for the log files: every formatted line is
//! scrubbed of secret-shaped values (OpenAI/Anthropic-style `sk-…` keys,
//! bearer tokens, AWS access key ids, Google API keys) and of the exact
//! secrets the keychain handed out or stored in this process, before it is
//! written. Nothing should log a secret; this keeps a slip from lasting.

use std::io::{self, Write};
use std::sync::{LazyLock, PoisonError, RwLock};

use regex::Regex;
use tracing_subscriber::fmt::MakeWriter;

/// What a scrubbed value becomes.
pub(crate) const REDACTED: &str = "[redacted]";

/// Shorter values are not remembered: they would scrub ordinary words.
const REMEMBERED_MIN_CHARS: usize = 8;

static SHAPES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"sk-[A-Za-z0-9_\-]{8,}",
        r"|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{8,}",
        r"|AKIA[0-9A-Z]{16}",
        r"|AIza[0-9A-Za-z_\-]{30,}",
    ))
    .map_err(|error| eprintln!("log redaction pattern: {error}"))
    .ok()
});

/// The secrets seen in this process, longest first (so a secret that
/// contains another is scrubbed whole).
static REMEMBERED: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Scrubs `secret` from every later log line.
pub(crate) fn remember_secret(secret: &str) {
    let secret = secret.trim();
    if secret.chars().count() < REMEMBERED_MIN_CHARS {
        return;
    }
    let mut known = REMEMBERED.write().unwrap_or_else(PoisonError::into_inner);
    if !known.iter().any(|k| k == secret) {
        known.push(secret.to_owned());
        known.sort_by_key(|k| std::cmp::Reverse(k.len()));
    }
}

/// `line` with every secret-shaped or remembered value replaced.
pub(crate) fn redact(line: &str) -> String {
    let mut text = match SHAPES.as_ref() {
        Some(shapes) => shapes.replace_all(line, REDACTED).into_owned(),
        None => line.to_owned(),
    };
    let known = REMEMBERED.read().unwrap_or_else(PoisonError::into_inner);
    for secret in known.iter() {
        if text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), REDACTED);
        }
    }
    text
}

/// Wraps a writer factory: each event is collected whole, scrubbed, then
/// written in one piece.
#[derive(Debug, Clone)]
pub(crate) struct Redacting<M>(pub(crate) M);

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for Redacting<M> {
    type Writer = RedactingWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter {
            inner: self.0.make_writer(),
            buffer: Vec::new(),
        }
    }
}

/// One event's bytes on their way to the inner writer.
pub(crate) struct RedactingWriter<W: Write> {
    inner: W,
    buffer: Vec<u8>,
}

impl<W: Write> RedactingWriter<W> {
    fn flush_buffer(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&self.buffer);
        let clean = redact(&text);
        self.buffer.clear();
        self.inner.write_all(clean.as_bytes())
    }
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_buffer()?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for RedactingWriter<W> {
    fn drop(&mut self) {
        // A log line that cannot be written is dropped, never the app.
        let _ = self.flush_buffer();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_shapes_and_remembered_secrets_are_scrubbed() {
        let line = "calling with sk-proj-abcdEFGH1234_x and Authorization: Bearer eyJhbGciOi.abc \
                    key AKIAABCDEFGHIJKLMNOP google AIzaSyA1234567890abcdefghijklmnopqrstu";
        let clean = redact(line);
        assert!(!clean.contains("sk-proj"), "{clean}");
        assert!(!clean.contains("eyJhbGciOi"), "{clean}");
        assert!(!clean.contains("AKIAABCD"), "{clean}");
        assert!(!clean.contains("AIzaSy"), "{clean}");
        assert_eq!(clean.matches(REDACTED).count(), 4, "{clean}");

        remember_secret("hunter2-but-longer");
        remember_secret("short");
        let clean = redact("the key hunter2-but-longer leaked; short words stay");
        assert_eq!(clean, "the key [redacted] leaked; short words stay");
        assert_eq!(redact("nothing secret here"), "nothing secret here");
    }
}
