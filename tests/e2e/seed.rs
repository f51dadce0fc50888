//! Seeds a data root through the store, as runs would have written it.

use anyhow::Result;
use pizza_store::{NewMessage, NewThread, Role, StepCommit, Store};
use std::path::Path;

fn text(role: Role, text: &str) -> NewMessage {
    NewMessage::new(role, vec![pizza_store::Part::text(text)], text)
}

/// Creates a thread with `turns` user/assistant exchanges; `special` replaces
/// the user text of one turn.
pub(crate) async fn thread(
    store: &Store,
    title: &str,
    turns: usize,
    special: Option<(usize, &str)>,
) -> Result<String> {
    let thread = store
        .create_thread(NewThread {
            title: Some(title.to_owned()),
            ..NewThread::default()
        })
        .await?;
    for turn in 0..turns {
        let question = match special {
            Some((at, words)) if at == turn => words.to_owned(),
            _ => format!("Question {turn} about {title}?"),
        };
        let answer = format!(
            "Answer {turn}: here is what I found about **{title}**.\n\n```rust\nfn step() -> u32 {{ {turn} }}\n```"
        );
        store
            .commit_step(
                &thread.id,
                StepCommit {
                    messages: vec![text(Role::User, &question), text(Role::Assistant, &answer)],
                    ..StepCommit::default()
                },
            )
            .await?;
    }
    Ok(thread.id)
}

/// Opens the store in a fresh data root, runs `fill`, and closes it again so
/// the app finds a quiet database.
pub(crate) async fn data_root<F>(root: &Path, fill: F) -> Result<()>
where
    F: AsyncFnOnce(&Store) -> Result<()>,
{
    std::fs::create_dir_all(root)?;
    let store = Store::open(root).await?;
    fill(&store).await?;
    store.close().await;
    Ok(())
}
