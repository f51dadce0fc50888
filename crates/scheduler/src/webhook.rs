//! The loopback webhook listener: `POST /triggers/<id>` with the trigger's
//! secret fires that trigger. The secrets themselves are made, hashed and
//! checked in [`secret`]; the store only ever sees their salted hash.

pub mod secret;

/// Why the webhook listener could not do what it was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    /// The operating system gave no random bytes, so no secret or salt can
    /// be made; nothing weaker is substituted.
    #[error("the system's random number generator failed: {0}")]
    Randomness(String),
}
