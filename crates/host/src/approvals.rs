//! Settings › Approvals and what the approval card remembers: each tool's
//! policy (a settings key, read by every run at its start) and the
//! per-thread allowances (a store table, read by the agent at each run's
//! start). Nothing here is cached, so a change applies to the next run.

use std::collections::BTreeMap;
use std::sync::Arc;

use pizza_protocol::{
    ApiError, ApprovalList, ApprovalListParams, ApprovalPolicy, ApprovalResetParams,
    ApprovalSetParams, RememberScope, ToolApproval,
};
use pizza_store::Store;
use pizza_tools::{Tool, ToolRegistry};
use serde_json::json;

use crate::settings::keys;
use crate::{Host, HostError};

fn store_err(err: pizza_store::Error) -> ApiError {
    HostError::from(err).into()
}

/// The policies a run obeys: the ones set, and each tool the older
/// "require approval" list names as "ask" unless it has its own.
pub(crate) async fn effective_policies(
    store: &Store,
) -> pizza_store::Result<BTreeMap<String, ApprovalPolicy>> {
    let (set_key, legacy_key) = (keys::APPROVAL_POLICIES, keys::AGENT_REQUIRE_APPROVAL);
    let (set, legacy) = tokio::join!(set_key.read(store), legacy_key.read(store));
    let mut policies = set?.unwrap_or_default();
    for tool in legacy?.unwrap_or_default() {
        policies.entry(tool).or_insert(ApprovalPolicy::Ask);
    }
    Ok(policies)
}

/// One sentence on what a tool does without a policy.
fn default_sentence(tool: &dyn Tool) -> &'static str {
    let outside = tool.asks_by_default(&json!({"file_path": "/local/folder/file"}));
    let inside = tool.asks_by_default(&json!({"file_path": "/file"}));
    match (outside, inside) {
        (true, false) => {
            "Asks for changes in granted folders (/local/) and memories (/memories/); runs for \
             the thread's own files."
        }
        (true, true) => "Asks every time.",
        _ => "Runs without asking.",
    }
}

/// The approval policies and allowances.
#[derive(Debug)]
pub(crate) struct ApprovalService {
    store: Store,
    /// The tools a run offers, for the list and to refuse unknown names.
    tools: ToolRegistry,
    /// Policy changes read, change and write the whole map: one at a time.
    writes: tokio::sync::Mutex<()>,
}

impl ApprovalService {
    pub(crate) fn new(store: Store, tools: ToolRegistry) -> Arc<Self> {
        Arc::new(Self {
            store,
            tools,
            writes: tokio::sync::Mutex::new(()),
        })
    }

    pub(crate) async fn list(&self, _params: ApprovalListParams) -> Result<ApprovalList, ApiError> {
        let policies = effective_policies(&self.store).await.map_err(store_err)?;
        let tools = self
            .tools
            .names()
            .filter_map(|name| self.tools.get(name))
            .map(|tool| ToolApproval {
                tool: tool.name().to_owned(),
                description: tool.description().to_owned(),
                policy: policies.get(tool.name()).copied(),
                default: default_sentence(tool.as_ref()).to_owned(),
            })
            .collect();
        Ok(ApprovalList { tools })
    }

    pub(crate) async fn set(&self, params: ApprovalSetParams) -> Result<ApprovalList, ApiError> {
        if self.tools.get(&params.tool).is_none() {
            return Err(ApiError::invalid_input(format!(
                "There is no tool named {:?}; pick one from the list.",
                params.tool
            )));
        }
        self.write_policy(&params.tool, params.policy)
            .await
            .map_err(store_err)?;
        self.list(ApprovalListParams {}).await
    }

    /// Back to the defaults: no policy, no thread allowance.
    pub(crate) async fn reset(
        &self,
        _params: ApprovalResetParams,
    ) -> Result<ApprovalList, ApiError> {
        let _one_at_a_time = self.writes.lock().await;
        let store = &self.store;
        keys::APPROVAL_POLICIES
            .delete(store)
            .await
            .map_err(store_err)?;
        keys::AGENT_REQUIRE_APPROVAL
            .delete(store)
            .await
            .map_err(store_err)?;
        store.clear_tool_allowances().await.map_err(store_err)?;
        self.list(ApprovalListParams {}).await
    }

    /// Records what an approval asked to remember.
    pub(crate) async fn remember(
        &self,
        thread_id: &str,
        tool: &str,
        scope: RememberScope,
    ) -> pizza_store::Result<()> {
        match scope {
            RememberScope::Thread => self.store.allow_tool_in_thread(thread_id, tool).await,
            RememberScope::Always => self.write_policy(tool, Some(ApprovalPolicy::Allow)).await,
        }
    }

    /// Sets one tool's policy, folding the older list in first so it stops
    /// speaking for tools the person has now decided on.
    async fn write_policy(
        &self,
        tool: &str,
        policy: Option<ApprovalPolicy>,
    ) -> pizza_store::Result<()> {
        let _one_at_a_time = self.writes.lock().await;
        let mut policies = effective_policies(&self.store).await?;
        match policy {
            Some(policy) => policies.insert(tool.to_owned(), policy),
            None => policies.remove(tool),
        };
        keys::APPROVAL_POLICIES
            .write(&self.store, &policies)
            .await?;
        keys::AGENT_REQUIRE_APPROVAL.delete(&self.store).await
    }
}

/// The approval commands: thin calls of the service.
impl Host {
    pub async fn approval_list(
        &self,
        params: ApprovalListParams,
    ) -> Result<ApprovalList, ApiError> {
        self.inner.approvals.list(params).await
    }

    pub async fn approval_set(&self, params: ApprovalSetParams) -> Result<ApprovalList, ApiError> {
        self.inner.approvals.set(params).await
    }

    pub async fn approval_reset(
        &self,
        params: ApprovalResetParams,
    ) -> Result<ApprovalList, ApiError> {
        self.inner.approvals.reset(params).await
    }
}

#[cfg(test)]
#[path = "approvals_tests.rs"]
mod tests;
