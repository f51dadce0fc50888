//! The model half of a step: build the request, stream, commit the answer.

use futures::StreamExt;
use pizza_llm::{Completion, ModelRequest, StopReason, StreamCollector, StreamEvent};
use pizza_protocol::{ContextUse, RunEvent, RunStatus};

use super::{Next, RunLoop, Stop};
use crate::agent::RunOutcome;
use crate::error::Error;
use crate::summarize;
use crate::task::LAST_CALL_NOTE;
use crate::transcript::{assistant_message, notice_message};

pub(crate) const TRUNCATED_NOTICE: &str = "The model ran out of output tokens before it wrote an \
answer. Ask again, perhaps for a shorter answer, or choose a model with a larger output limit.";
pub(crate) const EMPTY_NOTICE: &str = "The model ended its turn without an answer.";
pub(crate) const FILTERED_NOTICE: &str =
    "The provider's content filter stopped the answer before any text was written.";
pub(crate) const STOPPED_NOTICE: &str =
    "Stopped: the answer above is what was written before you stopped it.";

impl RunLoop<'_> {
    /// One model call and the commit of its answer.
    pub(super) async fn model_turn(&mut self) -> Result<Next, Stop> {
        let mounts = self.read_mounts().await;
        let mut system = self.profile.system_prompt(mounts.as_ref());
        let tool_free =
            self.meta.tool_free_next || self.profile.next_call_is_tool_free(self.meta.model_calls);
        let tools = if tool_free {
            if self.task.is_some() {
                system.push_str("\n\n");
                system.push_str(LAST_CALL_NOTE);
            }
            Vec::new()
        } else {
            self.profile.tool_specs()
        };
        let messages = summarize::prepare(self, &system, &tools).await?;
        let messages =
            crate::attachments::inline(messages, &self.input.attachments, &self.agent.store).await;
        let request = ModelRequest {
            model: self.input.model_id.clone(),
            system: Some(system),
            messages,
            tools,
            tool_choice: None,
            max_output_tokens: self.profile.max_output_tokens,
            reasoning_effort: None,
        };
        self.meta.model_calls += 1;
        let mut completion = match self.stream(request, true).await {
            Ok(completion) => completion,
            Err(Stop::Cancelled) => {
                self.keep_stopped_answer().await?;
                return Err(Stop::Cancelled);
            }
            Err(other) => return Err(other),
        };
        ensure_call_ids(&mut completion);
        let summarized = self.meta.summary.is_some();
        self.sink.emit(
            &self.profile.namespace,
            RunEvent::Usage {
                input_tokens: completion.usage.input_tokens,
                output_tokens: completion.usage.output_tokens,
                context_window: self.input.context_window,
                summarized,
            },
        );
        // Committed with the answer: a thread opened later shows its gauge.
        if self.task.is_none()
            && let Some(context_window) = self.input.context_window.filter(|w| *w > 0)
        {
            self.meta.context = Some(ContextUse {
                used_tokens: completion.usage.input_tokens + completion.usage.output_tokens,
                context_window,
                summarized,
            });
        }

        let has_text = !completion.message.text().trim().is_empty();
        let has_calls = completion.message.tool_calls().next().is_some();
        let mut messages: Vec<_> = assistant_message(&completion.message, &completion.sources)
            .into_iter()
            .collect();
        if !has_text && !has_calls {
            // Never end a turn in silence.
            let notice = match completion.stop_reason {
                StopReason::MaxTokens => TRUNCATED_NOTICE,
                StopReason::ContentFilter => FILTERED_NOTICE,
                StopReason::EndTurn | StopReason::ToolUse => EMPTY_NOTICE,
            };
            messages.push(notice_message(notice));
        }
        // A new step: its calls have not been charged yet.
        self.meta.counted.clear();
        self.commit(messages, None).await?;
        if has_calls {
            Ok(Next::Continue)
        } else {
            Ok(Next::Done(RunOutcome::new(RunStatus::Succeeded)))
        }
    }

    /// What the person saw stream before they stopped it stays in the
    /// thread, as the assistant's message marked stopped.
    async fn keep_stopped_answer(&mut self) -> Result<(), Stop> {
        let text = std::mem::take(&mut self.streamed);
        if text.trim().is_empty() {
            return Ok(());
        }
        let answer = pizza_llm::Message::assistant(text);
        let messages = assistant_message(&answer, &[])
            .into_iter()
            .chain([notice_message(STOPPED_NOTICE)])
            .collect();
        self.commit(messages, None).await
    }

    /// The mounts right now; on a failure the prompt just omits them (the
    /// filesystem refuses the same way, so the model is never misled).
    async fn read_mounts(&self) -> Option<pizza_tools::Mounts> {
        let source = self.profile.mounts.as_ref()?;
        match source.mounts().await {
            Ok(mounts) => Some(mounts),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the mounts for the system prompt");
                None
            }
        }
    }

    /// Streams one model call to its completion; `forward` sends the deltas
    /// to the sink (summary calls are silent). Cancel stops it at once.
    pub(crate) async fn stream(
        &mut self,
        request: ModelRequest,
        forward: bool,
    ) -> Result<Completion, Stop> {
        let cancel = self.cancel.child_token();
        let model = std::sync::Arc::clone(&self.input.model);
        let mut stream = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return Err(Stop::Cancelled),
            started = model.stream(request, cancel.clone()) => started.map_err(Error::from)?,
        };
        let mut collector = StreamCollector::new();
        self.streamed.clear();
        loop {
            let event = tokio::select! {
                biased;
                () = self.cancel.cancelled() => return Err(Stop::Cancelled),
                event = stream.next() => event,
            };
            let Some(event) = event else { break };
            let event = event.map_err(Error::from)?;
            if forward {
                let namespace = &self.profile.namespace;
                match &event {
                    StreamEvent::TextDelta { text } => {
                        self.streamed.push_str(text);
                        self.sink
                            .emit(namespace, RunEvent::TextDelta { text: text.clone() });
                    }
                    StreamEvent::ReasoningDelta { text } => self
                        .sink
                        .emit(namespace, RunEvent::ReasoningDelta { text: text.clone() }),
                    _ => {}
                }
            }
            collector.push(event);
        }
        let completion = collector.finish().map_err(Error::from)?;
        add_usage(&mut self.usage, &completion.usage);
        Ok(completion)
    }
}

/// Models occasionally send a call without an id; the store (and providers)
/// need one to pair the result.
fn ensure_call_ids(completion: &mut Completion) {
    for part in &mut completion.message.content {
        if let pizza_llm::ContentPart::ToolCall(call) = part
            && call.id.trim().is_empty()
        {
            call.id = format!("call_{}", uuid::Uuid::now_v7().simple());
        }
    }
}

/// Sums usage across calls (`Usage::merge` is for the events of one stream).
pub(crate) fn add_usage(total: &mut pizza_llm::Usage, call: &pizza_llm::Usage) {
    total.input_tokens += call.input_tokens;
    total.output_tokens += call.output_tokens;
    total.cache_read_tokens += call.cache_read_tokens;
    total.cache_write_tokens += call.cache_write_tokens;
    total.reasoning_tokens += call.reasoning_tokens;
}
