//! Quitting gracefully: refuse new runs, cancel the live ones, wait for each
//! to record its end (status `cancelled`), all within a deadline.

use std::time::Duration;

use crate::Host;
use crate::runs::RunService;

/// What [`Host::shutdown`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShutdownReport {
    /// Runs (or runs being started) that were live and got cancelled.
    pub cancelled: usize,
    /// False when the deadline passed before every run had recorded its end.
    pub finished_in_time: bool,
}

impl RunService {
    /// Refuses new runs, cancels the live ones and waits for each to record
    /// its end, until `deadline`.
    pub(crate) async fn shutdown(&self, deadline: Duration) -> ShutdownReport {
        let cancelled = self.registry.close();
        self.tasks.close();
        let finished_in_time = tokio::time::timeout(deadline, self.tasks.wait())
            .await
            .is_ok();
        if finished_in_time {
            tracing::info!(cancelled, "runs wound down for quitting");
        } else {
            tracing::warn!(
                cancelled,
                still_running = self.tasks.len(),
                deadline_ms = deadline.as_millis(),
                "runs did not wind down before the quit deadline"
            );
        }
        ShutdownReport {
            cancelled,
            finished_in_time,
        }
    }

    /// How many threads have a live run right now.
    pub(crate) fn live_run_count(&self) -> usize {
        self.registry.live_count()
    }
}

impl Host {
    /// Stops taking work and winds down what is running: every later
    /// `run_start`, `run_respond` or `run_resume` is refused with a sentence
    /// saying the app is quitting; every live run is cancelled and awaited
    /// (its row ends `cancelled`, its maintenance runs) until `deadline`.
    /// Triggers stop firing and the webhook listener closes.
    /// The database stays open: call [`Host::close`] afterwards.
    pub async fn shutdown(&self, deadline: Duration) -> ShutdownReport {
        // No trigger fires while quitting; a trigger's run stopped now is
        // relaunched at the next start.
        self.inner.automations.stop().await;
        let report = self.runs().shutdown(deadline).await;
        // After the runs: a run winding down may still call a tool.
        self.inner.mcp.shutdown().await;
        if let Some(eval) = &self.inner.eval {
            eval.sandbox().shutdown().await;
        }
        report
    }

    /// How many threads have a live run right now (for the tray's line).
    pub fn live_run_count(&self) -> usize {
        self.runs().live_run_count()
    }

    /// Once the app has settled: the store's idle connections give back
    /// their prepared statements and page caches (before the allocator's
    /// free memory is returned). A failure only costs the memory.
    pub async fn release_idle_memory(&self) {
        match self.inner.store.release_idle_memory().await {
            Ok(connections) => {
                tracing::debug!(connections, "store: idle connections' memory given back");
            }
            Err(error) => tracing::warn!(%error, "store: idle connections kept their memory"),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::runs::tests::{open, start};
    use pizza_llm::{FakeModel, FakeTurn, StreamEvent};
    use pizza_protocol::ErrorCode;
    use pizza_store as store;
    use pizza_test_support::data_root::TempDataRoot;
    use pretty_assertions::assert_eq;
    use std::time::Duration;

    const DEADLINE: Duration = Duration::from_secs(10);

    fn blocking_turn() -> FakeTurn {
        FakeTurn::from_events([StreamEvent::TextDelta {
            text: "working on it".to_owned(),
        }])
        .then_hang()
    }

    #[tokio::test]
    async fn shutdown_cancels_live_runs_records_them_and_refuses_new_ones() {
        let root = TempDataRoot::new().unwrap();
        let model = FakeModel::with_turns([blocking_turn(), blocking_turn()]);
        let host = open(&root, &model).await;
        let first = host.run_start(start(None, "long task")).await.unwrap();
        let second = host.run_start(start(None, "another")).await.unwrap();
        assert_eq!(host.live_run_count(), 2);

        let report = host.shutdown(DEADLINE).await;
        assert_eq!(report.cancelled, 2);
        assert!(report.finished_in_time);
        assert_eq!(host.live_run_count(), 0);
        for started in [&first, &second] {
            let run = host.store().run(&started.run_id).await.unwrap();
            assert_eq!(run.status, store::RunStatus::Cancelled);
        }

        let refused = host
            .run_start(start(Some(&first.thread_id), "one more"))
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::General);
        assert!(refused.message.contains("quitting"), "{}", refused.message);
        let refused_new = host.run_start(start(None, "new")).await.unwrap_err();
        assert_eq!(refused_new.code, ErrorCode::General);
        host.close().await;
    }

    #[tokio::test]
    async fn shutdown_with_nothing_running_is_immediate_and_the_store_reopens() {
        let root = TempDataRoot::new().unwrap();
        let model = FakeModel::with_turns([FakeTurn::text("done")]);
        let host = open(&root, &model).await;
        let report = host.shutdown(DEADLINE).await;
        assert_eq!(report.cancelled, 0);
        assert!(report.finished_in_time);
        host.close().await;
        // Closed cleanly: the next start finds nothing to recover.
        let again = open(&root, &model).await;
        assert_eq!(again.live_run_count(), 0);
    }

    #[tokio::test]
    async fn a_hidden_window_views_nothing_so_finished_work_is_unread() {
        let root = TempDataRoot::new().unwrap();
        let model = FakeModel::with_turns([FakeTurn::text("done"), FakeTurn::text("Title")]);
        let host = open(&root, &model).await;
        let thread = host
            .thread_create(pizza_protocol::ThreadCreateParams::default())
            .await
            .unwrap();
        host.thread_viewing(pizza_protocol::ThreadViewingParams {
            thread_id: Some(thread.id.clone()),
        })
        .await
        .unwrap();
        host.set_window_shown(false);
        let mut events = host.subscribe();
        let started = host.run_start(start(Some(&thread.id), "go")).await.unwrap();
        crate::runs::tests::activity(&mut events, &started.run_id).await;
        assert!(host.store().thread(&thread.id).await.unwrap().unread);
    }
}
