//! The subagents behind a page's `task` calls, read back for their cards:
//! a thread opened later shows what each delegation did, not only its report.

use pizza_protocol::{DelegatedCall, DelegationView, MessagePart};
use pizza_store as store;

/// The agent's delegation tool.
const TASK_TOOL: &str = "task";

/// The delegations of `messages` (a page of the thread) that have started.
pub(super) async fn delegations(
    store: &store::Store,
    thread_id: &str,
    messages: &[store::Message],
) -> store::Result<Vec<DelegationView>> {
    let mut views = Vec::new();
    for message in messages {
        for part in &message.content {
            let store::Part::ToolCall { id, name, .. } = part else {
                continue;
            };
            if name != TASK_TOOL {
                continue;
            }
            if let Some(task) = store.task(thread_id, id).await? {
                views.push(view(task));
            }
        }
    }
    Ok(views)
}

fn view(task: store::TaskState) -> DelegationView {
    let mut tool_calls: Vec<DelegatedCall> = Vec::new();
    for message in &task.messages {
        for part in store::transcript::view(message).parts {
            match part {
                MessagePart::ToolCall {
                    id,
                    name,
                    arguments,
                } => tool_calls.push(DelegatedCall {
                    call_id: id,
                    name,
                    arguments,
                    result: None,
                    is_error: false,
                }),
                MessagePart::ToolResult {
                    call_id,
                    content,
                    is_error,
                } => {
                    if let Some(call) = tool_calls.iter_mut().find(|c| c.call_id == call_id) {
                        call.result = Some(content);
                        call.is_error = is_error;
                    }
                }
                _ => {}
            }
        }
    }
    DelegationView {
        task_id: task.task_id,
        skill: task.skill,
        tool_calls,
    }
}
