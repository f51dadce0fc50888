//! One server's supervisor: connects it (holding one of the pool's connect
//! slots, within the connect timeout), publishes each status as it settles,
//! refreshes the tools on `tools/list_changed`, and after an unexpected exit
//! reconnects with capped exponential backoff.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use pizza_protocol::McpStatus;
use rmcp::ClientHandler;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, Peer, RoleClient, RunningService};
use tokio::process::Child;
use tokio::sync::{Semaphore, mpsc, oneshot};

use crate::config::ServerTransport;
use crate::connect;
use crate::tail::Tail;
use crate::tooldef::McpToolDef;

/// The first reconnect waits this long; each failed one doubles it.
const BACKOFF_FIRST: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(60);
/// Connected this long, a server's next crash starts the backoff afresh.
const STABLE_AFTER: Duration = Duration::from_secs(30);
/// How long a stopped server gets to exit on SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// A server as the pool runs it: its transport with placeholders expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveServer {
    pub id: String,
    pub transport: ServerTransport,
    pub enabled: bool,
    /// Why it cannot start at all (a placeholder that did not expand): it
    /// shows as `error` with this sentence.
    pub problem: Option<String>,
}

/// What the pool and calls read of a server.
#[derive(Debug, Clone)]
pub(crate) struct Shared {
    pub(crate) status: McpStatus,
    pub(crate) tools: Arc<Vec<McpToolDef>>,
    pub(crate) instructions: Option<String>,
    pub(crate) peer: Option<Peer<RoleClient>>,
    /// The running process group, killed on quit.
    pub(crate) group: Option<u32>,
}

impl Default for Shared {
    fn default() -> Self {
        Self {
            status: McpStatus::Loading,
            tools: Arc::new(Vec::new()),
            instructions: None,
            peer: None,
            group: None,
        }
    }
}

pub(crate) enum Command {
    Reconnect,
    Stop(oneshot::Sender<()>),
}

/// Called after every change of a server's status or tools.
pub(crate) type OnChange = Arc<dyn Fn(&str, &McpStatus) + Send + Sync>;

/// What a supervisor works with.
pub(crate) struct Ctx {
    pub(crate) live: LiveServer,
    pub(crate) shared: Arc<Mutex<Shared>>,
    pub(crate) tail: Tail,
    pub(crate) slots: Arc<Semaphore>,
    pub(crate) connect_timeout: Duration,
    pub(crate) on_change: OnChange,
}

impl Ctx {
    fn update(&self, change: impl FnOnce(&mut Shared)) {
        let status = {
            let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
            change(&mut shared);
            if !shared.status.is_connected() {
                shared.tools = Arc::new(Vec::new());
                shared.peer = None;
            }
            shared.status.clone()
        };
        (self.on_change)(&self.live.id, &status);
    }

    fn set(&self, status: McpStatus) {
        self.update(|shared| shared.status = status);
    }
}

/// The client side of the MCP session: it tells the supervisor when the
/// server's tools changed.
#[derive(Clone)]
pub(crate) struct Handler {
    tools_changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Handler {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        let _ = self.tools_changed.send(());
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("pizza-bot", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// A live session.
pub(crate) struct Session {
    pub(crate) service: RunningService<RoleClient, Handler>,
    pub(crate) child: Option<Child>,
    pub(crate) group: Option<u32>,
}

enum Ended {
    Stopped,
    Reconnect,
    Exited(String),
}

/// Runs until stopped.
pub(crate) async fn supervise(ctx: Ctx, mut commands: mpsc::UnboundedReceiver<Command>) {
    let mut failures: u32 = 0;
    let mut recovering = false;
    loop {
        if !ctx.live.enabled {
            ctx.set(McpStatus::Disabled);
            if park(&mut commands).await {
                return;
            }
            continue;
        }
        if let Some(problem) = &ctx.live.problem {
            ctx.set(McpStatus::Error {
                message: problem.clone(),
            });
            if park(&mut commands).await {
                return;
            }
            continue;
        }
        if !recovering {
            ctx.set(McpStatus::Loading);
        }
        let (tools_tx, mut tools_rx) = mpsc::unbounded_channel();
        let attempt = tokio::select! {
            attempt = connect_in_slot(&ctx, Handler { tools_changed: tools_tx }) => attempt,
            command = commands.recv() => match command {
                Some(Command::Reconnect) => { recovering = false; failures = 0; continue; }
                Some(Command::Stop(done)) => { let _ = done.send(()); return; }
                None => return,
            },
        };
        match attempt {
            Ok(session) => {
                let since = Instant::now();
                match run_session(&ctx, session, &mut tools_rx, &mut commands).await {
                    Ended::Stopped => return,
                    Ended::Reconnect => {
                        recovering = false;
                        failures = 0;
                    }
                    Ended::Exited(message) => {
                        if since.elapsed() >= STABLE_AFTER {
                            failures = 0;
                        }
                        ctx.set(McpStatus::Crashed { message });
                        recovering = true;
                        if backoff(failures, &mut commands).await {
                            return;
                        }
                        failures = failures.saturating_add(1);
                    }
                }
            }
            Err(message) if recovering => {
                failures = failures.saturating_add(1);
                ctx.set(McpStatus::Retrying {
                    attempt: failures,
                    message,
                });
                if backoff(failures, &mut commands).await {
                    return;
                }
            }
            Err(message) => {
                ctx.set(McpStatus::Error { message });
                if park(&mut commands).await {
                    return;
                }
                failures = 0;
            }
        }
    }
}

/// Waits for Reconnect (false) or Stop (true).
async fn park(commands: &mut mpsc::UnboundedReceiver<Command>) -> bool {
    match commands.recv().await {
        Some(Command::Reconnect) => false,
        Some(Command::Stop(done)) => {
            let _ = done.send(());
            true
        }
        None => true,
    }
}

/// Waits out the backoff after `failures` failed attempts; true when
/// stopped meanwhile. A Reconnect cuts it short.
async fn backoff(failures: u32, commands: &mut mpsc::UnboundedReceiver<Command>) -> bool {
    let delay = BACKOFF_FIRST
        .saturating_mul(2u32.saturating_pow(failures.min(16)))
        .min(BACKOFF_MAX);
    tokio::select! {
        () = tokio::time::sleep(delay) => false,
        command = commands.recv() => match command {
            Some(Command::Reconnect) => false,
            Some(Command::Stop(done)) => { let _ = done.send(()); true }
            None => true,
        },
    }
}

/// One attempt, holding a connect slot and within the connect timeout.
async fn connect_in_slot(ctx: &Ctx, handler: Handler) -> Result<Session, String> {
    let Ok(_slot) = ctx.slots.acquire().await else {
        return Err("the app is shutting down".to_owned());
    };
    let timeout = ctx.connect_timeout;
    let attempt = async {
        let session = connect::open(&ctx.live.transport, &ctx.tail, handler).await?;
        let peer = session.service.peer().clone();
        let tools = list_tools(&ctx.live.id, &peer).await?;
        Ok::<_, String>((session, peer, tools))
    };
    match tokio::time::timeout(timeout, attempt).await {
        Ok(Ok((session, peer, tools))) => {
            let instructions = peer.peer_info().and_then(|info| info.instructions.clone());
            let group = session.group;
            ctx.update(|shared| {
                shared.status = McpStatus::Connected;
                shared.tools = Arc::new(tools);
                shared.instructions = instructions;
                shared.peer = Some(peer);
                shared.group = group;
            });
            Ok(session)
        }
        Ok(Err(message)) => Err(message),
        Err(_) => Err(format!(
            "it did not finish starting within {} s",
            timeout.as_secs()
        )),
    }
}

pub(crate) async fn list_tools(
    server: &str,
    peer: &Peer<RoleClient>,
) -> Result<Vec<McpToolDef>, String> {
    let listed = peer
        .list_all_tools()
        .await
        .map_err(|e| format!("it failed to list its tools: {e}"))?;
    Ok(listed
        .iter()
        .filter_map(|tool| serde_json::to_value(tool).ok())
        .filter_map(|value| McpToolDef::from_listed(server, &value))
        .collect())
}

/// How long a closed connection waits for the server's exit status.
const EXIT_AFTER_CLOSE: std::time::Duration = std::time::Duration::from_secs(1);

/// Serves a connected session until it ends.
async fn run_session(
    ctx: &Ctx,
    mut session: Session,
    tools_rx: &mut mpsc::UnboundedReceiver<()>,
    commands: &mut mpsc::UnboundedReceiver<Command>,
) -> Ended {
    let peer = session.service.peer().clone();
    let mut cancel = Some(session.service.cancellation_token());
    let mut child = session.child.take();
    let group = session.group;
    let waiting = session.service.waiting();
    tokio::pin!(waiting);
    let ended = loop {
        tokio::select! {
            status = async {
                match child.as_mut() {
                    Some(child) => child.wait().await.ok(),
                    None => std::future::pending().await,
                }
            } => {
                let code = status.and_then(|s| s.code());
                break Ended::Exited(exit_sentence(code, ctx.tail.last()));
            }
            _ = &mut waiting => {
                // A server that exits closes its output first: its exit
                // status, when it comes at once, says more than the close.
                let exited = match child.as_mut() {
                    Some(child) => tokio::time::timeout(EXIT_AFTER_CLOSE, child.wait()).await.ok().and_then(Result::ok),
                    None => None,
                };
                break Ended::Exited(match exited {
                    Some(status) => exit_sentence(status.code(), ctx.tail.last()),
                    None => "the connection closed".to_owned(),
                });
            }
            Some(()) = tools_rx.recv() => {
                while tools_rx.try_recv().is_ok() {}
                match list_tools(&ctx.live.id, &peer).await {
                    Ok(tools) => ctx.update(|shared| shared.tools = Arc::new(tools)),
                    Err(message) => tracing::warn!(server = %ctx.live.id, %message, "cannot refresh MCP tools"),
                }
            }
            command = commands.recv() => match command {
                Some(Command::Reconnect) => break Ended::Reconnect,
                Some(Command::Stop(done)) => {
                    if let Some(cancel) = cancel.take() {
                        cancel.cancel();
                    }
                    stop_process(child.as_mut(), group).await;
                    let _ = done.send(());
                    return Ended::Stopped;
                }
                None => break Ended::Stopped,
            },
        }
    };
    if let Some(cancel) = cancel.take() {
        cancel.cancel();
    }
    stop_process(child.as_mut(), group).await;
    ctx.update(|shared| shared.group = None);
    ended
}

fn exit_sentence(code: Option<i32>, last_line: Option<String>) -> String {
    let how = match code {
        Some(code) => format!("it exited with code {code}"),
        None => "it was stopped by a signal".to_owned(),
    };
    match last_line {
        Some(line) => format!("{how}: {line}"),
        None => how,
    }
}

/// SIGTERM to the group, SIGKILL after the grace period.
async fn stop_process(child: Option<&mut Child>, group: Option<u32>) {
    let Some(child) = child else {
        return;
    };
    if let Some(group) = group {
        crate::stdio::signal_group(group, false);
    }
    if tokio::time::timeout(STOP_GRACE, child.wait())
        .await
        .is_err()
    {
        let _ = child.kill().await;
    }
    // Whatever the server started and left behind goes with it.
    if let Some(group) = group {
        crate::stdio::signal_group(group, true);
    }
}
