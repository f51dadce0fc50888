//! How an eval call can end without a result, in sentences written for the
//! model to act on.

/// Why an eval call produced no result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    #[error(
        "stopped after {secs} s: the program did not finish in time; page large files with offset/limit and return less"
    )]
    Timeout { secs: f64 },
    #[error(
        "out of memory ({mib} MiB): the program held too much at once; process the data in pages and keep only counts or small results"
    )]
    OutOfMemory { mib: u64 },
    #[error("cancelled")]
    Cancelled,
    /// An uncaught exception, including syntax errors and stack overflow.
    #[error("{message}")]
    Thrown { message: String },
    #[error("the program's promise never settled (it awaits something that never happens)")]
    NeverSettled,
    #[error("the interpreter stopped unexpectedly: {detail}")]
    Crashed { detail: String },
    #[error("could not start the JavaScript worker {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the program made more than {limit} tool calls; read bigger pages or split the work over several eval calls"
    )]
    BridgeLimit { limit: u32 },
}

/// A failed call still returns what the guest logged before it failed.
#[derive(Debug)]
pub struct EvalFailure {
    pub error: EvalError,
    pub logs: String,
}

impl std::fmt::Display for EvalFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for EvalFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

pub type Result<T> = std::result::Result<T, EvalFailure>;

/// The message a bridge call past the limit rejects with; the same sentence
/// as the ending, so the guest and the model read one wording.
pub(crate) fn bridge_limit_message(limit: u32) -> String {
    EvalError::BridgeLimit { limit }.to_string()
}
