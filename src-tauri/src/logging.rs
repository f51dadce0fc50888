//! Logs to stderr and to size-capped, rotated files in the data root.
//!
//! Filtering follows `RUST_LOG` (default `info`). Nothing logged anywhere in
//! the app may contain secrets or message bodies; the files only make that
//! mistake last longer, they do not cause it. As a second line of defence
//! every line is scrubbed of secret-shaped values and of the secrets the
//! keychain handled ([`redact`]).

mod redact;

use file_rotate::{ContentLimit, FileRotate, compression::Compression, suffix::AppendCount};
use std::path::Path;
use tracing_appender::non_blocking::{NonBlocking, NonBlockingBuilder, WorkerGuard};

use redact::Redacting;
pub(crate) use redact::{redact, remember_secret};
use tracing::Subscriber;
use tracing_subscriber::{EnvFilter, fmt, layer::SubscriberExt, util::SubscriberInitExt};

/// Each log file is capped here; with `KEPT_FILES` the total stays ≤ 20 MB.
const FILE_BYTES: usize = 4 * 1024 * 1024;
const KEPT_FILES: usize = 4;
/// The live file; the viewer (`log_read`) reads it and its rotations.
const LOG_FILE: &str = pizza_host::LOG_FILE_NAME;
/// Lines waiting for the writer thread before new ones are dropped.
/// tracing-appender's default (128,000) is a queue allocated and written
/// whole as logging starts: 4 MiB of the app's memory for its whole life,
/// where the writer keeps up with a few lines at a time.
const BUFFERED_LINES: usize = 4096;

/// Keeps the background log writer alive; dropping it flushes the file.
#[derive(Debug)]
pub(crate) struct LogGuard {
    _file: Option<WorkerGuard>,
}

/// Logging to stderr only, for before the data root is known.
pub(crate) fn init_stderr_only() -> LogGuard {
    let _ = subscriber(None).try_init();
    LogGuard { _file: None }
}

pub(crate) fn init(logs_dir: &Path) -> LogGuard {
    match file_writer(logs_dir) {
        Ok((writer, guard)) => {
            let _ = subscriber(Some(writer)).try_init();
            LogGuard { _file: Some(guard) }
        }
        Err(error) => {
            let guard = init_stderr_only();
            tracing::warn!(dir = %logs_dir.display(), %error, "log files unavailable; logging to stderr only");
            guard
        }
    }
}

/// The app's subscriber: the filter, stderr, and the files when there are
/// any; both outputs scrubbed.
fn subscriber(file: Option<Redacting<NonBlocking>>) -> impl Subscriber + Send + Sync {
    tracing_subscriber::registry()
        .with(filter())
        .with(fmt::layer().with_writer(Redacting(std::io::stderr)))
        .with(file.map(|writer| fmt::layer().with_ansi(false).with_writer(writer)))
}

/// The rotated, owner-only log files in `logs_dir`, written in the
/// background, every line scrubbed.
fn file_writer(logs_dir: &Path) -> std::io::Result<(Redacting<NonBlocking>, WorkerGuard)> {
    std::fs::create_dir_all(logs_dir)?;
    let rotate = FileRotate::new(
        logs_dir.join(LOG_FILE),
        AppendCount::new(KEPT_FILES),
        ContentLimit::BytesSurpassed(FILE_BYTES),
        Compression::None,
        Some(private_file_options()),
    );
    let (writer, guard) = NonBlockingBuilder::default()
        .buffered_lines_limit(BUFFERED_LINES)
        .finish(rotate);
    Ok((Redacting(writer), guard))
}

fn private_file_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// rmcp logs every session's whole server info (instructions included) and
/// each notification at info: kept to warnings unless asked for by name.
const QUIET: &[&str] = &["rmcp=warn"];

fn filter() -> EnvFilter {
    let mut filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let asked = std::env::var("RUST_LOG").unwrap_or_default();
    for directive in QUIET {
        let target = directive.split('=').next().unwrap_or_default();
        if !asked.contains(target)
            && let Ok(directive) = directive.parse()
        {
            filter = filter.add_directive(directive);
        }
    }
    filter
}

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_host::SecretStore;

    /// The app's own subscriber and file writer, a key logged by mistake in
    /// a message and a field, and a key only the keychain knows: none of
    /// them reaches the file.
    #[test]
    fn a_key_logged_by_mistake_is_redacted_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let (writer, guard) = file_writer(dir.path()).unwrap();
        // A keychain without a desktop: `keyring`'s in-process store.
        keyring::set_default_credential_builder(keyring::mock::default_credential_builder());
        let keychain = crate::keychain::KeychainSecrets::new("pizza-bot-logging-test");
        keychain
            .set("provider.custom.api_key", "plain-looking-keychain-value-42")
            .unwrap();
        remember_secret("my-keychain-secret-42");
        tracing::subscriber::with_default(subscriber(Some(writer)), || {
            tracing::warn!(
                header = "Bearer abcdefgh12345678",
                "request failed with key sk-ant-api03-DEADBEEF0001 and my-keychain-secret-42"
            );
            tracing::error!(key = "plain-looking-keychain-value-42", "provider refused");
        });
        drop(guard); // flushes the background writer
        let logged = std::fs::read_to_string(dir.path().join(LOG_FILE)).unwrap();
        assert!(
            logged.contains("request failed with key [redacted]"),
            "{logged}"
        );
        assert!(logged.contains("provider refused key="), "{logged}");
        assert_eq!(logged.matches("[redacted]").count(), 4, "{logged}");
        for secret in [
            "DEADBEEF",
            "abcdefgh12345678",
            "my-keychain-secret-42",
            "plain-looking-keychain-value-42",
        ] {
            assert!(!logged.contains(secret), "{secret} in {logged}");
        }
    }
}
