//! The window shown on an inbox of many threads, as a person's is after a
//! few weeks: what the app and its WebKit processes use over the first
//! seconds after the inbox painted (when the page keeps its look and the
//! app hands back what showing it read), and what they hold once settled.
//! "shown" measures a fresh data root, whose empty list never scrolls.

use crate::figures::Figures;
use crate::harness::Sandbox;
use crate::starts::timed_start;
use crate::{SETTLE, cpu_over, report_memory, seed};
use anyhow::Result;
use pizza_test_support::procs::{tree, usage};

/// Threads in the inbox: four pages of the list's, far more than it shows.
const THREADS: usize = 200;

pub(crate) async fn long_inbox_figures(figures: &mut Figures) -> Result<()> {
    let sandbox = Sandbox::new()?;
    seed::data_root(&sandbox.data_root(), async |store| {
        for n in 0..THREADS {
            seed::thread(store, &format!("Plan step {n}"), 1, None).await?;
        }
        Ok(())
    })
    .await?;
    let (app, _) = timed_start(&sandbox).await?;
    let label = format!("shown, {THREADS} threads");
    let cpu = cpu_over(app.pid(), SETTLE).await?;
    figures.percent(
        &format!("{label}: CPU over the first {}s", SETTLE.as_secs()),
        cpu,
    );
    report_memory(figures, &label, &usage(&tree(app.pid())));
    app.stop();
    Ok(())
}
