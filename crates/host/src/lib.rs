#![doc = include_str!("../README.md")]

mod activity;
mod approvals;
mod attachments;
mod automations;
mod composer;
mod data_root;
mod desktop;
mod error;
mod events;
mod grants;
mod logs;
mod mcp;
mod memory;
mod notify;
mod plugins;
mod presence;
mod providers;
mod runs;
mod secrets;
mod settings;
mod shutdown;
mod skills;
mod threads;
mod triggers;
mod window_snapshot;

pub use automations::PowerEvent;
pub use data_root::{DATA_VERSION, DataRoot};
pub use desktop::{DesktopShell, OpenDialog, SaveDialog, ShortcutError};
pub use error::{HostError, Result};
pub use logs::{LOG_FILE_NAME, diagnostics::Platform};
pub use notify::{
    NoNotifier, Notification, NotificationDecision, NotificationKind, Notifier, NotifyError,
    PendingApproval,
};
/// The eval worker: the `pizza-eval-worker` program shipped beside the app.
pub use pizza_sandbox::{WORKER_PROGRAM as EVAL_WORKER_PROGRAM, WorkerCommand};
pub use providers::{LOCAL_PROBES_ENV, LocalProbe};
pub use runs::{RunBegin, RunSource, RunStart, StartTarget, Started, WhenBusy};
pub use secrets::{NoSecretStore, SecretError, SecretStore};
pub use shutdown::ShutdownReport;

use pizza_protocol::{ApiError, AppEvent, AppInfo, AppInfoParams, BuildProfile, PROTOCOL_VERSION};
use pizza_store::{Clock, Store, StoreOptions, SystemClock};
use std::sync::Arc;
use tokio::sync::broadcast;

/// What the embedding app plugs into the host: OS services and the clock.
#[derive(Clone)]
#[non_exhaustive]
pub struct HostOptions {
    pub clock: Arc<dyn Clock>,
    /// Where provider secrets go. The default has no keychain and refuses
    /// every call: there is never a plaintext fallback.
    pub secrets: Arc<dyn SecretStore>,
    /// Where to look for model servers on this machine (Ollama, llama.cpp,
    /// LM Studio) to offer in Settings › Providers; empty: don't look
    /// (tests turn it off). `PIZZA_LOCAL_PROBES` overrides the defaults.
    pub local_probes: Vec<LocalProbe>,
    /// Where run outcomes are announced. The default has none: outcomes
    /// show in the window only.
    pub notifier: Arc<dyn Notifier>,
    /// The clock triggers fire by (tests drive a manual one).
    pub wall_clock: Arc<dyn pizza_scheduler::WallClock>,
    /// The shipped `skills/` folder (`None`: no built-in skills).
    pub builtin_skills: Option<std::path::PathBuf>,
    /// The shipped `plugins/` folder (`None`: no built-in plugins).
    pub builtin_plugins: Option<std::path::PathBuf>,
    /// How to start the JavaScript worker `eval` runs programs in (the
    /// [`EVAL_WORKER_PROGRAM`] shipped with the app); `None`: no `eval` tool.
    pub eval_worker: Option<WorkerCommand>,
}

impl Default for HostOptions {
    fn default() -> Self {
        Self {
            wall_clock: Arc::new(pizza_scheduler::SystemClock::new()),
            clock: Arc::new(SystemClock),
            secrets: Arc::new(NoSecretStore),
            local_probes: LocalProbe::from_env(),
            notifier: Arc::new(NoNotifier),
            builtin_skills: None,
            builtin_plugins: None,
            eval_worker: None,
        }
    }
}

impl HostOptions {
    /// The keychain (or another [`SecretStore`]) the app provides.
    #[must_use]
    pub fn with_secrets(mut self, secrets: Arc<dyn SecretStore>) -> Self {
        self.secrets = secrets;
        self
    }

    /// `None` turns looking for local model servers off; `Some(address)`
    /// looks for Ollama only, at `host:port`.
    #[must_use]
    pub fn with_ollama_probe(mut self, address: Option<String>) -> Self {
        self.local_probes = address
            .map(|address| LocalProbe {
                kind: pizza_protocol::LocalServerKind::Ollama,
                address,
            })
            .into_iter()
            .collect();
        self
    }

    /// Where to look for model servers on this machine.
    #[must_use]
    pub fn with_local_probes(mut self, probes: Vec<LocalProbe>) -> Self {
        self.local_probes = probes;
        self
    }

    /// How `eval` starts its worker processes.
    #[must_use]
    pub fn with_eval_worker(mut self, worker: WorkerCommand) -> Self {
        self.eval_worker = Some(worker);
        self
    }

    /// The native notifications (or another [`Notifier`]) the app provides.
    #[must_use]
    pub fn with_notifier(mut self, notifier: Arc<dyn Notifier>) -> Self {
        self.notifier = notifier;
        self
    }
}

impl HostOptions {
    /// The folder of built-in skills the app ships.
    #[must_use]
    pub fn with_builtin_skills(mut self, dir: std::path::PathBuf) -> Self {
        self.builtin_skills = Some(dir);
        self
    }
}

impl std::fmt::Debug for HostOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostOptions").finish_non_exhaustive()
    }
}

/// The application without a window: cheap to clone, one per process.
#[derive(Debug, Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    data_root: DataRoot,
    store: Store,
    providers: Arc<providers::ProviderService>,
    events: events::AppEvents,
    runs: Arc<runs::RunService>,
    grants: grants::GrantService,
    memory: Arc<memory::MemoryService>,
    settings: settings::SettingsService,
    approvals: Arc<approvals::ApprovalService>,
    desktop: Arc<desktop::DesktopService>,
    attachments: attachments::AttachmentService,
    notifications: Arc<notify::Notifications>,
    threads: Arc<threads::ThreadService>,
    presence: Arc<presence::WindowPresence>,
    snapshots: Arc<window_snapshot::WindowSnapshots>,
    triggers: triggers::TriggerService,
    automations: automations::AutomationsService,
    skills: Arc<skills::SkillService>,
    mcp: Arc<mcp::McpService>,
    plugins: Arc<plugins::PluginService>,
    /// The `eval` tool, when the app gave a worker for it.
    eval: Option<Arc<pizza_tools::EvalTool>>,
}

impl Host {
    /// Opens everything kept in the data root.
    pub async fn open(data_root: DataRoot, options: HostOptions) -> Result<Self> {
        let store = Store::open_with(
            data_root.path(),
            StoreOptions {
                clock: Arc::clone(&options.clock),
                ..StoreOptions::default()
            },
        )
        .await?;
        // Before any run can start: what was live when the app died is not.
        let interrupted = runs::recovery::interrupt_live_runs(&store).await?;
        let mounts: Arc<dyn pizza_tools::MountSource> =
            grants::HostMounts::new(store.clone(), data_root.path().join(memory::MEMORIES_DIR));
        notify::init_cursor(&store).await?;
        let mut tools = pizza_tools::ToolRegistry::with_builtins();
        let eval = match options.eval_worker {
            Some(worker) => {
                let eval = eval_tool(&store, worker).await?;
                tools.register(Arc::clone(&eval) as Arc<dyn pizza_tools::Tool>);
                Some(eval)
            }
            None => None,
        };
        let approvals = approvals::ApprovalService::new(store.clone(), tools.clone());
        let events = events::AppEvents::default();
        // What a window last showed is not true if a run was cut short.
        let snapshots =
            window_snapshot::WindowSnapshots::open(data_root.path(), interrupted == 0).await;
        snapshots.follow(&events);
        let plugins =
            plugins::PluginService::open(store.clone(), options.builtin_plugins, data_root.path())
                .await?;
        let skills = skills::SkillService::open(
            store.clone(),
            events.clone(),
            options.builtin_skills,
            data_root.path(),
            tools.clone(),
            plugins.shared(),
        )
        .await?;
        let mcp = mcp::McpService::open(
            store.clone(),
            events.clone(),
            Arc::clone(&skills),
            data_root.path(),
            Arc::clone(&options.secrets),
            tools.clone(),
        )
        .await?;
        mcp.init_plugin_servers(plugins.servers());
        let agent = runs::AgentRuntime::new(
            store.clone(),
            mounts,
            tools,
            Arc::clone(&approvals),
            Arc::clone(&skills),
        );
        let presence = Arc::new(presence::WindowPresence::open(&store).await);
        let notifications = Arc::new(notify::Notifications::new(
            options.notifier,
            store.clone(),
            Arc::clone(&presence),
            events.clone(),
        ));
        let registry = Arc::new(runs::registry::RunRegistry::default());
        let threads = Arc::new(threads::ThreadService::new(
            store.clone(),
            events.clone(),
            Arc::clone(&registry),
        ));
        let providers = Arc::new(providers::ProviderService::new(
            store.clone(),
            options.secrets,
            options.local_probes,
        ));
        let runs = Arc::new(runs::RunService::new(
            runs::RunDeps {
                store: store.clone(),
                events: events.clone(),
                presence: Arc::clone(&presence),
                providers: Arc::clone(&providers),
                notifications: Arc::clone(&notifications),
                threads: Arc::clone(&threads),
            },
            agent,
            registry,
        ));
        let grants = grants::GrantService::new(store.clone(), data_root.path().to_owned());
        let memory = Arc::new(memory::MemoryService::new(store.clone(), data_root.path()));
        let settings = settings::SettingsService::open(
            store.clone(),
            Arc::clone(&memory),
            Arc::clone(&notifications),
        )
        .await;
        let desktop = Arc::new(desktop::DesktopService::new(store.clone()));
        let attachments = attachments::AttachmentService::new(
            store.clone(),
            Arc::clone(&providers),
            Arc::clone(&desktop),
        );
        attachments.sweep_in_background();
        let default_zone = triggers::local_zone();
        let automations = automations::AutomationsService::new(automations::AutomationsDeps {
            store: store.clone(),
            clock: Arc::clone(&options.clock),
            wall_clock: options.wall_clock,
            default_zone,
            events: events.clone(),
            desktop: Arc::clone(&desktop),
            runs: Arc::clone(&runs),
            notifications: Arc::clone(&notifications),
        });
        let triggers = triggers::TriggerService::new(
            store.clone(),
            options.clock,
            Arc::clone(&providers),
            default_zone,
        );
        tracing::info!(data_root = %data_root.path().display(), "host opened");
        Ok(Self {
            inner: Arc::new(Inner {
                data_root,
                store,
                providers,
                events,
                runs,
                grants,
                memory,
                settings,
                approvals,
                desktop,
                attachments,
                notifications,
                threads,
                presence,
                snapshots,
                triggers,
                automations,
                skills,
                mcp,
                plugins,
                eval,
            }),
        })
    }

    pub fn data_root(&self) -> &DataRoot {
        &self.inner.data_root
    }

    /// For tests that check what a command left in the store.
    #[cfg(test)]
    pub(crate) fn store(&self) -> &Store {
        &self.inner.store
    }

    /// App-wide notices (`threads_changed`, …) for the window to forward.
    pub fn subscribe(&self) -> broadcast::Receiver<AppEvent> {
        self.inner.events.subscribe()
    }

    /// Closes the database cleanly; later calls fail.
    pub async fn close(&self) {
        self.inner.store.close().await;
    }

    pub async fn app_info(&self, _params: AppInfoParams) -> Result<AppInfo, ApiError> {
        Ok(AppInfo {
            name: "Pizza Bot".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            data_root: self.inner.data_root.path().display().to_string(),
            protocol_version: PROTOCOL_VERSION,
            build_profile: if cfg!(debug_assertions) {
                BuildProfile::Debug
            } else {
                BuildProfile::Release
            },
        })
    }
}

/// The `eval` tool over a sandbox, at the timeout the settings hold. No
/// worker starts until the first `eval` (an idle app keeps no interpreter
/// process; the pool keeps a spare while `eval` is in use).
async fn eval_tool(store: &Store, worker: WorkerCommand) -> Result<Arc<pizza_tools::EvalTool>> {
    let sandbox = pizza_tools::Sandbox::new(worker, pizza_tools::EvalLimits::default());
    let eval = Arc::new(pizza_tools::EvalTool::new(sandbox));
    let secs = settings::eval_timeout_secs(store).await?;
    eval.set_timeout_secs(u64::try_from(secs).unwrap_or(1));
    Ok(eval)
}

#[cfg(test)]
pub(crate) mod tests;

#[cfg(test)]
mod eval_tests;
