//! Native notifications for run outcomes, behind a [`Notifier`] that
//! `src-tauri` implements (the host must not know D-Bus or notify-rust).
//!
//! They are driven by the durable activity log, not by live events: a cursor
//! in settings (`notifications.cursor`) marks the last entry handled. After
//! each run the host announces what follows the cursor and moves it past
//! every entry, shown or not, so a restart never repeats an outcome. At
//! startup ([`Host::announce_missed`]) whatever is still after the cursor — an
//! outcome recorded just before the app died — is announced once.
//!
//! Silent outcomes: a cancel, a run the restart interrupted, a kind the user
//! turned off, and any outcome while the window is focused on its thread.

mod policy;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use pizza_protocol::{
    ApiError, AppEvent, DecidedFrom, Decision, DecisionKind, ErrorCode, Interrupt,
    InterruptResponse, NotificationPrefs, NotificationStatus, NotificationStatusParams,
    NotificationTakePendingParams, RunStartResponse, ThreadId,
};
use pizza_store as store;

use crate::events::AppEvents;
use crate::presence::WindowPresence;
use crate::settings::keys;
use crate::{Host, RunBegin, RunSource, RunStart, StartTarget, Started, WhenBusy};
pub(crate) use policy::answer_excerpt;

/// Activity entries read per page while announcing.
const PAGE: u32 = 100;

/// What a notification is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotificationKind {
    /// A run finished with an answer.
    Finished,
    /// A run failed or timed out.
    Failed,
    /// A run waits for the user's decision.
    ActionRequired,
}

/// One native notification; clicking it shows `thread_id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    pub thread_id: ThreadId,
    /// The headline: "Run finished", "Run failed", "Action required".
    pub summary: String,
    /// The thread's title, then one line of detail.
    pub body: String,
    pub kind: NotificationKind,
    /// Set when the run waits on exactly one gated call that can be approved
    /// or denied as it is: the notification may offer Approve and Deny,
    /// answered with [`Host::notification_decide`].
    pub approval: Option<PendingApproval>,
}

/// The one gated call an "Action required" notification can decide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingApproval {
    pub interrupt_id: String,
    pub call_id: String,
}

/// A person's answer from a notification's Approve or Deny button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotificationDecision {
    pub thread_id: ThreadId,
    pub approval: PendingApproval,
    /// Approve (`true`) or Deny.
    pub approve: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotifyError {
    /// No notification service to talk to.
    #[error("Notifications are unavailable: {reason}. Outcomes still show in the window.")]
    Unavailable { reason: String },
    #[error("The notification could not be shown: {reason}.")]
    Other { reason: String },
}

/// Shows native notifications.
///
/// Calls may block (D-Bus): the host only makes them through `spawn_blocking`.
pub trait Notifier: Send + Sync + std::fmt::Debug {
    /// Shows `notification`; a click on it is the implementation's to route
    /// to [`Host::notification_clicked`].
    fn show(&self, notification: Notification) -> Result<(), NotifyError>;
    /// Whether a notification service is there. Cheap enough to call per
    /// outcome (an implementation caches its answer).
    fn available(&self) -> bool;
}

/// The default: no notification service, every outcome stays in the window.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNotifier;

impl Notifier for NoNotifier {
    fn show(&self, _notification: Notification) -> Result<(), NotifyError> {
        Err(NotifyError::Unavailable {
            reason: "this build has no notification backend".to_owned(),
        })
    }

    fn available(&self) -> bool {
        false
    }
}

/// The notification service: announces run outcomes from the activity log
/// and keeps a clicked notification's thread for the window.
#[derive(Debug)]
pub(crate) struct Notifications {
    notifier: Arc<dyn Notifier>,
    store: store::Store,
    presence: Arc<WindowPresence>,
    events: AppEvents,
    /// The thread a clicked notification asks the window to show.
    pending_open: Mutex<Option<ThreadId>>,
    /// One announcer at a time, so the cursor only moves forward.
    announcing: tokio::sync::Mutex<()>,
    /// "Unavailable" is logged once per stretch of unavailability.
    said_unavailable: AtomicBool,
}

/// Starts the cursor at the end of the log the first time, so outcomes from
/// before notifications existed are never announced.
pub(crate) async fn init_cursor(store: &store::Store) -> store::Result<()> {
    if keys::NOTIFICATIONS_CURSOR.read(store).await?.is_some() {
        return Ok(());
    }
    let mut last = 0;
    loop {
        let page = store.activity_since(last, store::ACTIVITY_PAGE_MAX).await?;
        match page.last() {
            Some(entry) => last = entry.cursor,
            None => break,
        }
    }
    keys::NOTIFICATIONS_CURSOR.write(store, &last).await
}

impl Notifications {
    pub(crate) fn new(
        notifier: Arc<dyn Notifier>,
        store: store::Store,
        presence: Arc<WindowPresence>,
        events: AppEvents,
    ) -> Self {
        Self {
            notifier,
            store,
            presence,
            events,
            pending_open: Mutex::default(),
            announcing: tokio::sync::Mutex::new(()),
            said_unavailable: AtomicBool::new(false),
        }
    }

    /// Keeps the request for the window (which may not be ready yet) and
    /// tells a ready one.
    pub(crate) fn clicked(&self, thread_id: ThreadId) {
        *self
            .pending_open
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(thread_id.clone());
        self.events.emit(AppEvent::Navigate { thread_id });
    }

    pub(crate) fn take_pending(&self) -> Option<ThreadId> {
        self.pending_open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    pub(crate) async fn status(&self) -> NotificationStatus {
        let notifier = Arc::clone(&self.notifier);
        let available = tokio::task::spawn_blocking(move || notifier.available())
            .await
            .unwrap_or(false);
        NotificationStatus { available }
    }

    pub(crate) async fn prefs(&self) -> Result<NotificationPrefs, store::Error> {
        let defaults = NotificationPrefs::default();
        Ok(NotificationPrefs {
            run_finished: keys::NOTIFY_RUN_FINISHED
                .read(&self.store)
                .await?
                .unwrap_or(defaults.run_finished),
            action_required: keys::NOTIFY_ACTION_REQUIRED
                .read(&self.store)
                .await?
                .unwrap_or(defaults.action_required),
        })
    }

    /// Announces every activity entry after the cursor, moving the cursor
    /// past each one. Failures are logged: an outcome is never announced
    /// twice, and one that could not be shown still shows in the window.
    pub(crate) async fn announce(&self) {
        let _one = self.announcing.lock().await;
        if let Err(error) = self.announce_after_cursor().await {
            tracing::warn!(%error, "could not announce run outcomes");
        }
    }

    async fn announce_after_cursor(&self) -> Result<(), store::Error> {
        let mut cursor = keys::NOTIFICATIONS_CURSOR
            .read_or_default(&self.store)
            .await?;
        let prefs = self.prefs().await?;
        loop {
            let entries = self.store.activity_since(cursor, PAGE).await?;
            if entries.is_empty() {
                return Ok(());
            }
            for entry in entries {
                if let Some(mut notification) = policy::notification_for(&entry, prefs)
                    && !self.presence.is_in_view(&entry.thread_id)
                {
                    if notification.kind == NotificationKind::ActionRequired {
                        notification.approval = self.single_pending_call(&entry.thread_id).await;
                    }
                    self.show(notification).await;
                }
                cursor = entry.cursor;
                keys::NOTIFICATIONS_CURSOR
                    .write(&self.store, &cursor)
                    .await?;
            }
        }
    }

    /// The thread's pending interrupt when it is one call the person may
    /// approve or deny as it is; anything more needs the card.
    async fn single_pending_call(&self, thread_id: &str) -> Option<PendingApproval> {
        let head = match self.store.history(thread_id, None, 1).await {
            Ok(head) => head,
            Err(error) => {
                tracing::debug!(%error, thread_id, "no pending interrupt to decide from a notification");
                return None;
            }
        };
        let interrupt: Interrupt = head
            .into_iter()
            .next()
            .and_then(|c| c.interrupt)
            .and_then(|value| serde_json::from_value(value).ok())?;
        match interrupt.requests.as_slice() {
            [only]
                if only.allowed.contains(&DecisionKind::Approve)
                    && only.allowed.contains(&DecisionKind::Reject) =>
            {
                Some(PendingApproval {
                    interrupt_id: interrupt.interrupt_id.clone(),
                    call_id: only.call_id.clone(),
                })
            }
            _ => None,
        }
    }

    /// Shows a notification that is not a run's outcome (an automation gave
    /// up), if the person wants failures announced.
    pub(crate) async fn show_now(&self, notification: Notification) {
        match self.prefs().await {
            Ok(prefs) if !prefs.run_finished => return,
            Ok(_) => {}
            Err(error) => tracing::debug!(%error, "notification preferences unreadable"),
        }
        self.show(notification).await;
    }

    async fn show(&self, notification: Notification) {
        let notifier = Arc::clone(&self.notifier);
        let thread_id = notification.thread_id.clone();
        let shown = tokio::task::spawn_blocking(move || {
            if notifier.available() {
                notifier.show(notification)
            } else {
                Err(NotifyError::Unavailable {
                    reason: "no notification service is running".to_owned(),
                })
            }
        })
        .await
        .unwrap_or_else(|error| {
            Err(NotifyError::Other {
                reason: error.to_string(),
            })
        });
        match shown {
            Ok(()) => self.said_unavailable.store(false, Ordering::Relaxed),
            Err(NotifyError::Unavailable { reason }) => {
                if !self.said_unavailable.swap(true, Ordering::Relaxed) {
                    tracing::info!(
                        reason,
                        "notifications unavailable; outcomes show in the window only"
                    );
                }
            }
            Err(error) => tracing::warn!(%error, thread_id, "notification not shown"),
        }
    }
}

/// The notification commands: thin calls of the service.
impl Host {
    /// The main window gained (`true`) or lost the input focus.
    pub fn set_window_focused(&self, focused: bool) {
        self.inner.presence.set_focused(focused);
    }

    /// A notification for `thread_id` was clicked.
    pub fn notification_clicked(&self, thread_id: ThreadId) {
        self.inner.notifications.clicked(thread_id);
    }

    /// Approve or Deny pressed on an "Action required" notification: the
    /// same path as the approval card, so it applies exactly once. A second
    /// press, or one after the card decided, is `CONFLICT` and changes
    /// nothing; the thread says the decision came from the notification.
    pub async fn notification_decide(
        &self,
        decision: NotificationDecision,
    ) -> Result<RunStartResponse, ApiError> {
        let NotificationDecision {
            thread_id,
            approval,
            approve,
        } = decision;
        let choice = if approve {
            Decision::APPROVE
        } else {
            Decision::Reject { message: None }
        };
        let started = self
            .start(RunStart {
                target: StartTarget::Thread(thread_id.clone()),
                begin: RunBegin::Decisions(InterruptResponse {
                    interrupt_id: approval.interrupt_id,
                    decisions: [(approval.call_id, choice)].into(),
                    decided_from: DecidedFrom::Notification,
                }),
                source: RunSource::User,
                model: None,
                when_busy: WhenBusy::Refuse,
                occurrence: None,
            })
            .await;
        match started {
            Ok(Started::Run { thread_id, run_id }) => Ok(RunStartResponse { thread_id, run_id }),
            Ok(Started::Queued { .. }) => Err(ApiError::general(
                "The decision was not applied; open the thread to decide.",
            )),
            Err(error) => {
                if error.code == ErrorCode::Conflict {
                    tracing::info!(thread_id, message = %error.message, "a notification's decision came too late; nothing changed");
                } else {
                    tracing::warn!(thread_id, code = %error.code, message = %error.message, "a notification's decision failed");
                }
                Err(error)
            }
        }
    }

    pub async fn notification_take_pending(
        &self,
        _params: NotificationTakePendingParams,
    ) -> Result<Option<ThreadId>, ApiError> {
        Ok(self.inner.notifications.take_pending())
    }

    pub async fn notification_status(
        &self,
        _params: NotificationStatusParams,
    ) -> Result<NotificationStatus, ApiError> {
        Ok(self.inner.notifications.status().await)
    }

    /// Announces the outcomes recorded while the app was not running (or
    /// that it died before announcing). Call once the app can route clicks.
    pub async fn announce_missed(&self) {
        self.announce_outcomes().await;
    }

    pub(crate) async fn announce_outcomes(&self) {
        self.inner.notifications.announce().await;
    }
}

#[cfg(test)]
mod tests;
