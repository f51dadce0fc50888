//! `mcp_*`: the MCP servers of `.mcp.json` and of plugins, connected by the
//! pool in the background. Neither the app's start nor a command waits for
//! a server: statuses arrive as each settles, then the skills' readiness
//! and roster follow and `mcp_status` tells the window.

mod commands;
mod draft;
mod edit;
mod live;
mod views;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use pizza_mcp::{ConfigFile, ConfigWatcher, McpPool, McpToolDef, ServerConfig};
use pizza_protocol::{
    ApiError, AppEvent, DEFAULT_MCP_TOOL_TIMEOUT_SECS, McpServerList, McpServerView,
};
use pizza_store::Store;
use pizza_tools::{McpCallPolicy, McpTool, ToolRegistry};
use tokio::sync::mpsc;

use crate::events::AppEvents;
use crate::secrets::SecretStore;
use crate::skills::SkillService;
use crate::skills::surface::{HostResolver, ServerFacts, ToolSurface};
use views::{Reviewed, Reviews, server_view};

/// What calls read at each call: the timeout setting and the reviews.
#[derive(Debug)]
pub(crate) struct CallPolicy {
    timeout_secs: AtomicU64,
    reviews: RwLock<Reviews>,
}

impl CallPolicy {
    pub(crate) fn set_timeout_secs(&self, secs: i64) {
        let secs = u64::try_from(secs).unwrap_or(1).max(1);
        self.timeout_secs.store(secs, Ordering::Relaxed);
    }

    fn reviews(&self) -> Reviews {
        self.reviews
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl McpCallPolicy for CallPolicy {
    fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs.load(Ordering::Relaxed))
    }

    fn needs_review(&self, tool: &McpToolDef) -> bool {
        self.reviews
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(tool.server.clone(), tool.name.clone()))
            .is_some_and(|reviewed| reviewed.hash != tool.hash)
    }
}

/// The configuration as last read.
#[derive(Debug, Default)]
struct Configured {
    /// The person's `.mcp.json`, as last read successfully.
    user: Vec<ServerConfig>,
    /// Why the file on disk is not used now.
    config_error: Option<String>,
    /// The servers loaded plugins ship.
    plugins: Vec<ServerConfig>,
}

impl Configured {
    /// Every server, the person's winning an id clash.
    pub(crate) fn all(&self) -> Vec<ServerConfig> {
        let mut all: BTreeMap<String, ServerConfig> = self
            .plugins
            .iter()
            .map(|s| (s.id.clone(), s.clone()))
            .collect();
        for server in &self.user {
            all.insert(server.id.clone(), server.clone());
        }
        all.into_values().collect()
    }
}

pub(crate) struct McpService {
    file: Arc<ConfigFile>,
    pool: McpPool,
    secrets: Arc<dyn SecretStore>,
    store: Store,
    events: AppEvents,
    skills: Arc<SkillService>,
    builtin_tools: ToolRegistry,
    policy: Arc<CallPolicy>,
    configured: RwLock<Configured>,
    /// One reload at a time, so an older reading never replaces a newer one.
    reloads: tokio::sync::Mutex<()>,
    watcher: std::sync::Mutex<Option<ConfigWatcher>>,
    pool_changes: std::sync::Mutex<Option<mpsc::UnboundedReceiver<String>>>,
}

impl std::fmt::Debug for McpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpService").finish_non_exhaustive()
    }
}

impl McpService {
    /// Nothing connects yet: [`McpService::start`] does, in the background.
    pub(crate) async fn open(
        store: Store,
        events: AppEvents,
        skills: Arc<SkillService>,
        data_root: &Path,
        secrets: Arc<dyn SecretStore>,
        builtin_tools: ToolRegistry,
    ) -> Result<Arc<Self>, crate::HostError> {
        let reviews = store
            .mcp_tool_reviews()
            .await?
            .into_iter()
            .map(|r| {
                (
                    (r.server, r.tool),
                    Reviewed {
                        hash: r.hash,
                        definition: r.definition,
                    },
                )
            })
            .collect();
        let policy = Arc::new(CallPolicy {
            timeout_secs: AtomicU64::new(DEFAULT_MCP_TOOL_TIMEOUT_SECS.unsigned_abs()),
            reviews: RwLock::new(reviews),
        });
        let (changed, changes) = mpsc::unbounded_channel();
        let pool = McpPool::new(move |id: &str, _status: &pizza_protocol::McpStatus| {
            let _ = changed.send(id.to_owned());
        });
        Ok(Arc::new(Self {
            file: Arc::new(ConfigFile::new(data_root)),
            pool,
            secrets,
            store,
            events,
            skills,
            builtin_tools,
            policy,
            configured: RwLock::new(Configured::default()),
            reloads: tokio::sync::Mutex::new(()),
            watcher: std::sync::Mutex::new(None),
            pool_changes: std::sync::Mutex::new(Some(changes)),
        }))
    }

    pub(crate) fn pool(&self) -> &McpPool {
        &self.pool
    }

    pub(crate) fn policy(&self) -> &Arc<CallPolicy> {
        &self.policy
    }

    /// Reads the configuration, starts connecting, and follows the pool and
    /// the file from now on. Returns at once.
    pub(crate) fn start(self: &Arc<Self>) {
        let changes = self
            .pool_changes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(mut changes) = changes else {
            return;
        };
        let service = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(first) = changes.recv().await {
                let mut ids = vec![first];
                while let Ok(id) = changes.try_recv() {
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
                let Some(service) = service.upgrade() else {
                    break;
                };
                service.pool_changed(&ids).await;
            }
        });
        let service = Arc::clone(self);
        tokio::spawn(async move {
            service.reload().await;
            service.start_watch();
        });
    }

    fn start_watch(self: &Arc<Self>) {
        let (changed, mut changes) = mpsc::channel::<()>(1);
        let started = ConfigWatcher::start(self.file.path(), move || {
            let _ = changed.try_send(());
        });
        match started {
            Ok(watcher) => {
                *self.watcher.lock().unwrap_or_else(PoisonError::into_inner) = Some(watcher);
            }
            Err(error) => {
                tracing::warn!(%error, "cannot watch .mcp.json; hand edits need a restart");
                return;
            }
        }
        let service = Arc::downgrade(self);
        tokio::spawn(async move {
            while changes.recv().await.is_some() {
                let Some(service) = service.upgrade() else {
                    break;
                };
                service.reload().await;
            }
        });
    }

    /// The plugins' servers as read at open, before anything connects.
    pub(crate) fn init_plugin_servers(&self, servers: Vec<ServerConfig>) {
        self.configured
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .plugins = servers;
    }

    /// The servers plugins ship changed (installed, removed, switched).
    pub(crate) async fn set_plugin_servers(&self, servers: Vec<ServerConfig>) {
        self.configured
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .plugins = servers;
        self.reload().await;
    }

    /// Re-reads `.mcp.json` (a malformed file keeps the last good servers
    /// live and is reported), expands the servers and hands them to the pool.
    pub(crate) async fn reload(&self) {
        let _one_at_a_time = self.reloads.lock().await;
        let file = Arc::clone(&self.file);
        let read = tokio::task::spawn_blocking(move || file.read()).await;
        {
            let mut configured = self
                .configured
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            match read {
                Ok(Ok(config)) => {
                    configured.user = config.servers;
                    configured.config_error = None;
                }
                Ok(Err(error)) => {
                    tracing::warn!(%error, "the MCP configuration cannot be used; keeping the last good one");
                    configured.config_error = Some(error.to_string());
                }
                Err(error) => configured.config_error = Some(error.to_string()),
            }
        }
        let all = self.all();
        let secrets = Arc::clone(&self.secrets);
        let lives = tokio::task::spawn_blocking(move || live::live_servers(&all, &secrets))
            .await
            .unwrap_or_default();
        self.pool.apply(lives);
        let ids: Vec<String> = self.all().into_iter().map(|s| s.id).collect();
        self.pool_changed(&ids).await;
    }

    pub(crate) fn all(&self) -> Vec<ServerConfig> {
        self.configured
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .all()
    }

    pub(crate) fn config_of(&self, id: &str) -> Option<ServerConfig> {
        self.all().into_iter().find(|s| s.id == id)
    }

    /// After statuses or tools changed: first-seen tools count as reviewed,
    /// the skills see the new tools, the window is told.
    async fn pool_changed(&self, ids: &[String]) {
        self.record_first_seen().await;
        self.skills.set_surface(self.surface()).await;
        for id in ids {
            if let Some(snapshot) = self.pool.server(id) {
                self.events.emit(AppEvent::McpStatus {
                    id: id.clone(),
                    status: snapshot.status,
                });
            }
        }
    }

    async fn record_first_seen(&self) {
        let known = self.policy.reviews();
        let new: Vec<(String, String, String, String)> = self
            .pool
            .servers()
            .iter()
            .flat_map(|s| s.tools.iter().cloned().collect::<Vec<_>>())
            .filter(|tool| !known.contains_key(&(tool.server.clone(), tool.name.clone())))
            .map(|tool| {
                (
                    tool.server.clone(),
                    tool.name.clone(),
                    tool.hash.clone(),
                    tool.definition.to_string(),
                )
            })
            .collect();
        self.save_reviews(new).await;
    }

    async fn save_reviews(&self, reviews: Vec<(String, String, String, String)>) {
        if reviews.is_empty() {
            return;
        }
        if let Err(error) = self.store.set_mcp_tool_reviews(&reviews).await {
            tracing::warn!(%error, "cannot record reviewed MCP tool definitions");
        }
        let mut held = self
            .policy
            .reviews
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        for (server, tool, hash, definition) in reviews {
            held.insert((server, tool), Reviewed { hash, definition });
        }
    }

    /// The tools skills may name now.
    fn surface(&self) -> Arc<ToolSurface> {
        let mut registry = self.builtin_tools.clone();
        let mut servers = BTreeMap::new();
        for config in self.all() {
            let snapshot = self.pool.server(&config.id);
            let (status, tools) = match &snapshot {
                Some(s) => (s.status.clone(), Arc::clone(&s.tools)),
                None => (pizza_protocol::McpStatus::Loading, Arc::new(Vec::new())),
            };
            for tool in tools.iter() {
                let policy: Arc<dyn McpCallPolicy> = Arc::clone(&self.policy) as _;
                registry.register(Arc::new(McpTool::new(
                    self.pool.clone(),
                    Arc::new(tool.clone()),
                    policy,
                )));
            }
            servers.insert(
                config.id.clone(),
                ServerFacts {
                    enabled: config.enabled,
                    status,
                    tools: tools.iter().map(|t| t.name.clone()).collect(),
                },
            );
        }
        let builtins =
            pizza_extensions::BuiltinToolResolver::with_builtins(self.builtin_tools.names());
        Arc::new(ToolSurface {
            registry,
            resolver: HostResolver::new(builtins, servers),
        })
    }

    pub(crate) fn view(&self, id: &str) -> Result<McpServerView, ApiError> {
        let config = self
            .config_of(id)
            .ok_or_else(|| ApiError::not_found(format!("There is no MCP server named {id}.")))?;
        Ok(server_view(
            &config,
            self.pool.server(id).as_ref(),
            &self.policy.reviews(),
        ))
    }

    pub(crate) fn list(&self) -> McpServerList {
        let reviews = self.policy.reviews();
        let configured = self
            .configured
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let config_error = configured.config_error.clone();
        let all = configured.all();
        drop(configured);
        McpServerList {
            servers: all
                .iter()
                .map(|config| server_view(config, self.pool.server(&config.id).as_ref(), &reviews))
                .collect(),
            config_error,
        }
    }

    /// Marks a server's tools (or one) reviewed as they are now.
    pub(crate) async fn review(
        &self,
        id: &str,
        tool: Option<&str>,
    ) -> Result<McpServerView, ApiError> {
        let snapshot = self
            .pool
            .server(id)
            .ok_or_else(|| ApiError::not_found(format!("There is no MCP server named {id}.")))?;
        let reviews = snapshot
            .tools
            .iter()
            .filter(|t| tool.is_none_or(|name| t.name == name))
            .map(|t| {
                (
                    t.server.clone(),
                    t.name.clone(),
                    t.hash.clone(),
                    t.definition.to_string(),
                )
            })
            .collect();
        self.save_reviews(reviews).await;
        self.events.emit(AppEvent::McpStatus {
            id: id.to_owned(),
            status: snapshot.status,
        });
        self.view(id)
    }

    /// The machine woke: remote sessions rarely survive a sleep, and a
    /// server that failed may work now — both connect again; healthy stdio
    /// servers keep their process.
    pub(crate) fn woke(&self) {
        for config in self.all().into_iter().filter(|c| c.enabled) {
            let remote = !matches!(config.transport, pizza_mcp::ServerTransport::Stdio { .. });
            let unhealthy = self.pool.server(&config.id).is_some_and(|s| {
                matches!(
                    s.status,
                    pizza_protocol::McpStatus::Error { .. }
                        | pizza_protocol::McpStatus::Crashed { .. }
                        | pizza_protocol::McpStatus::Retrying { .. }
                )
            });
            if remote || unhealthy {
                let _ = self.pool.reconnect(&config.id);
            }
        }
    }

    /// Stops every server (quit).
    pub(crate) async fn shutdown(&self) {
        self.pool.shutdown().await;
    }
}

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod tests;
