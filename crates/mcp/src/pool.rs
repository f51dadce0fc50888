//! The pool: one supervisor per configured server, at most
//! [`CONNECT_CONCURRENCY`] connecting at once, each within
//! [`CONNECT_TIMEOUT`]. Nothing here blocks its caller on a server: `apply`
//! returns at once and statuses arrive through the change callback.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use pizza_protocol::McpStatus;
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, ServerResult};
use rmcp::service::PeerRequestOptions;
use serde_json::Value;
use tokio::sync::{Semaphore, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::call::CallOutput;
use crate::error::{McpError, Result};
use crate::server::{self, Command, Ctx, LiveServer, OnChange, Shared};
use crate::tail::Tail;
use crate::tooldef::McpToolDef;

/// Servers connecting at the same time.
pub const CONNECT_CONCURRENCY: usize = 3;
/// How long one server may take to start, initialize and list its tools.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// What the MCP page and readiness read of one server.
#[derive(Debug, Clone)]
pub struct ServerSnapshot {
    pub id: String,
    pub status: McpStatus,
    pub tools: Arc<Vec<McpToolDef>>,
    pub instructions: Option<String>,
    pub stderr: Vec<String>,
    /// A running stdio server's process id (also its process group).
    pub pid: Option<u32>,
}

struct Running {
    live: LiveServer,
    shared: Arc<Mutex<Shared>>,
    tail: Tail,
    commands: mpsc::UnboundedSender<Command>,
    task: JoinHandle<()>,
}

impl Running {
    /// SIGKILL to the server's process group, if it has one running.
    fn kill_group(&self) {
        let group = self
            .shared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .group;
        if let Some(group) = group {
            crate::stdio::signal_group(group, true);
        }
    }
}

struct Inner {
    servers: Mutex<BTreeMap<String, Running>>,
    slots: Arc<Semaphore>,
    connect_timeout: Duration,
    on_change: OnChange,
    generation: watch::Sender<u64>,
}

/// The client pool. Cheap to clone.
#[derive(Clone)]
pub struct McpPool {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpPool").finish_non_exhaustive()
    }
}

impl McpPool {
    /// `on_change` hears every status or tool-list change, from the
    /// supervisors' tasks: it must not block.
    pub fn new(on_change: impl Fn(&str, &McpStatus) + Send + Sync + 'static) -> Self {
        Self::with_limits(on_change, CONNECT_CONCURRENCY, CONNECT_TIMEOUT)
    }

    pub fn with_limits(
        on_change: impl Fn(&str, &McpStatus) + Send + Sync + 'static,
        concurrency: usize,
        connect_timeout: Duration,
    ) -> Self {
        let (generation, _) = watch::channel(0);
        let inner = Arc::new_cyclic(|weak: &std::sync::Weak<Inner>| {
            let weak = weak.clone();
            let on_change: OnChange = Arc::new(move |id: &str, status: &McpStatus| {
                if let Some(inner) = weak.upgrade() {
                    inner.generation.send_modify(|g| *g += 1);
                }
                on_change(id, status);
            });
            Inner {
                servers: Mutex::new(BTreeMap::new()),
                slots: Arc::new(Semaphore::new(concurrency.max(1))),
                connect_timeout,
                on_change,
                generation,
            }
        });
        Self { inner }
    }

    /// Makes these the configured servers: new or changed ones (re)start,
    /// removed ones stop, unchanged ones keep their connection. Must be
    /// called within a tokio runtime.
    pub fn apply(&self, servers: Vec<LiveServer>) {
        let mut stopping = Vec::new();
        {
            let mut running = self.lock();
            let wanted: BTreeMap<String, LiveServer> =
                servers.into_iter().map(|s| (s.id.clone(), s)).collect();
            let gone: Vec<String> = running
                .iter()
                .filter(|(id, r)| wanted.get(*id) != Some(&r.live))
                .map(|(id, _)| id.clone())
                .collect();
            for id in gone {
                if let Some(old) = running.remove(&id) {
                    stopping.push(old);
                }
            }
            for (id, live) in wanted {
                if running.contains_key(&id) {
                    continue;
                }
                running.insert(id, self.start(live));
            }
        }
        for old in stopping {
            tokio::spawn(stop(old));
        }
        self.inner.generation.send_modify(|g| *g += 1);
    }

    fn start(&self, live: LiveServer) -> Running {
        let shared = Arc::new(Mutex::new(Shared::default()));
        let tail = Tail::default();
        let (commands, rx) = mpsc::unbounded_channel();
        let ctx = Ctx {
            live: live.clone(),
            shared: Arc::clone(&shared),
            tail: tail.clone(),
            slots: Arc::clone(&self.inner.slots),
            connect_timeout: self.inner.connect_timeout,
            on_change: Arc::clone(&self.inner.on_change),
        };
        let task = tokio::spawn(server::supervise(ctx, rx));
        Running {
            live,
            shared,
            tail,
            commands,
            task,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Running>> {
        self.inner
            .servers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Every server, by id.
    pub fn servers(&self) -> Vec<ServerSnapshot> {
        self.lock()
            .iter()
            .map(|(id, running)| snapshot(id, running))
            .collect()
    }

    pub fn server(&self, id: &str) -> Option<ServerSnapshot> {
        self.lock().get(id).map(|running| snapshot(id, running))
    }

    /// A counter bumped on every change: wait on it instead of polling.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.inner.generation.subscribe()
    }

    /// Waits until `id`'s snapshot satisfies `done`, or `timeout` passes.
    pub async fn wait_for(
        &self,
        id: &str,
        timeout: Duration,
        done: impl Fn(&ServerSnapshot) -> bool,
    ) -> Option<ServerSnapshot> {
        let mut changes = self.changes();
        let wait = async {
            loop {
                if let Some(snapshot) = self.server(id).filter(|s| done(s)) {
                    return snapshot;
                }
                if changes.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        };
        tokio::time::timeout(timeout, wait).await.ok()
    }

    /// Connects `id` again now (from `error`, `crashed` or `retrying`; a
    /// connected server reconnects too).
    pub fn reconnect(&self, id: &str) -> Result<()> {
        let running = self.lock();
        let server = running
            .get(id)
            .ok_or_else(|| McpError::UnknownServer(id.to_owned()))?;
        let _ = server.commands.send(Command::Reconnect);
        Ok(())
    }

    /// Calls `tool` of `server`. `timeout` bounds the call; `cancel` (the
    /// run's) abandons it — both send `notifications/cancelled`.
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        args: Value,
        timeout: Duration,
        cancel: CancellationToken,
    ) -> Result<CallOutput> {
        let (peer, status) = {
            let running = self.lock();
            let entry = running
                .get(server)
                .ok_or_else(|| McpError::UnknownServer(server.to_owned()))?;
            let shared = entry.shared.lock().unwrap_or_else(PoisonError::into_inner);
            (shared.peer.clone(), shared.status.clone())
        };
        let Some(peer) = peer else {
            return Err(McpError::NotConnected {
                server: server.to_owned(),
                status: status_words(&status),
            });
        };
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(arguments) = args {
            params = params.with_arguments(arguments);
        }
        let failed = |message: String| McpError::Call {
            server: server.to_owned(),
            message,
        };
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let mut handle = peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| failed(e.to_string()))?;
        // A cancel or a timeout tells the server (`notifications/cancelled`),
        // so it can stop the work.
        let answer = tokio::select! {
            answer = &mut handle.rx => answer,
            () = cancel.cancelled() => {
                let _ = handle.cancel(Some("the run was cancelled".to_owned())).await;
                return Err(McpError::Cancelled);
            }
            () = tokio::time::sleep(timeout) => {
                let _ = handle.cancel(Some("timed out".to_owned())).await;
                return Err(McpError::Timeout { tool: tool.to_owned(), after: timeout });
            }
        };
        let result = match answer {
            Ok(Ok(ServerResult::CallToolResult(result))) => result,
            Ok(Ok(other)) => {
                return Err(failed(format!("it answered something else: {other:?}")));
            }
            Ok(Err(e)) => return Err(failed(e.to_string())),
            Err(_) => return Err(failed("the connection closed".to_owned())),
        };
        let value = serde_json::to_value(&result).map_err(|e| failed(e.to_string()))?;
        Ok(CallOutput::from_result(&value))
    }

    /// Stops every server and waits for their processes to go.
    pub async fn shutdown(&self) {
        let all: Vec<Running> = std::mem::take(&mut *self.lock()).into_values().collect();
        futures::future::join_all(all.into_iter().map(stop)).await;
    }

    /// Kills every server's process group now, without waiting: for the
    /// moment the app exits.
    pub fn kill_all(&self) {
        for running in self.lock().values() {
            running.kill_group();
            running.task.abort();
        }
    }
}

fn snapshot(id: &str, running: &Running) -> ServerSnapshot {
    let shared = running
        .shared
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    ServerSnapshot {
        id: id.to_owned(),
        status: shared.status.clone(),
        tools: Arc::clone(&shared.tools),
        instructions: shared.instructions.clone(),
        stderr: running.tail.lines(),
        pid: shared.group,
    }
}

async fn stop(running: Running) {
    let (done, stopped) = oneshot::channel();
    if running.commands.send(Command::Stop(done)).is_ok() {
        let _ = tokio::time::timeout(Duration::from_secs(5), stopped).await;
    }
    running.task.abort();
    running.kill_group();
}

/// A status in words, for an error naming it.
pub fn status_words(status: &McpStatus) -> String {
    match status {
        McpStatus::Loading => "still connecting".to_owned(),
        McpStatus::Retrying { message, .. } => format!("reconnecting after: {message}"),
        McpStatus::Connected => "connected".to_owned(),
        McpStatus::Error { message } => message.clone(),
        McpStatus::Crashed { message } => format!("it crashed: {message}"),
        McpStatus::Disabled => "switched off".to_owned(),
    }
}
