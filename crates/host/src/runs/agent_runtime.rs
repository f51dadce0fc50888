//! Every call into `pizza_agent`, in one place: the run's profile, applying
//! decisions, and driving the run. The profile is built from the settings
//! as they are at each run's start ([`AgentRuntime::for_run`]), so a changed
//! setting applies to the next run without restarting the app.

use std::sync::Arc;

use pizza_agent::{
    AWAITING_DECISION, Agent, CancellationToken, EventSink, OpenedTurn, PreparedDecisions,
    RunInput, RunOutcome, RunProfile,
};
use pizza_protocol::{ApiError, ErrorCode, ErrorReason, InterruptResponse, RememberScope};
use pizza_store as store;
use pizza_tools::{MountSource, ToolRegistry};

use super::model::ResolvedModel;
use crate::approvals::{ApprovalService, effective_policies};
use crate::settings::keys;
use crate::skills::SkillService;

/// What every run shares: the one agent (whose claims make a decision apply
/// exactly once, whichever run answers it), the tools, the granted folders.
#[derive(Debug)]
pub(crate) struct AgentRuntime {
    store: store::Store,
    agent: Arc<Agent>,
    tools: ToolRegistry,
    mounts: Arc<dyn MountSource>,
    approvals: Arc<ApprovalService>,
    skills: Arc<SkillService>,
}

impl AgentRuntime {
    pub(crate) fn new(
        store: store::Store,
        mounts: Arc<dyn MountSource>,
        tools: ToolRegistry,
        approvals: Arc<ApprovalService>,
        skills: Arc<SkillService>,
    ) -> Self {
        Self {
            skills,
            agent: Arc::new(Agent::new(store.clone())),
            store,
            tools,
            mounts,
            approvals,
        }
    }

    /// The agent for one run, with a profile from the settings as they are now.
    pub(crate) async fn for_run(&self) -> RunAgent {
        RunAgent {
            agent: Arc::clone(&self.agent),
            profile: Arc::new(self.profile().await),
            approvals: Arc::clone(&self.approvals),
        }
    }

    /// The run's profile; a missing or unreadable setting keeps its default.
    async fn profile(&self) -> RunProfile {
        // The skills as they are now; a change later reaches the next run.
        let (subagents, unavailable_skills) = self.skills.roster();
        let mut profile = RunProfile {
            tools: self.tools.clone(),
            mounts: Some(Arc::clone(&self.mounts)),
            subagents,
            unavailable_skills,
            ..RunProfile::default()
        };
        let store = &self.store;
        let (max_key, persona_key) = (keys::AGENT_MAX_TOOL_CALLS, keys::AGENT_PERSONA);
        let subagent_max_key = keys::AGENT_MAX_SUBAGENT_TOOL_CALLS;
        let (max_tool_calls, max_subagent_tool_calls, policies, persona) = tokio::join!(
            max_key.read(store),
            subagent_max_key.read(store),
            effective_policies(store),
            persona_key.read(store),
        );
        if let Ok(Some(max)) = max_tool_calls {
            profile.max_tool_calls = max;
        }
        if let Ok(Some(max)) = max_subagent_tool_calls {
            profile.max_subagent_tool_calls = max;
        }
        match policies {
            Ok(policies) => profile.approval_policies = policies,
            // Unreadable policies must not let a call run that the person
            // may have said "never" or "ask" to: every call asks.
            Err(error) => {
                tracing::warn!(%error, "could not read the approval policies; every call asks");
                profile.approval_policies = self
                    .tools
                    .names()
                    .map(|name| (name.to_owned(), pizza_protocol::ApprovalPolicy::Ask))
                    .collect();
            }
        }
        if let Ok(Some(persona)) = persona {
            profile.persona = Some(persona);
        }
        profile
    }
}

/// One run's agent: the shared agent and this run's profile.
#[derive(Debug)]
pub(crate) struct RunAgent {
    agent: Arc<Agent>,
    profile: Arc<RunProfile>,
    approvals: Arc<ApprovalService>,
}

impl RunAgent {
    /// Validates the user's decisions for the pending interrupt (of the run
    /// `paused_run`) and prepares the step that answers it, for the store
    /// to commit with the run that continues.
    pub(crate) async fn prepare_decisions(
        &self,
        thread_id: &str,
        paused_run: &str,
        response: InterruptResponse,
    ) -> Result<PreparedDecisions, ApiError> {
        self.agent
            .prepare_decisions(thread_id, paused_run, response, &self.profile.tools)
            .await
            .map_err(|e| e.to_api_error())
    }

    /// Records the policies approvals asked to remember ("Allow for this
    /// thread", "Always allow") once their decisions are committed: the
    /// next run obeys them.
    pub(crate) async fn remember(&self, thread_id: &str, remember: Vec<(String, RememberScope)>) {
        for (tool, scope) in remember {
            // The call itself is approved either way; only the shortcut
            // for later calls is lost, and the next call asks again.
            if let Err(error) = self.approvals.remember(thread_id, &tool, scope).await {
                tracing::warn!(%error, tool, ?scope, "could not record an approval policy");
            }
        }
    }

    /// Prepares the step that opens a turn with the person's message, for
    /// the store to commit with the run. `CONFLICT` (reason
    /// `awaiting_decision`) while a decision is pending.
    pub(crate) async fn open_turn(
        &self,
        thread_id: &str,
        text: &str,
        attachments: &[pizza_store::AttachmentRef],
    ) -> Result<OpenedTurn, ApiError> {
        self.agent
            .open_turn(thread_id, text, attachments)
            .await
            .map_err(|e| match e {
                pizza_agent::Error::Conflict(_) => awaiting_decision(),
                other => other.to_api_error(),
            })
    }

    /// Drives the run from the thread's last checkpoint (its opening step,
    /// the decisions, or where a stopped run left off) to its end.
    pub(crate) async fn drive(
        &self,
        thread_id: &str,
        run_id: &str,
        model: &ResolvedModel,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> RunOutcome {
        let input = RunInput {
            thread_id: thread_id.to_owned(),
            run_id: run_id.to_owned(),
            model: Arc::clone(&model.client),
            model_id: model.model_id.clone(),
            context_window: model.context_window,
            attachments: model.attachments.clone(),
            new_user_text: None,
            profile: Arc::clone(&self.profile),
        };
        self.agent.resume(input, sink, cancel).await
    }
}

/// The refusal of a message while the thread waits for a decision.
pub(crate) fn awaiting_decision() -> ApiError {
    let mut error = ApiError::new(ErrorCode::Conflict, AWAITING_DECISION);
    error.reason = Some(ErrorReason::AwaitingDecision);
    error
}
