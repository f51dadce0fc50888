//! Logs to stderr and to size-capped, rotated files in the data root.
//!
//! Filtering follows `RUST_LOG` (default `info`). Nothing logged anywhere in
//! the app may contain secrets or message bodies; the files only make that
//! mistake last longer, they do not cause it.

use file_rotate::{ContentLimit, FileRotate, compression::Compression, suffix::AppendCount};
use std::path::Path;
use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::{EnvFilter, fmt, layer::SubscriberExt, util::SubscriberInitExt};

/// Each log file is capped here; with `KEPT_FILES` the total stays ≤ 20 MB.
const FILE_BYTES: usize = 4 * 1024 * 1024;
const KEPT_FILES: usize = 4;

/// Keeps the background log writer alive; dropping it flushes the file.
#[derive(Debug)]
pub(crate) struct LogGuard {
    _file: Option<WorkerGuard>,
}

/// Logging to stderr only, for before the data root is known.
pub(crate) fn init_stderr_only() -> LogGuard {
    let _ = tracing_subscriber::registry()
        .with(filter())
        .with(fmt::layer().with_writer(std::io::stderr))
        .try_init();
    LogGuard { _file: None }
}

pub(crate) fn init(logs_dir: &Path) -> LogGuard {
    let file = std::fs::create_dir_all(logs_dir).map(|()| {
        let rotate = FileRotate::new(
            logs_dir.join("pizza-bot.log"),
            AppendCount::new(KEPT_FILES),
            ContentLimit::BytesSurpassed(FILE_BYTES),
            Compression::None,
            Some(private_file_options()),
        );
        tracing_appender::non_blocking(rotate)
    });
    match file {
        Ok((writer, guard)) => {
            let _ = tracing_subscriber::registry()
                .with(filter())
                .with(fmt::layer().with_writer(std::io::stderr))
                .with(fmt::layer().with_ansi(false).with_writer(writer))
                .try_init();
            LogGuard { _file: Some(guard) }
        }
        Err(error) => {
            let guard = init_stderr_only();
            tracing::warn!(dir = %logs_dir.display(), %error, "log files unavailable; logging to stderr only");
            guard
        }
    }
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

fn filter() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"))
}
