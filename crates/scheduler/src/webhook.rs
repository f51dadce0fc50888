//! The loopback webhook listener: `POST /triggers/<id>` with the trigger's
//! secret fires that trigger. The secrets themselves are made, hashed and
//! checked in [`secret`]; the store only ever sees their salted hash.
//!
//! The server knows no triggers: it asks a [`WebhookTarget`] (the host) for
//! a trigger's stored secret and hands it a verified request to fire. Every
//! refused request is answered before `fire` is called, so a bad secret, an
//! oversize or malformed body changes nothing.

mod body;
mod prompt;
mod rate_limit;
mod request;
pub mod secret;
mod server;

use async_trait::async_trait;

pub use pizza_store::SecretHash;
pub use server::{DEFAULT_RATE_LIMIT, MAX_BODY_BYTES, RateLimit, WebhookOptions, WebhookServer};

/// What fires a webhook trigger once the listener has checked a request.
#[async_trait]
pub trait WebhookTarget: Send + Sync + 'static {
    /// The stored secret of an enabled webhook trigger; `None`: unknown,
    /// disabled, not a webhook, or automations paused → 404.
    async fn secret_of(&self, trigger_id: &str) -> Option<SecretHash>;

    /// Fires it; `prompt` is the body's override, `None` keeps the saved
    /// prompt.
    async fn fire(
        &self,
        trigger_id: &str,
        prompt: Option<String>,
    ) -> Result<WebhookFired, WebhookRefusal>;
}

/// The run a fire started, answered as `202 {"thread_id", "run_id"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookFired {
    pub thread_id: String,
    pub run_id: String,
}

/// Why a checked request did not start a run; the sentence is the answer's
/// `{"error": …}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookRefusal {
    /// The trigger's previous run is still running → 409.
    Busy(String),
    /// Anything else (the store or the run registry failed) → 503.
    Unavailable(String),
}

/// Why the webhook listener could not do what it was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    /// Another program listens on the port already.
    #[error(
        "port {0} on 127.0.0.1 is already in use by another program: choose another webhook port in the automations settings, or quit the program using it"
    )]
    PortTaken(u16),
    /// The port could not be bound for another reason (a port under 1024
    /// without the right to it, no loopback interface).
    #[error("cannot listen for webhooks on 127.0.0.1 port {port}: {source}")]
    Listen {
        port: u16,
        #[source]
        source: std::io::Error,
    },
    /// The operating system gave no random bytes, so no secret or salt can
    /// be made; nothing weaker is substituted.
    #[error("the system's random number generator failed: {0}")]
    Randomness(String),
}

#[cfg(test)]
mod raw_http_client;
#[cfg(test)]
mod recording_target;
