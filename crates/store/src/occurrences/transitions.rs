//! The transitions after an occurrence is recorded: claim (and startup's
//! reclaim), finish, skip, dead. Each checks, in its transaction, the state it
//! leaves.

use sqlx::SqliteConnection;

use super::{
    OCCURRENCE_COLUMNS, Occurrence, OccurrenceOutcome, OccurrenceStatus, occurrence_from_row,
    occurrence_in, sentence,
};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::text::required;

/// The occurrence, refused with `Conflict` unless it is in one of `from`.
async fn in_state(
    conn: &mut SqliteConnection,
    id: &str,
    from: &[OccurrenceStatus],
    to: OccurrenceStatus,
) -> Result<Occurrence> {
    let o = occurrence_in(conn, id).await?;
    if !from.contains(&o.status) {
        return Err(Error::Conflict(format!(
            "occurrence {id} is {}; it cannot become {}",
            o.status.as_str(),
            to.as_str()
        )));
    }
    Ok(o)
}

/// Which occurrence a run carries out, written with the run row in one
/// transaction ([`crate::TurnStart::occurrence`], [`Store::create_run_for`]):
/// no run of a trigger exists without its occurrence saying so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OccurrenceLaunch {
    pub occurrence_id: String,
    /// Startup recovery's relaunch of an occurrence a crash left pending or
    /// running; otherwise it must be pending.
    pub relaunch: bool,
}

impl OccurrenceLaunch {
    fn states_launched_from(&self) -> &'static [OccurrenceStatus] {
        if self.relaunch {
            &[OccurrenceStatus::Pending, OccurrenceStatus::Running]
        } else {
            &[OccurrenceStatus::Pending]
        }
    }
}

/// Marks the occurrence running as `run_id` on `thread_id` (attempts + 1) and
/// sets the trigger's last run, inside the caller's transaction.
pub(crate) async fn launch_occurrence_in(
    conn: &mut SqliteConnection,
    launch: &OccurrenceLaunch,
    run_id: &str,
    thread_id: &str,
    now: i64,
) -> Result<Occurrence> {
    launch_in(
        conn,
        &launch.occurrence_id,
        run_id,
        thread_id,
        launch.states_launched_from(),
        now,
    )
    .await
}

async fn launch_in(
    conn: &mut SqliteConnection,
    id: &str,
    run_id: &str,
    thread_id: &str,
    from: &[OccurrenceStatus],
    now: i64,
) -> Result<Occurrence> {
    let run_id = required("run_id", run_id, 100)?;
    let thread_id = required("thread_id", thread_id, 100)?;
    let o = in_state(&mut *conn, id, from, OccurrenceStatus::Running).await?;
    if o.attempts_exhausted() {
        return Err(Error::Conflict(format!(
            "occurrence {id} was launched {} times; it is not launched again",
            o.attempts
        )));
    }
    let row = sqlx::query(&format!(
        "UPDATE trigger_occurrences SET status = 'running', attempts = attempts + 1, \
         run_id = ?, thread_id = ?, updated_at = ? WHERE id = ? \
         RETURNING {OCCURRENCE_COLUMNS}"
    ))
    .bind(&run_id)
    .bind(&thread_id)
    .bind(now)
    .bind(id)
    .fetch_one(&mut *conn)
    .await?;
    sqlx::query("UPDATE triggers SET last_run_at = ?, last_thread_id = ? WHERE id = ?")
        .bind(now)
        .bind(&thread_id)
        .bind(&o.trigger_id)
        .execute(&mut *conn)
        .await?;
    occurrence_from_row(&row)
}

impl Store {
    /// Reserves the run and thread ids a pending occurrence will launch with
    /// and marks it running (attempts + 1), before the run exists: a crash
    /// after this leaves a row recovery finds. The trigger's last run and
    /// thread are set in the same transaction. `Conflict` unless pending.
    pub async fn claim_occurrence(
        &self,
        id: &str,
        run_id: &str,
        thread_id: &str,
    ) -> Result<Occurrence> {
        self.launch(id, run_id, thread_id, &[OccurrenceStatus::Pending])
            .await
    }

    /// Startup recovery's relaunch of an occurrence a crash left pending or
    /// running, with new run and thread ids (attempts + 1). `Conflict` once its
    /// attempts are exhausted: [`Store::mark_occurrence_dead`] it instead.
    /// Never call it for an occurrence this process launched.
    pub async fn reclaim_occurrence(
        &self,
        id: &str,
        run_id: &str,
        thread_id: &str,
    ) -> Result<Occurrence> {
        self.launch(
            id,
            run_id,
            thread_id,
            &[OccurrenceStatus::Pending, OccurrenceStatus::Running],
        )
        .await
    }

    async fn launch(
        &self,
        id: &str,
        run_id: &str,
        thread_id: &str,
        from: &[OccurrenceStatus],
    ) -> Result<Occurrence> {
        let now = self.now();
        let mut tx = self.write_tx().await?;
        let claimed = launch_in(&mut tx, id, run_id, thread_id, from, now).await?;
        tx.commit().await?;
        Ok(claimed)
    }

    /// Records how the run of a running occurrence ended. `Conflict` unless it
    /// is running with this `run_id` (a stale attempt's run cannot finish it).
    pub async fn finish_occurrence(
        &self,
        id: &str,
        run_id: &str,
        outcome: OccurrenceOutcome,
    ) -> Result<Occurrence> {
        let (status, said) = match outcome {
            OccurrenceOutcome::Succeeded => (OccurrenceStatus::Succeeded, None),
            OccurrenceOutcome::Failed { sentence: s } => {
                (OccurrenceStatus::Failed, Some(sentence(&s)?))
            }
        };
        let mut tx = self.write_tx().await?;
        let o = in_state(&mut tx, id, &[OccurrenceStatus::Running], status).await?;
        if o.run_id.as_deref() != Some(run_id) {
            return Err(Error::Conflict(format!(
                "occurrence {id} is running as another run, not {run_id}"
            )));
        }
        let done = self.end(&mut tx, id, status, said).await?;
        tx.commit().await?;
        Ok(done)
    }

    /// Ends a pending occurrence without running it, saying why.
    pub async fn skip_occurrence(&self, id: &str, why: &str) -> Result<Occurrence> {
        let said = sentence(why)?;
        let mut tx = self.write_tx().await?;
        in_state(
            &mut tx,
            id,
            &[OccurrenceStatus::Pending],
            OccurrenceStatus::Skipped,
        )
        .await?;
        let done = self
            .end(&mut tx, id, OccurrenceStatus::Skipped, Some(said))
            .await?;
        tx.commit().await?;
        Ok(done)
    }

    /// Ends an occurrence whose run could not be started (no model set up, a
    /// refused start), saying why. `Conflict` unless pending or running.
    pub async fn fail_occurrence_launch(&self, id: &str, why: &str) -> Result<Occurrence> {
        self.end_unfinished(id, OccurrenceStatus::Failed, why).await
    }

    /// Gives up on an occurrence a crash left pending or running, saying why
    /// (usually [`GAVE_UP_AFTER_MAX_ATTEMPTS`]).
    pub async fn mark_occurrence_dead(&self, id: &str, why: &str) -> Result<Occurrence> {
        self.end_unfinished(id, OccurrenceStatus::Dead, why).await
    }

    /// Ends a pending or running occurrence as `status`, saying why.
    async fn end_unfinished(
        &self,
        id: &str,
        status: OccurrenceStatus,
        why: &str,
    ) -> Result<Occurrence> {
        let said = sentence(why)?;
        let mut tx = self.write_tx().await?;
        in_state(
            &mut tx,
            id,
            &[OccurrenceStatus::Pending, OccurrenceStatus::Running],
            status,
        )
        .await?;
        let done = self.end(&mut tx, id, status, Some(said)).await?;
        tx.commit().await?;
        Ok(done)
    }

    async fn end(
        &self,
        conn: &mut SqliteConnection,
        id: &str,
        status: OccurrenceStatus,
        said: Option<String>,
    ) -> Result<Occurrence> {
        let row = sqlx::query(&format!(
            "UPDATE trigger_occurrences SET status = ?, sentence = COALESCE(?, sentence), \
             updated_at = ? WHERE id = ? RETURNING {OCCURRENCE_COLUMNS}"
        ))
        .bind(status.as_str())
        .bind(said)
        .bind(self.now())
        .bind(id)
        .fetch_one(conn)
        .await?;
        occurrence_from_row(&row)
    }
}
