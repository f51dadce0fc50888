//! The host's message queue: `queue_add` / `queue_remove`, and what starts a
//! queued message — the end of the thread's run (not a pause for a
//! decision), a discarded Resume offer, and the app's start
//! ([`Host::start_queued_messages`](crate::Host::start_queued_messages)). The queue is in the store, so closing
//! the window or quitting loses nothing.

use std::sync::Arc;

use pizza_protocol::{
    ApiError, AppEvent, QueueAddParams, QueueAddResponse, QueueRemoveParams, QueuedMessage,
};

use super::RunService;
use super::start::{RunBegin, RunSource, RunStart, StartTarget, Started, WhenBusy};
use super::store_err;

impl RunService {
    /// Sends the message now if the thread is free, else queues it.
    pub(crate) async fn queue_add(
        self: &Arc<Self>,
        params: QueueAddParams,
    ) -> Result<QueueAddResponse, ApiError> {
        let started = self
            .start(RunStart {
                target: StartTarget::Thread(params.thread_id),
                begin: RunBegin::Message {
                    text: params.text,
                    attachments: params.attachments,
                },
                source: RunSource::User,
                model: params.model,
                when_busy: WhenBusy::Queue,
                occurrence: None,
            })
            .await?;
        Ok(match started {
            Started::Run { thread_id, run_id } => QueueAddResponse {
                thread_id,
                run_id: Some(run_id),
                queued: None,
            },
            Started::Queued { thread_id, queued } => QueueAddResponse {
                thread_id,
                run_id: None,
                queued: Some(queued),
            },
        })
    }

    pub(crate) async fn queue_remove(&self, params: QueueRemoveParams) -> Result<(), ApiError> {
        self.store
            .remove_queued(&params.thread_id, &params.queued_id)
            .await
            .map_err(store_err)?;
        self.queue_changed(&params.thread_id).await;
        Ok(())
    }

    /// Starts the oldest queued message of every thread that holds some and
    /// waits for nobody. The app calls it once its models can be resolved.
    pub(crate) async fn start_queued_messages(self: &Arc<Self>) {
        match self.store.threads_with_queued().await {
            Ok(threads) => {
                for thread_id in threads {
                    self.start_next_queued(&thread_id).await;
                }
            }
            Err(error) => tracing::warn!(%error, "could not read the message queue"),
        }
    }

    /// [`RunService::start_queued`] with its failure logged: the message stays
    /// queued (and shown) for the user to remove or for the next chance.
    pub(crate) async fn start_next_queued(self: &Arc<Self>, thread_id: &str) {
        if let Err(error) = self.start_queued(thread_id).await {
            tracing::warn!(code = %error.code, thread_id, "could not start a queued message");
        }
    }

    /// The thread's queue, oldest first.
    pub(crate) async fn queued(&self, thread_id: &str) -> Result<Vec<QueuedMessage>, ApiError> {
        Ok(self
            .store
            .queued_messages(thread_id)
            .await
            .map_err(store_err)?
            .into_iter()
            .map(Into::into)
            .collect())
    }

    /// Whether a new message must wait: a live run, a pending decision or
    /// Resume offer, or messages queued before it.
    pub(super) async fn must_wait(&self, thread_id: &str) -> Result<bool, ApiError> {
        Ok(self.live_run(thread_id).is_some()
            || !self.queued(thread_id).await?.is_empty()
            || self.waits_for_user(thread_id).await?)
    }

    /// A decision is pending, or a Resume offer: the user goes first.
    pub(super) async fn waits_for_user(&self, thread_id: &str) -> Result<bool, ApiError> {
        if self.is_resumable(thread_id).await? {
            return Ok(true);
        }
        let head = self
            .store
            .history(thread_id, None, 1)
            .await
            .map_err(store_err)?;
        Ok(head.first().is_some_and(|c| c.interrupt.is_some()))
    }

    pub(super) async fn enqueue(
        self: &Arc<Self>,
        thread_id: &str,
        text: &str,
        attachments: &[String],
        model: Option<&str>,
    ) -> Result<Started, ApiError> {
        // Checked now, so a queued message never fails for a missing file.
        self.store
            .attachments_by_id(attachments)
            .await
            .map_err(|_| {
                ApiError::invalid_input(
                    "An attachment of this message is gone; remove its chip and attach the \
                     file again.",
                )
            })?;
        let queued = self
            .store
            .queue_message(thread_id, text, model, attachments)
            .await
            .map_err(store_err)?;
        self.queue_changed(thread_id).await;
        // Free after all (the run ended meanwhile): the oldest goes now.
        if let Some((sent, run_id)) = self.start_queued(thread_id).await?
            && sent == queued.id
        {
            return Ok(Started::Run {
                thread_id: thread_id.to_owned(),
                run_id,
            });
        }
        Ok(Started::Queued {
            thread_id: thread_id.to_owned(),
            queued: queued.into(),
        })
    }

    /// Tells the windows the thread's whole queue.
    pub(crate) async fn queue_changed(&self, thread_id: &str) {
        match self.queued(thread_id).await {
            Ok(queued) => self.events.emit(AppEvent::QueueChanged {
                thread_id: thread_id.to_owned(),
                queued,
            }),
            Err(error) => tracing::warn!(code = %error.code, thread_id, "queue unreadable"),
        }
    }
}
