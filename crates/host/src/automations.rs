//! Automations: the switch that arms every trigger, the trigger runtime
//! (`pizza_scheduler::Scheduler`) firing into the run registry, start at
//! login, sleep and wake, and the loopback webhook listener — on only while
//! automations are on and a webhook trigger exists.

mod sink;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use pizza_protocol::{
    ApiError, AppEvent, Automations, AutomationsGetParams, AutomationsPatch, DEFAULT_WEBHOOK_PORT,
    WebhookListener,
};
use pizza_scheduler::webhook::{WebhookError, WebhookServer};
use pizza_scheduler::{Scheduler, StartOptions, WallClock, Zone};
use pizza_store::{Clock, OccurrenceOutcome, Store, TriggerKind};
use tokio::sync::Mutex;

use sink::{TriggerSink, WebhookTriggers};

use crate::desktop::DesktopService;
use crate::events::AppEvents;
use crate::notify::Notifications;
use crate::runs::RunService;
use crate::settings::keys;
use crate::{Host, HostError};

/// Ports below this need privileges.
const WEBHOOK_PORT_MIN: u16 = 1024;

/// The machine going to sleep and waking, as logind (or another source the
/// app has) reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PowerEvent {
    Sleeping,
    Woke,
}

fn store_error(err: pizza_store::Error) -> ApiError {
    HostError::from(err).into()
}

pub(crate) struct AutomationsService {
    store: Store,
    clock: Arc<dyn Clock>,
    events: AppEvents,
    desktop: Arc<DesktopService>,
    scheduler: Scheduler,
    /// Whether the switch is on: read by the webhook listener per request.
    armed: Arc<AtomicBool>,
    /// `start` runs once per process: recovery must not replay what this
    /// process launched.
    started: AtomicBool,
    listener: Mutex<Listener>,
}

#[derive(Default)]
struct Listener {
    server: Option<WebhookServer>,
    state: Option<WebhookListener>,
}

impl std::fmt::Debug for AutomationsService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AutomationsService")
            .field("armed", &self.armed.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

/// What the host composes the service from.
pub(crate) struct AutomationsDeps {
    pub(crate) store: Store,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) wall_clock: Arc<dyn WallClock>,
    pub(crate) default_zone: Zone,
    pub(crate) events: AppEvents,
    pub(crate) desktop: Arc<DesktopService>,
    pub(crate) runs: Arc<RunService>,
    pub(crate) notifications: Arc<Notifications>,
}

impl AutomationsService {
    pub(crate) fn new(deps: AutomationsDeps) -> Self {
        let sink = Arc::new(TriggerSink {
            runs: Arc::downgrade(&deps.runs),
            notifications: deps.notifications,
            events: deps.events.clone(),
        });
        let scheduler =
            Scheduler::new(deps.store.clone(), sink, deps.wall_clock, deps.default_zone);
        deps.runs.set_scheduler(scheduler.clone());
        Self {
            store: deps.store,
            clock: deps.clock,
            events: deps.events,
            desktop: deps.desktop,
            scheduler,
            armed: Arc::new(AtomicBool::new(false)),
            started: AtomicBool::new(false),
            listener: Mutex::default(),
        }
    }

    pub(crate) fn scheduler(&self) -> &Scheduler {
        &self.scheduler
    }

    async fn enabled(&self) -> Result<bool, ApiError> {
        keys::AUTOMATIONS_ENABLED
            .read_or_default(&self.store)
            .await
            .map_err(store_error)
    }

    async fn port(&self) -> Result<u16, ApiError> {
        Ok(keys::WEBHOOK_PORT
            .read(&self.store)
            .await
            .map_err(store_error)?
            .unwrap_or(DEFAULT_WEBHOOK_PORT))
    }

    /// Relaunches what a crash left, arms the triggers if automations are
    /// on, and opens the webhook listener if one is needed.
    pub(crate) async fn start(&self) -> Result<(), ApiError> {
        if self.started.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let enabled = self.enabled().await?;
        let enabled_since = keys::AUTOMATIONS_ENABLED_AT
            .read(&self.store)
            .await
            .map_err(store_error)?;
        self.armed.store(enabled, Ordering::SeqCst);
        drop(
            self.scheduler
                .start(StartOptions {
                    enabled,
                    enabled_since,
                })
                .await,
        );
        self.sync_listener().await;
        Ok(())
    }

    pub(crate) async fn get(&self) -> Result<Automations, ApiError> {
        let start_at_login = match self.desktop.plugged_shell() {
            Some(shell) => tokio::task::spawn_blocking(move || shell.start_at_login())
                .await
                .unwrap_or(None),
            None => None,
        };
        let listener = self.listener.lock().await;
        Ok(Automations {
            enabled: self.enabled().await?,
            start_at_login,
            webhook_port: self.port().await?,
            webhook_listener: listener.state.clone().unwrap_or(WebhookListener::Off),
        })
    }

    pub(crate) async fn update(&self, patch: AutomationsPatch) -> Result<Automations, ApiError> {
        if let Some(port) = patch.webhook_port
            && port < WEBHOOK_PORT_MIN
        {
            return Err(ApiError::invalid_input(format!(
                "webhook_port: choose a port from {WEBHOOK_PORT_MIN} to 65535"
            )));
        }
        if let Some(on) = patch.start_at_login {
            let Some(shell) = self.desktop.plugged_shell() else {
                return Err(ApiError::general(
                    "Starting at login needs the desktop app, which is not running.",
                ));
            };
            tokio::task::spawn_blocking(move || shell.set_start_at_login(on))
                .await
                .map_err(|e| {
                    ApiError::general("Could not change starting at login.")
                        .with_details(e.to_string())
                })?
                .map_err(ApiError::general)?;
        }
        if let Some(port) = patch.webhook_port {
            keys::WEBHOOK_PORT
                .write(&self.store, &port)
                .await
                .map_err(store_error)?;
            // A new port: the listener moves.
            self.close_listener().await;
        }
        if let Some(enabled) = patch.enabled {
            let was = self.enabled().await?;
            keys::AUTOMATIONS_ENABLED
                .write(&self.store, &enabled)
                .await
                .map_err(store_error)?;
            if enabled && !was {
                keys::AUTOMATIONS_ENABLED_AT
                    .write(&self.store, &self.clock.now_ms())
                    .await
                    .map_err(store_error)?;
            }
            self.armed.store(enabled, Ordering::SeqCst);
            self.scheduler.set_enabled(enabled);
            tracing::info!(enabled, "automations switched");
        }
        self.sync_listener().await;
        self.changed().await
    }

    /// Tells every window (and the tray) what the automations are now.
    async fn changed(&self) -> Result<Automations, ApiError> {
        let automations = self.get().await?;
        self.events.emit(AppEvent::AutomationsChanged {
            automations: automations.clone(),
        });
        Ok(automations)
    }

    /// A trigger was saved, deleted or switched: re-arm, and open or close
    /// the listener as webhook triggers come and go.
    pub(crate) async fn triggers_changed(&self, trigger_id: Option<&str>) {
        self.scheduler.triggers_changed();
        self.events.emit(AppEvent::TriggersChanged {
            trigger_id: trigger_id.map(str::to_owned),
        });
        let before = self.listener.lock().await.state.clone();
        self.sync_listener().await;
        if self.listener.lock().await.state != before {
            let _ = self.changed().await;
        }
    }

    async fn close_listener(&self) {
        let mut listener = self.listener.lock().await;
        if let Some(server) = listener.server.take() {
            server.stop().await;
        }
        listener.state = None;
    }

    /// Listens while automations are on and a webhook trigger exists.
    async fn sync_listener(&self) {
        let wanted = self.armed.load(Ordering::SeqCst) && self.has_webhook_trigger().await;
        let mut listener = self.listener.lock().await;
        if !wanted {
            if let Some(server) = listener.server.take() {
                server.stop().await;
                tracing::info!("the webhook listener closed");
            }
            listener.state = None;
            return;
        }
        if listener.server.is_some() {
            return;
        }
        let port = match self.port().await {
            Ok(port) => port,
            Err(err) => {
                listener.state = Some(WebhookListener::Failed {
                    message: err.message,
                });
                return;
            }
        };
        let target = Arc::new(WebhookTriggers {
            store: self.store.clone(),
            scheduler: self.scheduler.clone(),
            armed: Arc::clone(&self.armed),
        });
        match WebhookServer::start(port, target).await {
            Ok(server) => {
                tracing::info!(port = server.port(), "the webhook listener is on");
                listener.state = Some(WebhookListener::Listening {
                    port: server.port(),
                });
                listener.server = Some(server);
            }
            Err(err) => {
                tracing::warn!(%err, "the webhook listener could not start");
                let message = match err {
                    WebhookError::PortTaken(port) => format!(
                        "Port {port} is used by another program; choose another port for webhooks."
                    ),
                    other => other.to_string(),
                };
                listener.state = Some(WebhookListener::Failed { message });
            }
        }
    }

    async fn has_webhook_trigger(&self) -> bool {
        match self.store.list_triggers().await {
            Ok(list) => list
                .iter()
                .any(|s| s.trigger.kind == TriggerKind::Webhook && s.trigger.enabled),
            Err(err) => {
                tracing::warn!(%err, "could not read the triggers");
                false
            }
        }
    }

    pub(crate) fn power_changed(&self, event: PowerEvent) {
        tracing::info!(?event, "power");
        match event {
            PowerEvent::Sleeping => self.scheduler.sleeping(),
            PowerEvent::Woke => self.scheduler.woke(),
        }
    }

    /// Stops the runtime and the listener (quitting).
    pub(crate) async fn stop(&self) {
        self.scheduler.stop();
        self.close_listener().await;
    }
}

/// How a trigger's run ended, for its occurrence; `None` when the run was
/// stopped by quitting (its occurrence is relaunched at the next start).
pub(crate) fn occurrence_outcome(
    outcome: &pizza_agent::RunOutcome,
    quitting: bool,
) -> Option<OccurrenceOutcome> {
    use pizza_protocol::RunStatus;
    if outcome.interrupt.is_some() {
        // It waits for the person's decision, in Action: its part is done.
        return Some(OccurrenceOutcome::Succeeded);
    }
    let sentence = |fallback: &str| {
        outcome
            .error
            .as_ref()
            .map_or_else(|| fallback.to_owned(), |e| e.message.clone())
    };
    match outcome.status {
        RunStatus::Succeeded => Some(OccurrenceOutcome::Succeeded),
        RunStatus::Cancelled if quitting => None,
        RunStatus::Cancelled => Some(OccurrenceOutcome::Failed {
            sentence: "Stopped before it finished.".to_owned(),
        }),
        RunStatus::Interrupted if quitting => None,
        RunStatus::Failed | RunStatus::TimedOut | RunStatus::Interrupted => {
            Some(OccurrenceOutcome::Failed {
                sentence: sentence("The run failed."),
            })
        }
        RunStatus::Running => None,
    }
}

/// The automations commands and the app's power events.
impl Host {
    fn automations(&self) -> &AutomationsService {
        &self.inner.automations
    }

    pub async fn automations_get(
        &self,
        _params: AutomationsGetParams,
    ) -> Result<Automations, ApiError> {
        self.automations().get().await
    }

    pub async fn automations_update(
        &self,
        patch: AutomationsPatch,
    ) -> Result<Automations, ApiError> {
        self.automations().update(patch).await
    }

    /// Starts the trigger runtime: relaunches what a crash left, then arms
    /// the triggers if automations are on. The app calls it once, after
    /// its models can be resolved; later calls do nothing.
    pub async fn start_automations(&self) -> Result<(), ApiError> {
        self.automations().start().await
    }

    /// The machine is going to sleep (timers are disarmed) or woke (MCP
    /// servers that need it connect again first, then schedules are rebuilt
    /// and a missed tick fires once).
    pub fn power_changed(&self, event: PowerEvent) {
        if event == PowerEvent::Woke {
            self.inner.mcp.woke();
        }
        self.automations().power_changed(event);
    }
}

#[cfg(test)]
#[path = "automations_tests.rs"]
mod tests;
