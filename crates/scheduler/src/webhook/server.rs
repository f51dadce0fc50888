//! The listener itself: HTTP/1.1 on 127.0.0.1 only, a bounded number of
//! connections, and a stop that leaves no task behind.

use std::convert::Infallible;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::{CancellationToken, DropGuard};
use tokio_util::task::TaskTracker;

use super::request::{ListenerState, answer};
use super::{WebhookError, WebhookTarget};

/// The largest body a webhook request may carry.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Ten requests per trigger per rolling minute: plenty for a script or a
/// CI job, and a guesser gets ten tries a minute at a 256-bit secret.
pub const DEFAULT_RATE_LIMIT: RateLimit = RateLimit {
    requests: 10,
    per: Duration::from_secs(60),
};

/// Open connections at once; more are closed as they arrive. Only local
/// programs can connect, so this bounds a runaway script, not the internet.
const MAX_CONNECTIONS: usize = 64;
/// A connection that sends no complete request head in this time is closed.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long `stop` lets a request in progress finish.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// After a failed accept (out of file descriptors, say), wait before the
/// next so the loop does not spin.
const ACCEPT_RETRY_DELAY: Duration = Duration::from_millis(100);

/// How many requests one trigger's URL takes per rolling window; every
/// request for a known trigger counts, a refused secret included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub requests: usize,
    pub per: Duration,
}

/// How a [`WebhookServer`] behaves; `Default` is what the app uses.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WebhookOptions {
    pub rate_limit: RateLimit,
}

impl Default for WebhookOptions {
    fn default() -> Self {
        Self {
            rate_limit: DEFAULT_RATE_LIMIT,
        }
    }
}

impl WebhookOptions {
    #[must_use]
    pub fn with_rate_limit(mut self, rate_limit: RateLimit) -> Self {
        self.rate_limit = rate_limit;
        self
    }
}

/// A running listener. It stops when [`stop`](Self::stop)ped (which waits
/// for its tasks) or dropped (which only tells them to end).
#[derive(Debug)]
pub struct WebhookServer {
    port: u16,
    stopping: CancellationToken,
    tasks: TaskTracker,
    _stop_on_drop: DropGuard,
}

impl WebhookServer {
    /// Listens on `127.0.0.1:<port>` (0 picks a free port) with the default
    /// options, on the current tokio runtime.
    pub async fn start(port: u16, target: Arc<dyn WebhookTarget>) -> Result<Self, WebhookError> {
        Self::start_with(port, target, WebhookOptions::default()).await
    }

    pub async fn start_with(
        port: u16,
        target: Arc<dyn WebhookTarget>,
        options: WebhookOptions,
    ) -> Result<Self, WebhookError> {
        // Loopback only: a webhook secret is the only thing between a caller
        // and a model run, and it is not meant to cross a network.
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .await
            .map_err(|source| listen_error(port, source))?;
        let port = listener
            .local_addr()
            .map_err(|source| listen_error(port, source))?
            .port();
        let stopping = CancellationToken::new();
        let tasks = TaskTracker::new();
        let state = Arc::new(ListenerState::new(
            target,
            options.rate_limit,
            tasks.clone(),
        ));
        tasks.spawn(accept_loop(
            listener,
            state,
            stopping.clone(),
            tasks.clone(),
        ));
        tracing::info!(port, "webhook listener started on 127.0.0.1");
        Ok(Self {
            port,
            _stop_on_drop: stopping.clone().drop_guard(),
            stopping,
            tasks,
        })
    }

    /// The port it listens on (the one picked when started with 0).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops listening, lets requests in progress finish (a few seconds at
    /// most) and returns once every task of the server has ended; the port
    /// is free again then.
    pub async fn stop(self) {
        self.stopping.cancel();
        self.tasks.close();
        self.tasks.wait().await;
        tracing::info!(port = self.port, "webhook listener stopped");
    }
}

fn listen_error(port: u16, source: std::io::Error) -> WebhookError {
    if source.kind() == std::io::ErrorKind::AddrInUse {
        WebhookError::PortTaken(port)
    } else {
        WebhookError::Listen { port, source }
    }
}

async fn accept_loop(
    listener: TcpListener,
    state: Arc<ListenerState>,
    stopping: CancellationToken,
    tasks: TaskTracker,
) {
    let connections = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let accepted = tokio::select! {
            biased;
            () = stopping.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                tracing::warn!(%error, "webhook listener: a connection could not be accepted");
                tokio::select! {
                    () = stopping.cancelled() => return,
                    () = tokio::time::sleep(ACCEPT_RETRY_DELAY) => continue,
                }
            }
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            tracing::warn!("webhook listener: too many open connections; one was closed");
            continue;
        };
        tasks.spawn(serve_connection(
            stream,
            state.clone(),
            stopping.clone(),
            permit,
        ));
    }
}

async fn serve_connection(
    stream: TcpStream,
    state: Arc<ListenerState>,
    stopping: CancellationToken,
    _permit: OwnedSemaphorePermit,
) {
    let service = service_fn(move |request| {
        let state = state.clone();
        async move { Ok::<_, Infallible>(answer(request, state).await) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        // Errors here are clients going away or sending garbage; the
        // answer (if any) has been logged by status already.
        result = connection.as_mut() => {
            if let Err(error) = result {
                tracing::debug!(%error, "webhook connection ended with an error");
            }
        }
        () = stopping.cancelled() => {
            connection.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(SHUTDOWN_GRACE, connection).await;
        }
    }
}

#[cfg(test)]
#[path = "server_tests.rs"]
mod tests;
