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
}

impl From<HostError> for ApiError {
    fn from(err: HostError) -> Self {
        let code = match &err {
            HostError::DataRootUnusable { .. } | HostError::Write { .. } => ErrorCode::General,
            HostError::DataRootTooNew { .. } | HostError::DataRootDamaged { .. } => {
                ErrorCode::Conflict
            }
        };
        ApiError::new(code, err.to_string())
    }
}
