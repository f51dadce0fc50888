//! The HTTP client for streamable HTTP and SSE servers.

use std::sync::Once;
use std::time::Duration;

static PROVIDER: Once = Once::new();

/// A client with the ring crypto provider (reqwest is built without one)
/// and a connect timeout, but no overall timeout: event streams are long.
pub fn http_client() -> reqwest13::Client {
    PROVIDER.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest13::Client::builder()
        .connect_timeout(Duration::from_secs(20))
        .build()
        .unwrap_or_default()
}
