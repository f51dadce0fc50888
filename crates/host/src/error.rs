use pizza_protocol::{ApiError, ErrorCode};
use std::path::PathBuf;

pub type Result<T, E = HostError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    #[error("The data folder {path} cannot be used: {source}.")]
    DataRootUnusable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "The data folder {path} was written by a newer version of Pizza Bot \
         (data format {found}, this version reads up to {supported}). Update Pizza Bot, \
         or start it with PIZZA_DATA_ROOT pointing at another folder."
    )]
    DataRootTooNew {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error("The data folder marker {path} is damaged: {reason}.")]
    DataRootDamaged { path: PathBuf, reason: String },
    #[error("Could not save {path}: {source}.")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}", sentence(.0))]
    Store(#[from] pizza_store::Error),
    #[error("Could not read the skills: {reason}.")]
    SkillsUnreadable { reason: String },
}

impl From<HostError> for ApiError {
    fn from(err: HostError) -> Self {
        let code = match &err {
            HostError::DataRootUnusable { .. }
            | HostError::Write { .. }
            | HostError::SkillsUnreadable { .. } => ErrorCode::General,
            HostError::DataRootTooNew { .. } | HostError::DataRootDamaged { .. } => {
                ErrorCode::Conflict
            }
            HostError::Store(store) => store.code(),
        };
        let retryable = match &err {
            HostError::Store(store) => store.is_retryable(),
            _ => code.default_retryable(),
        };
        ApiError::new(code, err.to_string()).retryable(retryable)
    }
}

/// The store speaks in lower-case clauses; the UI shows sentences.
fn sentence(err: &pizza_store::Error) -> String {
    let text = err.to_string();
    let mut chars = text.chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => return "The store failed.".to_owned(),
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

/// Runs blocking file or keychain work off the async threads; a worker that
/// panicked or was cancelled is `GENERAL` with `failure` as its sentence.
pub(crate) async fn off_thread<T: Send + 'static>(
    failure: &'static str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, pizza_protocol::ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| pizza_protocol::ApiError::general(failure).with_details(e.to_string()))
}
