//! Crash recovery: runs that were live when the app stopped.

use std::collections::BTreeMap;

use pizza_store as store;

use super::RESUMABLE_KEY;

/// Marks the runs that were live when the app died as interrupted, and
/// offers Resume / Discard on their threads (kept in settings until the user
/// picks one, so the offer survives another restart). Returns how many.
pub(crate) async fn interrupt_live_runs(store: &store::Store) -> store::Result<usize> {
    let runs = store.interrupt_live_runs().await?;
    if runs.is_empty() {
        return Ok(0);
    }
    let mut resumable: BTreeMap<String, String> = store.setting(RESUMABLE_KEY).await?;
    for run in &runs {
        resumable.insert(run.thread_id.clone(), run.id.clone());
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
    store.set_setting(RESUMABLE_KEY, &resumable).await?;
    tracing::info!(count = runs.len(), "runs interrupted by the last shutdown");
    Ok(runs.len())
}
