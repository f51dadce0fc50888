//! Why a schedule was refused, naming the field a trigger editor shows it on.

/// A schedule that cannot be built from what was given.
///
/// The message starts with the field (`cron: …`, `timezone: …`) so the host
/// can pass it on as `INVALID_INPUT` unchanged; [`Error::field`] names the
/// field for callers that place the message themselves.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("cron: {reason}")]
    Cron { reason: String },
    #[error("timezone: unknown zone `{name}`; use an IANA name such as Europe/Paris")]
    UnknownZone { name: String },
}

impl Error {
    /// The trigger field the error is about: `"cron"` or `"timezone"`.
    pub fn field(&self) -> &'static str {
        match self {
            Self::Cron { .. } => "cron",
            Self::UnknownZone { .. } => "timezone",
        }
    }

    pub(crate) fn cron(reason: impl Into<String>) -> Self {
        Self::Cron {
            reason: reason.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
