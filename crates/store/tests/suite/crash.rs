//! SIGKILL a child process that commits steps in a loop, then check that the database
//! opens clean and holds every reported step whole and no step in part.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pizza_store::{FileChange, NewThread, StepCommit, Store};
use serde_json::json;
use sqlx::{Connection, SqliteConnection};

use super::support::user;

const CHILD_ENV: &str = "PIZZA_STORE_CRASH_CHILD";
const TRIALS: usize = 50;
const REPORT: &str = "committed step ";

fn messages_in_step(step: i64) -> i64 {
    step % 4 + 1
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// The child: a no-op unless the parent set `CHILD_ENV`.
#[test]
fn crash_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    runtime().block_on(async move {
        let store = Store::open(&dir).await.unwrap();
        let threads = store
            .list_threads(&Default::default())
            .await
            .unwrap()
            .threads;
        let thread = match threads.into_iter().next() {
            Some(t) => t,
            None => store.create_thread(NewThread::default()).await.unwrap(),
        };
        let mut stdout = std::io::stdout().lock();
        // Bounded so an orphaned child cannot run forever.
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            let step = store
                .history(&thread.id, None, 1)
                .await
                .unwrap()
                .first()
                .map_or(0, |c| c.step)
                + 1;
            let messages = (0..messages_in_step(step))
                .map(|j| user(&format!("stepmark{step} part{j}")))
                .collect();
            let mut files = vec![FileChange::write("/step.txt", step.to_string())];
            if step % 3 == 0 {
                files.push(FileChange::write(format!("/s{step}.md"), "x".repeat(4096)));
            }
            let done = store
                .commit_step(
                    &thread.id,
                    StepCommit {
                        messages,
                        files,
                        interrupt: None,
                        metadata: json!({ "step": step }),
                    },
                )
                .await
                .unwrap();
            assert_eq!(done.checkpoint.step, step);
            writeln!(stdout, "{REPORT}{step}").unwrap();
            stdout.flush().unwrap();
        }
    });
}

#[test]
fn sigkill_mid_commit_loses_nothing_reported_and_leaves_nothing_half_written() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut rng = fastrand::Rng::with_seed(0x5eed_1234);
    let mut reported = 0;
    let rt = runtime();
    for trial in 0..TRIALS {
        let mut child = Command::new(&exe)
            .args(["--exact", "suite::crash::crash_child", "--nocapture"])
            .env(CHILD_ENV, dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| l.strip_prefix(REPORT).and_then(|n| n.parse::<i64>().ok()))
                .max()
        });
        // The kill point itself is what is random: during open, mid-commit, between commits.
        std::thread::sleep(Duration::from_millis(rng.u64(5..200)));
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "trial {trial}: the child ended on its own"
        );
        if let Some(max) = reader.join().unwrap() {
            assert!(max >= reported, "trial {trial}: steps went backwards");
            reported = max;
        }
        rt.block_on(verify(dir.path(), reported, trial));
    }
    assert!(
        reported > 0,
        "no trial committed a step; the child never got going"
    );
    eprintln!("crash test: {TRIALS} kills, {reported} steps committed");
}

async fn verify(dir: &Path, reported: i64, trial: usize) {
    let store = Store::open(dir).await.unwrap();
    store.integrity_check().await.unwrap();
    let threads = store
        .list_threads(&Default::default())
        .await
        .unwrap()
        .threads;
    assert!(threads.len() <= 1, "trial {trial}");
    let Some(thread) = threads.into_iter().next() else {
        assert_eq!(reported, 0, "trial {trial}: reported steps but no thread");
        return;
    };
    let history = store.history(&thread.id, None, 500).await.unwrap();
    let head = history.first().map_or(0, |c| c.step);
    assert!(
        head >= reported,
        "trial {trial}: step {reported} was reported but head is {head}"
    );
    assert_eq!(
        history.len(),
        usize::try_from(head).unwrap().min(500),
        "trial {trial}"
    );

    let state = store.state(&thread.id, None).await.unwrap();
    let mut expected_seq = 0;
    let mut texts = Vec::new();
    for step in 1..=head {
        for j in 0..messages_in_step(step) {
            texts.push(format!("stepmark{step} part{j}"));
        }
        expected_seq += messages_in_step(step);
    }
    // Every committed step has all its messages; nothing beyond the last checkpoint.
    let got: Vec<&str> = state.messages.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(got, texts, "trial {trial}");
    assert_eq!(thread.last_seq, expected_seq, "trial {trial}");
    if let Some(cp) = &state.checkpoint {
        assert_eq!(cp.message_seq, expected_seq, "trial {trial}");
        assert_eq!(cp.metadata, json!({ "step": head }), "trial {trial}");
        assert_eq!(state.files["/step.txt"].content, head.to_string());
        let big = (1..=head).filter(|s| s % 3 == 0).count();
        assert_eq!(state.files.len(), big + 1, "trial {trial}");
    }
    for c in &history {
        let expect: i64 = (1..=c.step).map(messages_in_step).sum();
        assert_eq!(
            c.message_seq, expect,
            "trial {trial}: checkpoint {}",
            c.step
        );
    }
    store.close().await;

    // The FTS index matches its content table.
    let url = format!("sqlite://{}", dir.join(pizza_store::DB_FILE_NAME).display());
    let mut conn = SqliteConnection::connect(&url).await.unwrap();
    sqlx::raw_sql("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')")
        .execute(&mut conn)
        .await
        .unwrap();
    let indexed: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM messages_fts")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(indexed, expected_seq, "trial {trial}");
    conn.close().await.unwrap();
}
