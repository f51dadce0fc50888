//! The run's side of calls a tool makes from inside one call (`eval`'s
//! bridges): the same gate as a direct call, and `task()` running the
//! skills' subagents as the `task` tool does, each under its own limits.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use pizza_llm::{CancellationToken, Usage};
use pizza_protocol::RunEvent;
use pizza_store::Store;
use pizza_tools::{FileSystem, NestedCalls, NestedGate, ThreadFiles, Tool};
use serde_json::Value;

use super::RunLoop;
use crate::agent::{Agent, RunInput};
use crate::profile::Gate;
use crate::run::model_call::add_usage;
use crate::sink::EventSink;
use crate::task::{TaskEnd, TaskParent, TaskScope};

/// One tool call's view of its run.
#[derive(Debug)]
pub(crate) struct RunNested {
    key: String,
    /// The tool call these calls are made from: subagents it starts are
    /// numbered below it.
    call_id: String,
    store: Store,
    input: RunInput,
    sink: Arc<dyn EventSink>,
    files: ThreadFiles,
    fs: Arc<dyn FileSystem>,
    allowed_in_thread: BTreeSet<String>,
    tasks_started: AtomicU32,
    /// What the subagents it ran spent, added to the run's usage when the
    /// call ends.
    usage: Mutex<Usage>,
}

impl RunNested {
    pub(crate) fn new(run: &RunLoop<'_>, call_id: &str) -> Self {
        Self {
            key: run.invocation_key(),
            call_id: call_id.to_owned(),
            store: run.agent.store.clone(),
            input: run.input.clone(),
            sink: Arc::clone(&run.sink),
            files: run.files.clone(),
            fs: Arc::clone(&run.fs),
            allowed_in_thread: run.allowed_in_thread.clone(),
            tasks_started: AtomicU32::new(0),
            usage: Mutex::new(Usage::default()),
        }
    }

    pub(crate) fn usage(&self) -> Usage {
        *self.usage.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait::async_trait]
impl NestedCalls for RunNested {
    fn invocation(&self) -> &str {
        &self.key
    }

    fn gate(&self, tool: &dyn Tool, args: &Value) -> NestedGate {
        match (self.input.profile).gate(tool, args, &self.allowed_in_thread) {
            Gate::Run => NestedGate::Run,
            Gate::Ask => NestedGate::Ask,
            Gate::Refuse => NestedGate::Refuse,
        }
    }

    fn skills(&self) -> Vec<String> {
        (self.input.profile.subagents.iter())
            .map(|s| s.name.clone())
            .collect()
    }

    async fn task(
        &self,
        skill: &str,
        ask: &str,
        cancel: CancellationToken,
    ) -> Result<String, String> {
        let profile = &self.input.profile;
        let Some(skill) = profile.subagents.iter().find(|s| s.name == skill).cloned() else {
            return Err(format!("task: no skill named `{skill}`"));
        };
        let n = self.tasks_started.fetch_add(1, Ordering::Relaxed) + 1;
        let task_id = format!("{}.task{n}", self.call_id);
        self.sink.emit(
            &profile.namespace,
            RunEvent::SubagentStarted {
                task_id: task_id.clone(),
                skill: skill.name.clone(),
                ask: ask.to_owned(),
            },
        );
        // A subagent needs only the store from the agent: the claims that
        // make a decision apply once belong to the orchestrator.
        let agent = Agent::new(self.store.clone());
        let parent = TaskParent {
            input: &self.input,
            sink: &self.sink,
            files: &self.files,
            fs: &self.fs,
            allowed_in_thread: &self.allowed_in_thread,
        };
        let scope = TaskScope {
            task_id: task_id.clone(),
            skill: Arc::clone(&skill),
            ask: ask.to_owned(),
            approved: Default::default(),
            answered: Default::default(),
        };
        let (end, usage) = parent.subagent(&agent, scope, cancel).run_task().await;
        add_usage(
            &mut self.usage.lock().unwrap_or_else(PoisonError::into_inner),
            &usage,
        );
        self.sink.emit(
            &profile.namespace,
            RunEvent::SubagentFinished {
                task_id,
                status: end.status(),
            },
        );
        match end {
            TaskEnd::Report(output) if output.is_error => Err(output.to_text()),
            TaskEnd::Report(output) => Ok(output.to_text()),
            TaskEnd::Cancelled => Err("task: cancelled".to_owned()),
            TaskEnd::Paused { requests, .. } => {
                let tools: BTreeSet<_> = requests.iter().map(|r| r.tool.as_str()).collect();
                let tools: Vec<_> = tools.into_iter().collect();
                Err(format!(
                    "task: the skill {} stopped: its call of {} needs the person's approval, \
                     which a program cannot wait for; delegate this ask with the task tool \
                     instead",
                    skill.name,
                    tools.join(", ")
                ))
            }
        }
    }
}

impl RunLoop<'_> {
    /// This agent invocation (the run's orchestrator, or one subagent):
    /// what tools keep per invocation is keyed by it.
    pub(crate) fn invocation_key(&self) -> String {
        let mut key = self.input.run_id.clone();
        for part in &self.profile.namespace {
            key.push('/');
            key.push_str(part);
        }
        key
    }

    /// Tells the tools this invocation is over (eval drops its interpreter).
    pub(crate) fn end_invocation(&self) {
        let key = self.invocation_key();
        for name in self.profile.tools.names() {
            if let Some(tool) = self.profile.tools.get(name) {
                tool.end_invocation(&key);
            }
        }
    }
}
