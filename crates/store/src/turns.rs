//! A run that begins with the person's message. The message, the run row
//! and (for a new thread) the thread are one transaction, so the window is
//! told of a run only once its message is on disk, and a crash at any
//! instant leaves either all of them or none.

use crate::attachments::link_in;
use crate::checkpoints::{CommittedStep, StepCommit, commit_in};
use crate::error::{Error, Result};
use crate::occurrences::{OccurrenceLaunch, launch_occurrence_in};
use crate::runs::{Run, RunSource, insert_run};
use crate::store::Store;
use crate::threads::{NewThread, insert_thread};

/// The thread a turn goes to.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnThread {
    Existing(String),
    /// Made in the same transaction.
    New(NewThread),
}

/// A turn to begin: see [`Store::start_turn`].
#[derive(Debug, Clone, PartialEq)]
pub struct TurnStart {
    pub thread: TurnThread,
    pub source: RunSource,
    /// The person's message, with anything the turn closes first.
    pub step: StepCommit,
    /// The head checkpoint `step` was prepared from (`None`: the thread had
    /// none); `Conflict` when the head moved meanwhile.
    pub expected_head: Option<String>,
    /// The queued message this turn sends: taken out of the queue in the
    /// same transaction, so it is sent exactly once. `NotFound` when it was
    /// removed meanwhile.
    pub queued_id: Option<String>,
    /// `step` answers the decision pending at `expected_head` (the run
    /// continues with it) instead of beginning a turn, which no pending
    /// decision may be left behind by.
    pub answers_interrupt: bool,
    /// The trigger occurrence this run carries out, marked running with the
    /// run's id in the same transaction.
    pub occurrence: Option<OccurrenceLaunch>,
    /// The ids of the attachments the person's message carries: linked to
    /// the thread and marked sent in the same transaction. An unknown id is
    /// `InvalidInput`.
    pub attachments: Vec<String>,
}

/// What [`Store::start_turn`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnStarted {
    pub thread_id: String,
    pub run: Run,
    pub step: CommittedStep,
}

impl Store {
    /// Creates the run and commits its opening step in one transaction.
    /// `Conflict` when the thread has a live run, waits for a decision on a
    /// tool call (no turn may begin before it is answered; a step that
    /// `answers_interrupt` needs one), or moved on from `expected_head`. Any older run's Resume offer ends with it, and
    /// the thread leaves Action.
    pub async fn start_turn(&self, turn: TurnStart) -> Result<TurnStarted> {
        let now = self.now();
        let mut tx = self.write_tx().await?;
        let thread_id = match turn.thread {
            TurnThread::Existing(id) => id,
            TurnThread::New(new) => insert_thread(&mut tx, new, now).await?,
        };
        let head: Option<(Option<String>, Option<String>)> = sqlx::query_as(
            "SELECT t.head_checkpoint_id, c.interrupt FROM threads t \
             LEFT JOIN checkpoints c ON c.id = t.head_checkpoint_id WHERE t.id = ?",
        )
        .bind(&thread_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((head, interrupt)) = head else {
            return Err(Error::not_found("thread", &thread_id));
        };
        match (interrupt.is_some(), turn.answers_interrupt) {
            (true, false) => {
                return Err(Error::Conflict(format!(
                    "thread {thread_id} is waiting for a decision on a tool call"
                )));
            }
            (false, true) => {
                return Err(Error::Conflict(format!(
                    "thread {thread_id} has no decision pending (already answered?)"
                )));
            }
            _ => {}
        }
        if head != turn.expected_head {
            return Err(Error::Conflict(format!(
                "thread {thread_id} changed while its message was being sent"
            )));
        }
        if let Some(queued_id) = &turn.queued_id {
            crate::queue::take_queued(&mut tx, &thread_id, queued_id).await?;
        }
        link_in(&mut tx, &thread_id, &turn.attachments, Some(now)).await?;
        let run_id = insert_run(&mut tx, &thread_id, turn.source, now).await?;
        if let Some(launch) = &turn.occurrence {
            launch_occurrence_in(&mut tx, launch, &run_id, &thread_id, now).await?;
        }
        let step = commit_in(&mut tx, &thread_id, turn.step, false, now).await?;
        // No decision is left pending (checked above) and the Resume offer ended
        // with the new run: nothing is left for the person to act on.
        sqlx::query("UPDATE threads SET awaiting_action = 0 WHERE id = ? AND awaiting_action = 1")
            .bind(&thread_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(TurnStarted {
            run: self.run(&run_id).await?,
            thread_id,
            step,
        })
    }
}
