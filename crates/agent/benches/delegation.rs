//! What a delegation costs the host: `cargo bench -p pizza-agent --bench delegation`.
//!
//! On a real store (durable commits, as the app runs), times a run whose
//! model calls one built-in tool and answers, against a run whose model
//! delegates to a skill that answers at once. The scripted model answers
//! instantly, so the difference is the host's own work for a delegation: the
//! subagent's profile, its transcript and commits, the events (target < 5 ms).

use std::error::Error;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pizza_agent::{Agent, CancellationToken, NullSink, RunInput, RunProfile, Subagent, TASK_TOOL};
use pizza_llm::{FakeModel, FakeTurn};
use pizza_store::{NewThread, Store};
use pizza_tools::ToolRegistry;
use serde_json::json;

const RUNS: usize = 60;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path()).await?;
    let agent = Agent::new(store.clone());
    let skill = Arc::new(Subagent {
        name: "notes".into(),
        description: "Tidies notes; returns what it changed.".into(),
        system_prompt: "You tidy notes.".into(),
        tools: ToolRegistry::with_builtins(),
        interrupt_on: Default::default(),
        files: vec![("references/style.md".into(), b"Short lines.".to_vec())],
    });
    let profile = Arc::new(RunProfile {
        subagents: vec![skill],
        ..RunProfile::default()
    });

    let mut tool_runs = Vec::with_capacity(RUNS);
    let mut delegated = Vec::with_capacity(RUNS);
    for i in 0..RUNS {
        let model = FakeModel::new();
        model.push_turn(FakeTurn::tool_call("l1", "ls", json!({"path": "/"})));
        model.push_turn(FakeTurn::text("Nothing to tidy."));
        tool_runs.push(timed(&agent, &store, &profile, model, i).await?);

        let model = FakeModel::new();
        model.push_turn(FakeTurn::tool_call(
            "t1",
            TASK_TOOL,
            json!({"skill": "notes", "ask": "tidy my notes"}),
        ));
        model.push_turn(FakeTurn::text("Nothing to tidy."));
        model.push_turn(FakeTurn::text("Nothing to tidy."));
        delegated.push(timed(&agent, &store, &profile, model, i).await?);
    }
    let (tool, task) = (median(&mut tool_runs), median(&mut delegated));
    println!("one run, median of {RUNS}, durable store:");
    println!("  model calls a tool, answers        {tool:>10.2?}");
    println!("  model delegates to a skill, relays {task:>10.2?}");
    println!(
        "  a delegation adds                  {:>10.2?} of host time (target < 5 ms)",
        task.saturating_sub(tool)
    );
    Ok(())
}

async fn timed(
    agent: &Agent,
    store: &Store,
    profile: &Arc<RunProfile>,
    model: FakeModel,
    i: usize,
) -> Result<Duration, Box<dyn Error>> {
    let thread = store.create_thread(NewThread::default()).await?;
    let input = RunInput {
        thread_id: thread.id,
        run_id: format!("run-{i}"),
        model: Arc::new(model),
        model_id: "fake".into(),
        context_window: Some(200_000),
        attachments: Default::default(),
        new_user_text: Some("tidy my notes".into()),
        profile: Arc::clone(profile),
    };
    let started = Instant::now();
    let outcome = agent
        .run(input, Arc::new(NullSink), CancellationToken::new())
        .await;
    let took = started.elapsed();
    if outcome.status != pizza_protocol::RunStatus::Succeeded {
        return Err(format!("run ended {:?}: {:?}", outcome.status, outcome.error).into());
    }
    Ok(took)
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}
