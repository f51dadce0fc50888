//! Shared setup: a thread in a fresh store, an agent, scripted tools.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use pizza_agent::{
    Agent, CancellationToken, ChannelSink, EventSink, FixedClock, RunInput, RunOutcome, RunProfile,
};
use pizza_llm::FakeModel;
use pizza_protocol::{InterruptResponse, MessagePart, RunEvent};
use pizza_store::{NewThread, Role, Store};
use pizza_tools::{Tool, ToolContext, ToolError, ToolOutput, ToolRegistry};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::sync::{Barrier, mpsc};

pub(crate) const NOW: &str = "2026-03-04T09:15:31+01:00[+01:00]";

pub(crate) fn config() -> RunProfile {
    RunProfile {
        clock: Arc::new(FixedClock(NOW.parse().unwrap())),
        ..RunProfile::default()
    }
}

/// The agent as a host drives it: each run gets this profile, the host's
/// `run_finished` follows the outcome, and decisions are accepted, then
/// resumed, exactly as the app does.
#[derive(Debug)]
pub(crate) struct TestAgent {
    pub(crate) agent: Agent,
    pub(crate) profile: Arc<RunProfile>,
}

impl TestAgent {
    fn with_profile(&self, mut input: RunInput) -> RunInput {
        input.profile = Arc::clone(&self.profile);
        input
    }

    pub(crate) async fn run(
        &self,
        input: RunInput,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> RunOutcome {
        let outcome = self
            .agent
            .run(self.with_profile(input), Arc::clone(&sink), cancel)
            .await;
        finished(sink.as_ref(), &outcome);
        outcome
    }

    /// Runs to the end with no one watching its events or cancelling it.
    pub(crate) async fn run_unobserved(&self, input: RunInput) -> RunOutcome {
        self.run(
            input,
            Arc::new(pizza_agent::NullSink),
            CancellationToken::new(),
        )
        .await
    }

    pub(crate) async fn resume(
        &self,
        mut input: RunInput,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> RunOutcome {
        // What `Agent::resume` does, with the host's end after it.
        input.new_user_text = None;
        self.run(input, sink, cancel).await
    }

    /// What `run_respond` does: accept the decisions, announce what they
    /// committed, continue from the checkpoint.
    pub(crate) async fn respond(
        &self,
        input: RunInput,
        response: InterruptResponse,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> pizza_agent::Result<RunOutcome> {
        let committed = self
            .agent
            .accept_decisions(
                &input.thread_id,
                &input.run_id,
                response,
                &self.profile.tools,
            )
            .await?;
        sink.emit(
            &[],
            RunEvent::RunStarted {
                model: input.model_id.clone(),
            },
        );
        for message in committed.messages {
            sink.emit(&[], RunEvent::MessageCompleted { message });
        }
        let outcome = self
            .agent
            .resume(
                self.with_profile(input),
                Arc::new(SkipStart(Arc::clone(&sink))),
                cancel,
            )
            .await;
        finished(sink.as_ref(), &outcome);
        Ok(outcome)
    }
}

/// The host publishes `run_finished` once the run row is final.
fn finished(sink: &dyn EventSink, outcome: &RunOutcome) {
    sink.emit(
        &[],
        RunEvent::RunFinished {
            status: outcome.status,
            error: outcome.error.clone(),
        },
    );
}

/// Forwards everything but the `run_started` already announced (the host
/// announces decisions' results right after it, as `respond` does above).
#[derive(Debug)]
struct SkipStart(Arc<dyn EventSink>);

impl EventSink for SkipStart {
    fn emit(&self, namespace: &[String], event: RunEvent) {
        if !matches!(event, RunEvent::RunStarted { .. }) {
            self.0.emit(namespace, event);
        }
    }
}

pub(crate) struct Harness {
    pub(crate) dir: TempDir,
    pub(crate) store: Store,
    pub(crate) thread_id: String,
    pub(crate) model: FakeModel,
}

impl Harness {
    pub(crate) async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).await.unwrap();
        let thread = store.create_thread(NewThread::default()).await.unwrap();
        Self {
            dir,
            store,
            thread_id: thread.id,
            model: FakeModel::new(),
        }
    }

    /// Closes the store and opens the same file again, as after a restart.
    pub(crate) async fn reopen(&mut self) {
        self.store.close().await;
        self.store = Store::open(self.dir.path()).await.unwrap();
    }

    pub(crate) fn agent(&self, config: RunProfile) -> Arc<TestAgent> {
        self.agent_with(config, ToolRegistry::with_builtins())
    }

    pub(crate) fn agent_with(&self, config: RunProfile, tools: ToolRegistry) -> Arc<TestAgent> {
        Arc::new(TestAgent {
            agent: Agent::new(self.store.clone()),
            profile: Arc::new(RunProfile { tools, ..config }),
        })
    }

    pub(crate) fn input(&self, text: Option<&str>) -> RunInput {
        RunInput {
            thread_id: self.thread_id.clone(),
            run_id: "run-1".into(),
            model: Arc::new(self.model.clone()),
            model_id: "fake-model".into(),
            context_window: Some(200_000),
            attachments: Default::default(),
            new_user_text: text.map(str::to_owned),
            profile: Arc::new(config()),
        }
    }

    /// Runs to the end and returns the outcome and every event.
    pub(crate) async fn run(
        &self,
        agent: &TestAgent,
        text: Option<&str>,
    ) -> (RunOutcome, Vec<RunEvent>) {
        let (sink, rx) = ChannelSink::new();
        let outcome = agent
            .run(self.input(text), Arc::new(sink), CancellationToken::new())
            .await;
        (outcome, drain(rx))
    }

    /// `(role, parts)` of every stored message, oldest first.
    pub(crate) async fn transcript(&self) -> Vec<(Role, Vec<MessagePart>)> {
        let state = self.store.state(&self.thread_id, None).await.unwrap();
        state
            .messages
            .into_iter()
            .map(|m| (m.role, pizza_store::transcript::view(&m).parts))
            .collect()
    }

    pub(crate) async fn file(&self, path: &str) -> Option<String> {
        let state = self.store.state(&self.thread_id, None).await.unwrap();
        state.files.get(path).map(|f| f.content.clone())
    }
}

pub(crate) fn drain(mut rx: mpsc::UnboundedReceiver<(Vec<String>, RunEvent)>) -> Vec<RunEvent> {
    let mut events = Vec::new();
    while let Ok((namespace, event)) = rx.try_recv() {
        assert!(namespace.is_empty(), "the orchestrator emits at the root");
        events.push(event);
    }
    events
}

/// Waits for the first event matching `pred`, returning the ones before it too.
pub(crate) async fn wait_for(
    rx: &mut mpsc::UnboundedReceiver<(Vec<String>, RunEvent)>,
    pred: impl Fn(&RunEvent) -> bool,
) -> Vec<RunEvent> {
    let mut seen = Vec::new();
    while let Some((_, event)) = rx.recv().await {
        let hit = pred(&event);
        seen.push(event);
        if hit {
            return seen;
        }
    }
    panic!("the run ended without the awaited event: {seen:?}");
}

pub(crate) fn text(s: &str) -> MessagePart {
    MessagePart::Text { text: s.to_owned() }
}

pub(crate) fn result_of(parts: &[MessagePart]) -> (&str, &str, bool) {
    match parts {
        [
            MessagePart::ToolResult {
                call_id,
                content,
                is_error,
            },
        ] => (call_id, content, *is_error),
        other => panic!("not a tool result: {other:?}"),
    }
}

/// The `Tool` impl every scripted test tool shares: a name, a description,
/// an object with any arguments, and a body that sees the tool and the
/// call's cancellation token.
macro_rules! scripted_tool {
    ($tool:ty, $name:literal, $description:literal, |$this:ident, $cancel:pat_param| $body:block) => {
        #[async_trait::async_trait]
        impl Tool for $tool {
            fn name(&self) -> &str {
                $name
            }
            fn description(&self) -> &str {
                $description
            }
            fn parameters(&self) -> Value {
                json!({"type": "object"})
            }
            async fn call(
                &self,
                _: &ToolContext,
                _: Value,
                $cancel: CancellationToken,
            ) -> pizza_tools::Result<ToolOutput> {
                let $this = self;
                $body
            }
        }
    };
}

/// Counts its calls; answers "counted".
#[derive(Debug, Default)]
pub(crate) struct Counter(pub(crate) AtomicUsize);

scripted_tool!(Counter, "counter", "Counts.", |this, _| {
    let n = this.0.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(format!("counted {n}").into())
});

/// Waits at a barrier: two calls only finish if they run at the same time.
#[derive(Debug)]
pub(crate) struct Rendezvous(pub(crate) Barrier);

scripted_tool!(Rendezvous, "rendezvous", "Meets the others.", |this, _| {
    this.0.wait().await;
    Ok(ToolOutput::text("met"))
});

/// The first `hangs` calls wait until cancelled (or dropped); later calls return.
#[derive(Debug, Default)]
pub(crate) struct Hang {
    pub(crate) calls: AtomicUsize,
    pub(crate) hangs: usize,
}

scripted_tool!(Hang, "hang", "Takes forever.", |this, cancel| {
    let n = this.calls.fetch_add(1, Ordering::SeqCst);
    if n < this.hangs {
        cancel.cancelled().await;
        return Err(ToolError::Cancelled);
    }
    Ok(ToolOutput::text("finally"))
});

/// Always fails.
#[derive(Debug)]
pub(crate) struct Broken;

scripted_tool!(Broken, "broken", "Fails.", |_this, _| {
    Err(ToolError::failed("the disk is on fire; try /other"))
});

/// Returns a caption and a small PNG, as an MCP screenshot tool does.
#[derive(Debug, Default)]
pub(crate) struct Screenshot;

/// What [`Screenshot`] returns as its image.
pub(crate) const SCREENSHOT_PNG: &[u8] = b"\x89PNG\r\n\x1a\nscreen";

scripted_tool!(
    Screenshot,
    "screenshot",
    "Takes a screenshot.",
    |_this, _| {
        Ok(ToolOutput {
            parts: vec![
                pizza_tools::OutputPart::Text("the screen:".into()),
                pizza_tools::OutputPart::Image {
                    name: "image-1.png".into(),
                    mime: "image/png".into(),
                    data: SCREENSHOT_PNG.to_vec(),
                },
            ],
            is_error: false,
        })
    }
);
