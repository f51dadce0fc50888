//! Where the scheduler's fires go: each starts a run through the one
//! internal `start`, in a new thread titled after the trigger (source
//! `trigger`), with the occurrence marked running in the run row's own
//! transaction. Also the webhook listener's view of the triggers.

use std::sync::{Arc, Weak};

use async_trait::async_trait;
use pizza_protocol::{AppEvent, ThreadSource};
use pizza_scheduler::webhook::{WebhookFired, WebhookRefusal, WebhookTarget};
use pizza_scheduler::{Fired, Launch, Launched, Scheduler, Sink};
use pizza_store::{Occurrence, OccurrenceLaunch, OccurrenceReason, Store, Trigger, TriggerKind};

use crate::events::AppEvents;
use crate::notify::{Notification, NotificationKind, Notifications};
use crate::runs::{RunBegin, RunService, RunSource, RunStart, StartTarget, Started, WhenBusy};

/// What a run is told when its trigger gave it nothing to do.
pub(crate) fn no_task_message(trigger_name: &str) -> String {
    format!(
        "The automation “{trigger_name}” ran, but no task was given for it. \
         Say so in one sentence, and that a task can be added in Automations."
    )
}

pub(crate) struct TriggerSink {
    /// Weak: the run service owns the scheduler that owns this sink.
    pub(crate) runs: Weak<RunService>,
    pub(crate) notifications: Arc<Notifications>,
    pub(crate) events: AppEvents,
}

#[async_trait]
impl Sink for TriggerSink {
    async fn launch(&self, launch: Launch) -> Result<Launched, String> {
        let Some(runs) = self.runs.upgrade() else {
            return Err("Pizza Bot is quitting.".to_owned());
        };
        let occurrence = OccurrenceLaunch {
            occurrence_id: launch.occurrence.id.clone(),
            relaunch: launch.relaunch,
        };
        let existing = match (&launch.occurrence.thread_id, launch.relaunch) {
            (Some(thread_id), true) => runs.thread_exists(thread_id).await,
            _ => None,
        };
        let (target, begin) = match existing {
            // Startup's relaunch continues the thread the crash stopped.
            Some(thread_id) => (StartTarget::Thread(thread_id), RunBegin::Continue),
            None => {
                let text = if launch.prompt.trim().is_empty() {
                    no_task_message(&launch.trigger.name)
                } else {
                    launch.prompt.clone()
                };
                (
                    StartTarget::NewThread {
                        source: ThreadSource::Trigger,
                        folder_id: None,
                        title: Some(launch.trigger.name.clone()),
                    },
                    RunBegin::Message {
                        text,
                        attachments: Vec::new(),
                    },
                )
            }
        };
        let started = runs
            .start(RunStart {
                target,
                begin,
                source: RunSource::Trigger,
                model: launch.trigger.model.clone(),
                when_busy: WhenBusy::Refuse,
                occurrence: Some(occurrence),
            })
            .await
            .map_err(|error| error.message)?;
        match started {
            Started::Run { thread_id, run_id } => Ok(Launched { thread_id, run_id }),
            Started::Queued { .. } => Err("The run was queued instead of started.".to_owned()),
        }
    }

    async fn gave_up(&self, trigger: &Trigger, occurrence: &Occurrence) {
        let Some(thread_id) = occurrence.thread_id.clone() else {
            tracing::warn!(trigger = %trigger.id, "gave up on an occurrence that never had a thread");
            return;
        };
        self.notifications
            .show_now(Notification {
                thread_id,
                summary: "Automation gave up".to_owned(),
                body: format!(
                    "{}\nIt stopped {} times before finishing; it will not be tried again.",
                    trigger.name, occurrence.attempts
                ),
                kind: NotificationKind::Failed,
                approval: None,
            })
            .await;
    }

    fn changed(&self, trigger_id: &str) {
        self.events.emit(AppEvent::TriggersChanged {
            trigger_id: Some(trigger_id.to_owned()),
        });
    }
}

/// The listener's view: an enabled webhook trigger, while automations are on.
pub(crate) struct WebhookTriggers {
    pub(crate) store: Store,
    pub(crate) scheduler: Scheduler,
    pub(crate) armed: Arc<std::sync::atomic::AtomicBool>,
}

#[async_trait]
impl WebhookTarget for WebhookTriggers {
    async fn secret_of(&self, trigger_id: &str) -> Option<pizza_store::SecretHash> {
        if !self.armed.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        let trigger = self.store.trigger(trigger_id).await.ok()?;
        (trigger.enabled && trigger.kind == TriggerKind::Webhook)
            .then_some(trigger.webhook_secret)
            .flatten()
    }

    async fn fire(
        &self,
        trigger_id: &str,
        prompt: Option<String>,
    ) -> Result<WebhookFired, WebhookRefusal> {
        let fired = self
            .scheduler
            .fire_now(trigger_id, OccurrenceReason::Webhook, prompt)
            .await
            .map_err(|err| WebhookRefusal::Unavailable(err.to_string()))?;
        match fired {
            Fired::Started {
                thread_id, run_id, ..
            } => Ok(WebhookFired { thread_id, run_id }),
            Fired::Skipped(occurrence) => {
                Err(WebhookRefusal::Busy(occurrence.sentence.unwrap_or_else(
                    || "the previous run still runs".to_owned(),
                )))
            }
            Fired::Failed(occurrence) => Err(WebhookRefusal::Unavailable(
                occurrence
                    .sentence
                    .unwrap_or_else(|| "the run could not start".to_owned()),
            )),
        }
    }
}
