//! `trigger_*` and `occurrence_list`: the Automations page's triggers, their
//! schedules checked and put into words by the scheduler in the machine's
//! zone, and their history. Nothing here fires a trigger.

use std::sync::Arc;

use pizza_protocol::{
    ApiError, DEFAULT_WEBHOOK_PORT, OccurrenceList, OccurrenceListParams, OccurrenceReason,
    OccurrenceStatus, OccurrenceView, TRIGGER_NAME_MAX_CHARS, TRIGGER_PREVIEW_FIRES,
    TRIGGER_PROMPT_MAX_CHARS, TriggerFired, TriggerIdParams, TriggerKind, TriggerList,
    TriggerListParams, TriggerPreview, TriggerPreviewParams, TriggerSaveParams, TriggerSaved,
    TriggerSecret, TriggerSetEnabledParams, TriggerView,
};
use pizza_scheduler::{DateTime, Schedule, Utc, Zone};
use pizza_store::{Clock, NewTrigger, Store, TriggerUpdate};

use crate::providers::ProviderService;
use crate::{Host, HostError};

#[derive(Debug)]
pub(crate) struct TriggerService {
    store: Store,
    clock: Arc<dyn Clock>,
    providers: Arc<ProviderService>,
    default_zone: Zone,
}

/// The machine's IANA zone, as the scheduler knows it.
pub(crate) fn local_zone() -> Zone {
    let system = jiff::tz::TimeZone::system();
    system
        .iana_name()
        .and_then(|name| Zone::named(name).ok())
        // A machine whose zone has no IANA name schedules in UTC.
        .unwrap_or(Zone::UTC)
}

fn store_error(err: pizza_store::Error) -> ApiError {
    HostError::from(err).into()
}

/// A refusal naming its field first, as the editor places it.
fn refuse(field: &str, reason: impl std::fmt::Display) -> ApiError {
    ApiError::invalid_input(format!("{field}: {reason}"))
}

/// A fresh webhook secret and the salted hash that is all the store keeps.
fn new_secret() -> Result<(String, pizza_store::SecretHash), ApiError> {
    let failed = |err: pizza_scheduler::webhook::WebhookError| {
        ApiError::general("Could not make a webhook secret.").with_details(err.to_string())
    };
    let secret = pizza_scheduler::webhook::secret::generate_secret().map_err(failed)?;
    let hash = pizza_scheduler::webhook::secret::hash_secret(&secret).map_err(failed)?;
    Ok((secret, hash))
}

fn schedule_error(err: &pizza_scheduler::Error) -> ApiError {
    // The scheduler's message already starts with its field.
    ApiError::invalid_input(err.to_string())
}

/// `None` for a missing or blank zone: the machine's own.
fn given_zone(timezone: Option<&str>) -> Option<&str> {
    timezone.map(str::trim).filter(|zone| !zone.is_empty())
}

pub(crate) fn occurrence_view(occurrence: pizza_store::Occurrence) -> OccurrenceView {
    use pizza_store::{OccurrenceReason as Reason, OccurrenceStatus as Status};
    OccurrenceView {
        id: occurrence.id,
        trigger_id: occurrence.trigger_id,
        scheduled_at: occurrence.scheduled_at,
        reason: match occurrence.reason {
            Reason::Cron => OccurrenceReason::Cron,
            Reason::CronRecovery => OccurrenceReason::CronRecovery,
            Reason::Manual => OccurrenceReason::Manual,
            Reason::Webhook => OccurrenceReason::Webhook,
        },
        status: match occurrence.status {
            Status::Pending => OccurrenceStatus::Pending,
            Status::Running => OccurrenceStatus::Running,
            Status::Succeeded => OccurrenceStatus::Succeeded,
            Status::Failed => OccurrenceStatus::Failed,
            Status::Dead => OccurrenceStatus::Dead,
            Status::Skipped => OccurrenceStatus::Skipped,
        },
        attempts: u32::try_from(occurrence.attempts).unwrap_or(u32::MAX),
        thread_id: occurrence.thread_id,
        sentence: occurrence.sentence,
        updated_at: occurrence.updated_at,
    }
}

impl TriggerService {
    pub(crate) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        providers: Arc<ProviderService>,
        default_zone: Zone,
    ) -> Self {
        Self {
            store,
            clock,
            providers,
            default_zone,
        }
    }

    fn now(&self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(self.clock.now_ms()).unwrap_or_default()
    }

    fn parse(&self, cron: &str, timezone: Option<&str>) -> Result<Schedule, ApiError> {
        Schedule::parse(cron, given_zone(timezone), self.default_zone)
            .map_err(|err| schedule_error(&err))
    }

    /// The port webhook URLs name.
    async fn webhook_port(&self) -> Result<u16, ApiError> {
        Ok(crate::settings::keys::WEBHOOK_PORT
            .read(&self.store)
            .await
            .map_err(store_error)?
            .unwrap_or(DEFAULT_WEBHOOK_PORT))
    }

    fn view(
        &self,
        trigger: pizza_store::Trigger,
        last: Option<pizza_store::Occurrence>,
        port: u16,
    ) -> TriggerView {
        let webhook_url = (trigger.kind == pizza_store::TriggerKind::Webhook)
            .then(|| format!("http://127.0.0.1:{port}/triggers/{}", trigger.id));
        let schedule = trigger
            .cron
            .as_deref()
            .and_then(|cron| self.parse(cron, trigger.timezone.as_deref()).ok());
        let next_fire_at = schedule
            .as_ref()
            .filter(|_| trigger.enabled)
            .and_then(|schedule| schedule.next_after(self.now()))
            .map(|at| at.timestamp_millis());
        // A zone this machine no longer knows still shows what was saved.
        let words = schedule.map(|s| s.describe()).or_else(|| {
            trigger.cron.as_ref().map(|cron| match &trigger.timezone {
                Some(zone) => format!("cron `{cron}`, {zone}"),
                None => format!("cron `{cron}`"),
            })
        });
        TriggerView {
            id: trigger.id,
            name: trigger.name,
            kind: match trigger.kind {
                pizza_store::TriggerKind::Cron => TriggerKind::Cron,
                pizza_store::TriggerKind::Webhook => TriggerKind::Webhook,
            },
            prompt: trigger.prompt,
            model: trigger.model,
            enabled: trigger.enabled,
            cron: trigger.cron,
            timezone: trigger.timezone,
            schedule: words,
            next_fire_at,
            last_outcome: last.map(occurrence_view),
            webhook_url,
            created_at: trigger.created_at,
            updated_at: trigger.updated_at,
        }
    }

    pub(crate) async fn trigger_preview(
        &self,
        params: TriggerPreviewParams,
    ) -> Result<TriggerPreview, ApiError> {
        let schedule = self.parse(&params.cron, params.timezone.as_deref())?;
        Ok(TriggerPreview {
            next_fires: schedule
                .next_n(self.now(), TRIGGER_PREVIEW_FIRES)
                .iter()
                .map(DateTime::timestamp_millis)
                .collect(),
            description: schedule.describe(),
            timezone: schedule.zone().name().to_owned(),
        })
    }

    pub(crate) async fn trigger_list(
        &self,
        _params: TriggerListParams,
    ) -> Result<TriggerList, ApiError> {
        let summaries = self.store.list_triggers().await.map_err(store_error)?;
        let port = self.webhook_port().await?;
        Ok(TriggerList {
            triggers: summaries
                .into_iter()
                .map(|summary| self.view(summary.trigger, summary.last_occurrence, port))
                .collect(),
            default_timezone: self.default_zone.name().to_owned(),
        })
    }

    /// Everything is checked before anything is written. A new webhook
    /// trigger's secret is answered once; only its salted hash is kept.
    pub(crate) async fn trigger_save(
        &self,
        params: TriggerSaveParams,
    ) -> Result<TriggerSaved, ApiError> {
        let name = params.name.trim();
        if name.is_empty() {
            return Err(refuse("name", "a trigger needs a name"));
        }
        if name.chars().count() > TRIGGER_NAME_MAX_CHARS {
            return Err(refuse(
                "name",
                format!("a name has at most {TRIGGER_NAME_MAX_CHARS} characters"),
            ));
        }
        if params.prompt.chars().count() > TRIGGER_PROMPT_MAX_CHARS {
            return Err(refuse(
                "prompt",
                format!("a prompt has at most {TRIGGER_PROMPT_MAX_CHARS} characters"),
            ));
        }
        let kind = match params.kind {
            TriggerKind::Cron => pizza_store::TriggerKind::Cron,
            TriggerKind::Webhook => pizza_store::TriggerKind::Webhook,
        };
        let schedule = match kind {
            pizza_store::TriggerKind::Cron => {
                Some(self.parse(&params.cron, params.timezone.as_deref())?)
            }
            pizza_store::TriggerKind::Webhook => None,
        };
        let timezone = schedule.as_ref().and_then(|schedule| {
            given_zone(params.timezone.as_deref()).map(|_| schedule.zone().name().to_owned())
        });
        let cron = schedule.as_ref().map(|s| s.expression().to_owned());
        let model = params
            .model
            .as_deref()
            .map(str::trim)
            .filter(|model| !model.is_empty());
        if let Some(model) = model {
            self.providers
                .check_model_offered(model)
                .await
                .map_err(|err| refuse("model", err.message))?;
        }
        let (saved, secret) = match params.id.as_deref() {
            None => {
                let secret = match kind {
                    pizza_store::TriggerKind::Webhook => Some(new_secret()?),
                    pizza_store::TriggerKind::Cron => None,
                };
                let created = self
                    .store
                    .create_trigger(NewTrigger {
                        name: name.to_owned(),
                        kind,
                        prompt: params.prompt,
                        model: model.map(str::to_owned),
                        enabled: params.enabled,
                        cron,
                        timezone,
                        webhook_secret: secret.as_ref().map(|(_, hash)| hash.clone()),
                    })
                    .await
                    .map_err(store_error)?;
                (created, secret.map(|(secret, _)| secret))
            }
            Some(id) => {
                let existing = self.store.trigger(id).await.map_err(store_error)?;
                if existing.kind != kind {
                    return Err(refuse("kind", "a trigger's kind cannot change"));
                }
                let is_cron = kind == pizza_store::TriggerKind::Cron;
                let updated = self
                    .store
                    .update_trigger(
                        id,
                        TriggerUpdate {
                            name: Some(name.to_owned()),
                            prompt: Some(params.prompt),
                            model: Some(model.map(str::to_owned)),
                            cron,
                            timezone: is_cron.then_some(timezone),
                            webhook_secret: None,
                        },
                    )
                    .await
                    .map_err(store_error)?;
                let saved = if updated.enabled == params.enabled {
                    updated
                } else {
                    self.store
                        .set_trigger_enabled(id, params.enabled)
                        .await
                        .map_err(store_error)?
                };
                (saved, None)
            }
        };
        Ok(TriggerSaved {
            trigger: self.view_of(saved).await?,
            secret,
        })
    }

    /// A webhook trigger's new secret, answered once; the old one stops
    /// working with this write.
    pub(crate) async fn trigger_rotate_secret(
        &self,
        params: TriggerIdParams,
    ) -> Result<TriggerSecret, ApiError> {
        let trigger = self.store.trigger(&params.id).await.map_err(store_error)?;
        if trigger.kind != pizza_store::TriggerKind::Webhook {
            return Err(refuse("kind", "only webhook triggers have a secret"));
        }
        let (secret, hash) = new_secret()?;
        let updated = self
            .store
            .update_trigger(
                &trigger.id,
                TriggerUpdate {
                    webhook_secret: Some(hash),
                    ..TriggerUpdate::default()
                },
            )
            .await
            .map_err(store_error)?;
        Ok(TriggerSecret {
            trigger: self.view_of(updated).await?,
            secret,
        })
    }

    /// A trigger with its newest occurrence.
    async fn view_of(&self, trigger: pizza_store::Trigger) -> Result<TriggerView, ApiError> {
        let last = self
            .store
            .list_occurrences(&trigger.id, None, 1)
            .await
            .map_err(store_error)?
            .occurrences
            .into_iter()
            .next();
        Ok(self.view(trigger, last, self.webhook_port().await?))
    }

    pub(crate) async fn trigger_delete(&self, params: TriggerIdParams) -> Result<(), ApiError> {
        self.store
            .delete_trigger(&params.id)
            .await
            .map_err(store_error)
    }

    pub(crate) async fn trigger_set_enabled(
        &self,
        params: TriggerSetEnabledParams,
    ) -> Result<TriggerView, ApiError> {
        let trigger = self
            .store
            .set_trigger_enabled(&params.id, params.enabled)
            .await
            .map_err(store_error)?;
        self.view_of(trigger).await
    }

    pub(crate) async fn occurrence_list(
        &self,
        params: OccurrenceListParams,
    ) -> Result<OccurrenceList, ApiError> {
        // An unknown trigger is NOT_FOUND rather than an empty history.
        self.store
            .trigger(&params.trigger_id)
            .await
            .map_err(store_error)?;
        let page = self
            .store
            .list_occurrences(&params.trigger_id, params.cursor.as_deref(), 0)
            .await
            .map_err(store_error)?;
        Ok(OccurrenceList {
            occurrences: page.occurrences.into_iter().map(occurrence_view).collect(),
            next_cursor: page.next_cursor,
        })
    }
}

impl Host {
    fn triggers(&self) -> &TriggerService {
        &self.inner.triggers
    }

    pub async fn trigger_list(&self, params: TriggerListParams) -> Result<TriggerList, ApiError> {
        self.triggers().trigger_list(params).await
    }

    pub async fn trigger_preview(
        &self,
        params: TriggerPreviewParams,
    ) -> Result<TriggerPreview, ApiError> {
        self.triggers().trigger_preview(params).await
    }

    pub async fn trigger_save(&self, params: TriggerSaveParams) -> Result<TriggerSaved, ApiError> {
        let saved = self.triggers().trigger_save(params).await?;
        self.inner
            .automations
            .triggers_changed(Some(&saved.trigger.id))
            .await;
        Ok(saved)
    }

    pub async fn trigger_delete(&self, params: TriggerIdParams) -> Result<(), ApiError> {
        let id = params.id.clone();
        self.triggers().trigger_delete(params).await?;
        self.inner.automations.triggers_changed(Some(&id)).await;
        Ok(())
    }

    pub async fn trigger_set_enabled(
        &self,
        params: TriggerSetEnabledParams,
    ) -> Result<TriggerView, ApiError> {
        let view = self.triggers().trigger_set_enabled(params).await?;
        self.inner
            .automations
            .triggers_changed(Some(&view.id))
            .await;
        Ok(view)
    }

    pub async fn trigger_rotate_secret(
        &self,
        params: TriggerIdParams,
    ) -> Result<TriggerSecret, ApiError> {
        let rotated = self.triggers().trigger_rotate_secret(params).await?;
        self.inner
            .automations
            .triggers_changed(Some(&rotated.trigger.id))
            .await;
        Ok(rotated)
    }

    /// Fires the trigger now in a new thread (reason `manual`), whether or
    /// not automations are on or the trigger is enabled.
    pub async fn trigger_run_now(&self, params: TriggerIdParams) -> Result<TriggerFired, ApiError> {
        let fired = self
            .inner
            .automations
            .scheduler()
            .fire_now(&params.id, pizza_store::OccurrenceReason::Manual, None)
            .await
            .map_err(|err| match err {
                pizza_scheduler::FireError::NotFound(id) => {
                    ApiError::not_found(format!("There is no trigger {id}."))
                }
                pizza_scheduler::FireError::Store(err) => store_error(err),
            })?;
        let (thread_id, run_id) = match &fired {
            pizza_scheduler::Fired::Started {
                thread_id, run_id, ..
            } => (Some(thread_id.clone()), Some(run_id.clone())),
            _ => (None, None),
        };
        Ok(TriggerFired {
            occurrence: occurrence_view(fired.occurrence().clone()),
            thread_id,
            run_id,
        })
    }

    pub async fn occurrence_list(
        &self,
        params: OccurrenceListParams,
    ) -> Result<OccurrenceList, ApiError> {
        self.triggers().occurrence_list(params).await
    }
}

#[cfg(test)]
#[path = "triggers_tests.rs"]
mod tests;
