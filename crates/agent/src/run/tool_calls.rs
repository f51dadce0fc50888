//! The tool half of a step: limits, approval gates, parallel execution,
//! one commit per result so a crash never re-runs a committed call.

use std::collections::VecDeque;
use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use pizza_llm::{CancellationToken, Usage};
use pizza_protocol::{ApprovalRequest, DecisionKind, Interrupt, RunEvent, RunStatus};
use pizza_tools::{ToolContext, ToolError, ToolOutput, file_state};
use serde_json::Value;

use super::nested::RunNested;
use super::{Next, RunLoop, Stop};
use crate::agent::RunOutcome;
use crate::meta::AskedAgainst;
use crate::profile::{Gate, refused_by_policy};
use crate::run::model_call::add_usage;
use crate::task::{TASK_TOOL, TaskEnd, task_target};
use crate::transcript::{PendingCall, notice_message, tool_parts_message, tool_result_message};

pub(crate) const CANCELLED_RESULT: &str = "Cancelled by the user before it finished.";

/// A call that waits for the person's decision.
struct Gated {
    call: PendingCall,
    description: String,
    /// It was approved, but its file changed since it asked.
    changed_since_request: bool,
}

/// A call cleared to run.
struct Ready {
    call: PendingCall,
    /// The user changed the arguments before approving.
    edited: bool,
}

impl<'a> RunLoop<'a> {
    pub(super) async fn run_tool_calls(&mut self, pending: Vec<PendingCall>) -> Result<Next, Stop> {
        let profile = Arc::clone(&self.profile);
        let mut answered = Vec::new();
        let mut ready = Vec::new();
        let mut gated = Vec::new();
        let mut refused = 0usize;
        for call in pending {
            if let Some(approved) = self.meta.approved.get(&call.id).cloned() {
                let call = PendingCall {
                    arguments: approved.arguments,
                    ..call
                };
                if let Some(guard) = &approved.guard
                    && !self.still_as_asked(guard).await
                {
                    // The person approved a change to the file as it was;
                    // it is not that file any more, so they decide again.
                    self.meta.approved.remove(&call.id);
                    let description = profile
                        .tools
                        .get(&call.name)
                        .map(|tool| tool.describe_call(&call.arguments))
                        .unwrap_or_default();
                    gated.push(Gated {
                        call,
                        description,
                        changed_since_request: true,
                    });
                    continue;
                }
                let edited = approved.edited;
                ready.push(Ready { call, edited });
                continue;
            }
            if !self.meta.counted.contains(&call.id) {
                if !profile.tool_call_allowed(self.meta.tool_calls) {
                    refused += 1;
                    let text = format!(
                        "Error: not run: this run reached its limit of {} tool calls.",
                        profile.max_tool_calls
                    );
                    answered.push((call, text, true));
                    continue;
                }
                self.meta.tool_calls += 1;
                self.meta.counted.push(call.id.clone());
            }
            if call.name == TASK_TOOL && !profile.subagents.is_empty() {
                // A delegation is not gated: the subagent's own calls are.
                match task_target(&profile, &call.arguments) {
                    Ok(_) => ready.push(Ready {
                        call,
                        edited: false,
                    }),
                    Err(text) => answered.push((call, text, true)),
                }
                continue;
            }
            let tool = match profile.tools.resolve(&call.name, &call.arguments) {
                Ok(tool) => tool,
                // The model sees its mistake and can correct the call.
                Err(e) => {
                    answered.push((call, format!("Error: {e}"), true));
                    continue;
                }
            };
            match profile.gate(tool.as_ref(), &call.arguments, &self.allowed_in_thread) {
                Gate::Ask => {
                    let description = tool.describe_call(&call.arguments);
                    gated.push(Gated {
                        call,
                        description,
                        changed_since_request: false,
                    });
                }
                Gate::Refuse => {
                    let text = refused_by_policy(&call.name);
                    answered.push((call, text, true));
                }
                Gate::Run => ready.push(Ready {
                    call,
                    edited: false,
                }),
            }
        }
        if refused > 0 && self.task.is_some() {
            // A subagent answers once more, without tools, with what it has.
            self.meta.tool_free_next = true;
        } else if refused > 0 {
            self.meta.end_notice = Some(format!(
                "This run reached its limit of {} tool calls; {refused} call(s) were not run. \
                 Send a message to continue.",
                profile.max_tool_calls
            ));
        }

        if !answered.is_empty() {
            let mut messages = Vec::new();
            for (call, text, is_error) in answered {
                self.emit_started(&call);
                self.emit_finished(&call, &text, is_error);
                messages.push(tool_result_message(&call.id, &text, is_error));
            }
            self.commit(messages, None).await?;
        }

        self.run_ready(ready).await?;

        if !gated.is_empty() || !self.paused.is_empty() {
            return self.interrupt(gated).await;
        }
        if let Some(notice) = self.meta.end_notice.take() {
            self.commit(vec![notice_message(&notice)], None).await?;
            return Ok(Next::Done(RunOutcome::new(RunStatus::Succeeded)));
        }
        Ok(Next::Continue)
    }

    /// Runs the calls in parallel, committing each result as it arrives; a
    /// `task` call runs its subagent, which may pause instead of answering.
    async fn run_ready(&mut self, ready: Vec<Ready>) -> Result<(), Stop> {
        let mut running = FuturesUnordered::new();
        let mut unfinished = Vec::new();
        for Ready { call, edited } in ready {
            let cancel = self.cancel.child_token();
            unfinished.push(call.clone());
            running.push(self.start_call(call, edited, cancel));
        }
        // Calls that finished while a result was committing.
        let mut queued = VecDeque::new();
        loop {
            let next = match queued.pop_front() {
                Some(done) => Some(done),
                None => tokio::select! {
                    biased;
                    () = self.cancel.cancelled() => break,
                    next = running.next() => next,
                },
            };
            let Some((call, edited, work)) = next else {
                return Ok(());
            };
            unfinished.retain(|c| c.id != call.id);
            let result = match work {
                Work::Tool(result, usage) => {
                    // Subagents a program ran through `task()`.
                    add_usage(&mut self.usage, &usage);
                    result
                }
                Work::Task(end, usage) => {
                    add_usage(&mut self.usage, &usage);
                    self.sink.emit(
                        &self.profile.namespace,
                        RunEvent::SubagentFinished {
                            task_id: call.id.clone(),
                            status: end.status(),
                        },
                    );
                    match end {
                        TaskEnd::Report(output) => {
                            self.meta.forget_task(&call.id);
                            Ok(output)
                        }
                        TaskEnd::Cancelled => Err(ToolError::Cancelled),
                        TaskEnd::Paused {
                            requests,
                            asked_against,
                        } => {
                            for request in &requests {
                                (self.meta.task_calls)
                                    .insert(request.call_id.clone(), call.id.clone());
                            }
                            self.meta.asked_against.extend(asked_against);
                            self.paused.extend(requests);
                            continue;
                        }
                    }
                }
            };
            let output = match result {
                Ok(mut output) => {
                    if edited {
                        let note = format!(
                            "(The user edited the arguments before approving: {})\n",
                            call.arguments
                        );
                        output.parts.insert(0, pizza_tools::OutputPart::Text(note));
                    }
                    output
                }
                Err(ToolError::Cancelled) => error_output(CANCELLED_RESULT.to_owned()),
                Err(e) => error_output(format!("Error: {e}")),
            };
            self.meta.approved.remove(&call.id);
            self.emit_finished(&call, &output.to_text(), output.is_error);
            // The other calls keep going while this result commits: a
            // subagent among them may hold the store's writer mid-step.
            let content = self.result_parts(&output).await;
            let message = tool_parts_message(&call.id, &output, content);
            let mut commit = std::pin::pin!(self.commit(vec![message], None));
            loop {
                tokio::select! {
                    biased;
                    committed = &mut commit => {
                        committed?;
                        break;
                    }
                    Some(done) = running.next(), if !running.is_empty() => queued.push_back(done),
                }
            }
        }
        // Cancelled: stop the tools and subagents now, then close their calls
        // so the next turn's transcript is valid. Everything committed stays.
        drop(running);
        let mut messages = Vec::new();
        for call in &unfinished {
            self.meta.approved.remove(&call.id);
            if call.name == TASK_TOOL && !self.profile.subagents.is_empty() {
                self.sink.emit(
                    &self.profile.namespace,
                    RunEvent::SubagentFinished {
                        task_id: call.id.clone(),
                        status: RunStatus::Cancelled,
                    },
                );
            }
            self.emit_finished(call, CANCELLED_RESULT, true);
            messages.push(tool_result_message(&call.id, CANCELLED_RESULT, true));
        }
        if !messages.is_empty() {
            self.commit(messages, None).await?;
        }
        Err(Stop::Cancelled)
    }

    /// One call's work, as a future that owns what it needs: a tool call,
    /// or a `task` call's subagent.
    fn start_call(
        &self,
        call: PendingCall,
        edited: bool,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, (PendingCall, bool, Work)> {
        self.emit_started(&call);
        if call.name == TASK_TOOL
            && let Ok((skill, ask)) = task_target(&self.profile, &call.arguments)
        {
            self.sink.emit(
                &self.profile.namespace,
                RunEvent::SubagentStarted {
                    task_id: call.id.clone(),
                    skill: skill.name.clone(),
                    ask: ask.clone(),
                },
            );
            let sub = self.delegate(&call, skill, ask, cancel);
            return Box::pin(async move {
                let (end, usage) = sub.run_task().await;
                (call, edited, Work::Task(end, usage))
            });
        }
        let tool = self.profile.tools.resolve(&call.name, &call.arguments);
        let nested = Arc::new(RunNested::new(self, &call.id));
        let ctx = ToolContext {
            thread_id: self.input.thread_id.clone(),
            call_id: call.id.clone(),
            fs: Arc::clone(&self.fs),
            nested: Some(Arc::clone(&nested) as Arc<dyn pizza_tools::NestedCalls>),
        };
        Box::pin(async move {
            let result = match tool {
                Err(e) => Err(e),
                Ok(tool) => tokio::select! {
                    biased;
                    () = cancel.cancelled() => Err(ToolError::Cancelled),
                    result = tool.call(&ctx, call.arguments.clone(), cancel.clone()) => result,
                },
            };
            (call, edited, Work::Tool(result, nested.usage()))
        })
    }

    /// Whether the file a guarded call targets is as it was when the call
    /// asked. A file that cannot be read now counts as unchanged: the call
    /// then fails with that error itself.
    async fn still_as_asked(&self, asked: &AskedAgainst) -> bool {
        match file_state(self.fs.as_ref(), &asked.path).await {
            Ok(state) => state == asked.state,
            Err(_) => true,
        }
    }

    /// Pauses the run: the gated calls of this step form one interrupt,
    /// stored in the checkpoint row so it survives a restart. Each file
    /// change carries its preview, and the file's state now is kept in the
    /// step's metadata for the check when the approved call runs.
    async fn interrupt(&mut self, gated: Vec<Gated>) -> Result<Next, Stop> {
        let mut requests = Vec::with_capacity(gated.len());
        for Gated {
            call,
            description,
            changed_since_request,
        } in gated
        {
            let mut preview = None;
            if let Some(tool) = self.profile.tools.get(&call.name).cloned() {
                preview = tool.preview(self.fs.as_ref(), &call.arguments).await;
                if let Some(path) = tool.change_target(&call.arguments)
                    && let Ok(state) = file_state(self.fs.as_ref(), &path).await
                {
                    self.meta
                        .asked_against
                        .insert(call.id.clone(), AskedAgainst { path, state });
                }
            }
            let allowed = (self.profile.allowed_decisions.get(&call.name))
                .filter(|kinds| !kinds.is_empty())
                .cloned()
                .unwrap_or_else(|| DecisionKind::ALL.to_vec());
            requests.push(ApprovalRequest {
                description,
                call_id: call.id,
                tool: call.name,
                arguments: call.arguments,
                allowed,
                preview,
                changed_since_request,
                skill: self.task.as_ref().map(|t| t.skill.name.clone()),
            });
        }
        if self.task.is_some() {
            // The orchestrator raises the interrupt, once for the step.
            self.commit(Vec::new(), None).await?;
            let mut outcome = RunOutcome::new(RunStatus::Interrupted);
            outcome.interrupt = Some(Interrupt {
                interrupt_id: String::new(),
                requests,
            });
            return Ok(Next::Done(outcome));
        }
        requests.append(&mut self.paused);
        let interrupt = Interrupt {
            interrupt_id: uuid::Uuid::now_v7().to_string(),
            requests,
        };
        let value = serde_json::to_value(&interrupt).unwrap_or(Value::Null);
        self.commit(Vec::new(), Some(value)).await?;
        self.sink.emit(
            &self.profile.namespace,
            RunEvent::Interrupt {
                interrupt: interrupt.clone(),
            },
        );
        let mut outcome = RunOutcome::new(RunStatus::Interrupted);
        outcome.interrupt = Some(interrupt);
        Ok(Next::Done(outcome))
    }

    fn emit_started(&self, call: &PendingCall) {
        self.sink.emit(
            &self.profile.namespace,
            RunEvent::ToolStarted {
                call_id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            },
        );
    }

    fn emit_finished(&self, call: &PendingCall, result: &str, is_error: bool) {
        self.sink.emit(
            &self.profile.namespace,
            RunEvent::ToolFinished {
                call_id: call.id.clone(),
                name: call.name.clone(),
                result: result.to_owned(),
                is_error,
            },
        );
    }
}

/// What one started call came back with.
enum Work {
    /// A tool's result, and what subagents it ran spent.
    Tool(Result<ToolOutput, ToolError>, Usage),
    Task(TaskEnd, Usage),
}

fn error_output(text: String) -> ToolOutput {
    ToolOutput {
        is_error: true,
        ..ToolOutput::text(text)
    }
}
