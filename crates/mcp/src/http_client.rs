//! The one HTTP client the MCP connections share.
//!
//! reqwest 0.13 is built with `rustls-no-provider` (the ring provider is
//! already in the tree; aws-lc would be a second one), so a process-wide
//! crypto provider must be installed before the first client is built.

use std::sync::Once;
use std::time::Duration;

/// How long a TCP and TLS connect may take before the attempt fails.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

static CRYPTO_PROVIDER: Once = Once::new();

/// A client for MCP over HTTP: a connect timeout but no overall timeout,
/// because SSE streams stay open for the whole session.
pub fn http_client() -> reqwest::Client {
    CRYPTO_PROVIDER.call_once(|| {
        // Err means another part of the process installed one first; any
        // installed provider serves.
        let _already = rustls::crypto::ring::default_provider().install_default();
    });
    match reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .build()
    {
        Ok(client) => client,
        Err(error) => {
            // Only a broken TLS setup gets here; the default client reports
            // the same failure on its first request rather than here.
            tracing::warn!(%error, "could not build the MCP HTTP client; using the default one");
            reqwest::Client::default()
        }
    }
}
