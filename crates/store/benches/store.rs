//! Plain timing benchmarks: `cargo bench -p pizza-store`.
//!
//! Prints step-commit time at thread lengths 10 and 10,000 (target ratio ≤ 1.5),
//! search p50 over 100,000 messages (target < 20 ms) and thread-list p50 over
//! 10,000 threads per view (target < 10 ms), and the startup recovery query
//! over 10,000 trigger occurrences (target < 200 ms).
//!
//! Names after `--` run only the benches whose names contain one of them:
//! `cargo bench -p pizza-store -- recovery`.

use std::error::Error;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pizza_store::{
    Durability, FileChange, FolderFilter, ManualClock, NewMessage, NewThread, Role, StepCommit,
    Store, StoreOptions, ThreadQuery, ThreadUpdate, ThreadView,
};
use serde_json::json;

// In a folder so cargo does not take it for a bench target of its own.
#[path = "store/recovery.rs"]
mod recovery;

type BenchResult<T = ()> = Result<T, Box<dyn Error>>;
type QueryMaker<'a> = Box<dyn Fn(&mut fastrand::Rng) -> String + 'a>;

fn main() -> BenchResult {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // cargo passes `--bench`; anything else names a bench to run.
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let runs = |name: &str| wanted.is_empty() || wanted.iter().any(|w| name.contains(w.as_str()));
    rt.block_on(async {
        if runs("commit") {
            commit_bench(Durability::Full).await?;
            commit_bench(Durability::Normal).await?;
        }
        if runs("search") {
            search_bench().await?;
        }
        if runs("list") {
            list_bench().await?;
        }
        if runs("recovery") {
            recovery::recovery_bench().await?;
        }
        Ok(())
    })
}

async fn open(
    dir: &std::path::Path,
    durability: Durability,
) -> BenchResult<(Store, Arc<ManualClock>)> {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let store = Store::open_with(
        dir,
        StoreOptions {
            clock: clock.clone(),
            durability,
        },
    )
    .await?;
    Ok((store, clock))
}

fn message(text: String) -> NewMessage {
    NewMessage::new(
        Role::User,
        vec![pizza_store::Part::text(text.clone())],
        text,
    )
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort_unstable();
    let max = samples.len().saturating_sub(1);
    // Rounding to the nearest index is exact enough for a printed figure.
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let i = ((max as f64) * p).round() as usize;
    samples.get(i).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1_000.0
}

async fn timed<F, T>(f: F) -> BenchResult<Duration>
where
    F: Future<Output = pizza_store::Result<T>>,
{
    let start = Instant::now();
    f.await?;
    Ok(start.elapsed())
}

/// A step like an agent's: an assistant reply, a tool result, one file write.
/// A step that only adds `messages`, to seed a thread.
fn messages_only(messages: Vec<NewMessage>) -> StepCommit {
    StepCommit {
        messages,
        ..StepCommit::default()
    }
}

fn agent_step(i: usize) -> StepCommit {
    StepCommit {
        messages: vec![
            message(format!(
                "assistant reply {i} with some words about the task"
            )),
            message(format!("tool output {i}: lorem ipsum dolor sit amet")),
        ],
        files: vec![FileChange::write(
            "/notes.md",
            format!("notes revision {i}"),
        )],
        interrupt: None,
        metadata: json!({ "step": i }),
    }
}

async fn commit_bench(durability: Durability) -> BenchResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = open(dir.path(), durability).await?;
    const ROUNDS: usize = 200;

    // Many short threads so each measured commit lands on a thread of length 10.
    let mut short = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let t = store.create_thread(NewThread::default()).await?;
        let msgs = (0..10).map(|j| message(format!("seed {j}"))).collect();
        store.commit_step(&t.id, messages_only(msgs)).await?;
        short.push(t.id);
    }
    let long = store.create_thread(NewThread::default()).await?;
    for chunk in 0..100 {
        let msgs = (0..100)
            .map(|j| message(format!("history {chunk} {j} with a few more words")))
            .collect();
        let files = vec![FileChange::write(format!("/f{chunk}.md"), "content")];
        store
            .commit_step(
                &long.id,
                StepCommit {
                    messages: msgs,
                    files,
                    ..StepCommit::default()
                },
            )
            .await?;
    }

    // Interleaved so disk and cache noise hits both sides alike.
    let mut at_10 = Vec::with_capacity(ROUNDS);
    let mut at_10k = Vec::with_capacity(ROUNDS);
    for (i, id) in short.iter().enumerate() {
        at_10.push(timed(store.commit_step(id, agent_step(i))).await?);
        at_10k.push(timed(store.commit_step(&long.id, agent_step(i))).await?);
    }
    let p10 = percentile(&mut at_10, 0.5);
    let p10k = percentile(&mut at_10k, 0.5);
    println!(
        "commit_step (2 messages + 1 file, {durability:?} durability), {ROUNDS} samples each:"
    );
    println!(
        "  thread length 10:     p50 {:.3} ms  p90 {:.3} ms",
        ms(p10),
        ms(percentile(&mut at_10, 0.9))
    );
    println!(
        "  thread length 10,000: p50 {:.3} ms  p90 {:.3} ms",
        ms(p10k),
        ms(percentile(&mut at_10k, 0.9))
    );
    println!(
        "  ratio p50 10,000 / 10: {:.2} (target <= 1.5)",
        p10k.as_secs_f64() / p10.as_secs_f64()
    );
    store.close().await;
    Ok(())
}

/// Pronounceable pseudo-words so the porter stemmer sees word-like tokens.
fn vocabulary(n: usize, rng: &mut fastrand::Rng) -> Vec<String> {
    const SYL: [&str; 24] = [
        "ka", "lo", "mi", "ren", "to", "sa", "vel", "qu", "dor", "an", "pi", "tes", "mor", "li",
        "nu", "gra", "fen", "bo", "ci", "zar", "hel", "ot", "wy", "se",
    ];
    let mut words = std::collections::BTreeSet::new();
    while words.len() < n {
        let len = rng.usize(2..=4);
        let w: String = (0..len).map(|_| SYL[rng.usize(..SYL.len())]).collect();
        words.insert(w);
    }
    let mut v: Vec<String> = words.into_iter().collect();
    rng.shuffle(&mut v);
    v
}

/// Zipf-like pick: low indexes are far more common, as in real text.
fn zipf(rng: &mut fastrand::Rng, n: usize) -> usize {
    let u = rng.f64();
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let i = ((n as f64).powf(u) - 1.0) as usize;
    i.min(n - 1)
}

async fn search_bench() -> BenchResult {
    let dir = tempfile::tempdir()?;
    // Reads do not depend on durability; NORMAL keeps the setup short.
    let (store, clock) = open(dir.path(), Durability::Normal).await?;
    let mut rng = fastrand::Rng::with_seed(42);
    let vocab = vocabulary(20_000, &mut rng);
    const THREADS: usize = 1_000;
    const PER_THREAD: usize = 100;
    let setup = Instant::now();
    for _ in 0..THREADS {
        clock.advance(1_000);
        let t = store.create_thread(NewThread::default()).await?;
        let msgs = (0..PER_THREAD)
            .map(|_| {
                let len = rng.usize(8..40);
                let words: Vec<&str> = (0..len)
                    .map(|_| vocab[zipf(&mut rng, vocab.len())].as_str())
                    .collect();
                message(words.join(" "))
            })
            .collect();
        store.commit_step(&t.id, messages_only(msgs)).await?;
    }
    println!(
        "search over {} messages ({} threads; setup {:.1} s):",
        THREADS * PER_THREAD,
        THREADS,
        setup.elapsed().as_secs_f64()
    );

    const QUERIES: usize = 200;
    let cases: [(&str, QueryMaker<'_>); 3] = [
        (
            "one word, Zipf-drawn",
            Box::new(|r| vocab[zipf(r, vocab.len())].clone()),
        ),
        (
            "two words, Zipf-drawn",
            Box::new(|r| {
                format!(
                    "{} {}",
                    vocab[zipf(r, vocab.len())],
                    vocab[zipf(r, vocab.len())]
                )
            }),
        ),
        (
            "one of the 20 commonest words",
            Box::new(|r| vocab[r.usize(..20)].clone()),
        ),
    ];
    for (name, make) in &cases {
        let mut samples = Vec::with_capacity(QUERIES);
        let mut hits = 0;
        for _ in 0..QUERIES {
            let q = make(&mut rng);
            let start = Instant::now();
            hits += store.search(&q, 50).await?.len();
            samples.push(start.elapsed());
        }
        println!(
            "  {name:<30} p50 {:.3} ms  p90 {:.3} ms  (avg {} hits, limit 50; target p50 < 20 ms)",
            ms(percentile(&mut samples, 0.5)),
            ms(percentile(&mut samples, 0.9)),
            hits / QUERIES
        );
    }
    store.close().await;
    Ok(())
}

async fn list_bench() -> BenchResult {
    let dir = tempfile::tempdir()?;
    // Reads do not depend on durability; NORMAL keeps the setup short.
    let (store, clock) = open(dir.path(), Durability::Normal).await?;
    let mut folders = Vec::new();
    for i in 0..20 {
        folders.push(store.create_folder(&format!("Folder {i}")).await?.id);
    }
    const THREADS: usize = 10_000;
    let setup = Instant::now();
    for i in 0..THREADS {
        clock.advance(1_000);
        let t = store
            .create_thread(NewThread {
                folder_id: (i % 2 == 0).then(|| folders[i % folders.len()].clone()),
                ..NewThread::default()
            })
            .await?;
        if i % 3 == 0 || i % 10 == 0 {
            store
                .update_thread(
                    &t.id,
                    ThreadUpdate {
                        unread: Some(i % 3 == 0),
                        awaiting_action: Some(i % 10 == 0),
                        ..ThreadUpdate::default()
                    },
                )
                .await?;
        }
    }
    println!(
        "list over {THREADS} threads (setup {:.1} s), limit 50, first page and a page 40 deep:",
        setup.elapsed().as_secs_f64()
    );
    const ITER: usize = 200;
    let views = [
        ("all", ThreadView::All, FolderFilter::Any),
        ("unread", ThreadView::Unread, FolderFilter::Any),
        ("action", ThreadView::Action, FolderFilter::Any),
        (
            "all in a folder",
            ThreadView::All,
            FolderFilter::Folder(folders[0].clone()),
        ),
        (
            "unread in a folder",
            ThreadView::Unread,
            FolderFilter::Folder(folders[0].clone()),
        ),
    ];
    for (name, view, folder) in views {
        let query = ThreadQuery {
            view,
            folder: folder.clone(),
            cursor: None,
            limit: 50,
        };
        // A cursor some pages in, to show keyset paging does not slow down with depth.
        let mut deep = query.clone();
        for _ in 0..40 {
            match store.list_threads(&deep).await?.next_cursor {
                Some(c) => deep.cursor = Some(c),
                None => break,
            }
        }
        let mut first = Vec::with_capacity(ITER);
        let mut later = Vec::with_capacity(ITER);
        for _ in 0..ITER {
            first.push(timed(store.list_threads(&query)).await?);
            later.push(timed(store.list_threads(&deep)).await?);
        }
        println!(
            "  {name:<20} p50 {:.3} ms  deep p50 {:.3} ms  (target < 10 ms)",
            ms(percentile(&mut first, 0.5)),
            ms(percentile(&mut later, 0.5))
        );
    }
    let mut counts = Vec::with_capacity(ITER);
    for _ in 0..ITER {
        counts.push(timed(store.thread_counts(&FolderFilter::Any)).await?);
    }
    println!(
        "  counts (all views)   p50 {:.3} ms",
        ms(percentile(&mut counts, 0.5))
    );
    store.close().await;
    Ok(())
}
