//! Crash recovery: runs that were live when the app stopped.

use pizza_store as store;

/// Marks the runs that were live when the app died as interrupted and
/// resumable (one statement in the store, so the offer survives another
/// restart), and puts their threads in Action. Returns how many.
pub(crate) async fn interrupt_live_runs(store: &store::Store) -> store::Result<usize> {
    let runs = store.interrupt_live_runs().await?;
    for run in &runs {
        store
            .update_thread(
                &run.thread_id,
                store::ThreadUpdate {
                    awaiting_action: Some(true),
                    ..store::ThreadUpdate::default()
                },
            )
            .await?;
    }
    if !runs.is_empty() {
        tracing::info!(count = runs.len(), "runs interrupted by the last shutdown");
    }
    Ok(runs.len())
}
