//! The roster: each ready, enabled skill compiled into the subagent the
//! `task` tool routes to, and the enabled skills that cannot be used now.
//! Compiled once per catalog change, so a run start only clones `Arc`s.

use std::collections::BTreeMap;
use std::sync::Arc;

use pizza_agent::{Subagent, UnavailableSkill};
use pizza_extensions::{
    Catalog, Decision, FILESYSTEM_TOOLS, Readiness, Resolution, SkillBundle, ToolResolver,
};
use pizza_protocol::DecisionKind;
use pizza_tools::ToolRegistry;

/// What a run's profile gets of the skills: fixed when the run starts.
#[derive(Debug, Clone, Default)]
pub(crate) struct Roster {
    pub(crate) subagents: Vec<Arc<Subagent>>,
    pub(crate) unavailable: Vec<UnavailableSkill>,
}

impl Roster {
    /// Compiles the catalog's ready, enabled skills against the host's tools.
    pub(crate) fn compile(
        catalog: &Catalog,
        resolver: &dyn ToolResolver,
        host_tools: &ToolRegistry,
    ) -> Self {
        let subagents = catalog
            .ready_skills(resolver)
            .iter()
            .map(|bundle| Arc::new(compile_skill(bundle, resolver, host_tools)))
            .collect();
        let unavailable = catalog
            .unready_skills(resolver)
            .into_iter()
            .map(|(name, readiness)| UnavailableSkill {
                name,
                reasons: match readiness {
                    Readiness::Unavailable { reasons } => reasons,
                    Readiness::Loading => vec!["its tools are still loading".to_owned()],
                    Readiness::Ready => Vec::new(),
                },
            })
            .collect();
        Self {
            subagents,
            unavailable,
        }
    }
}

/// One skill as a subagent: its body is the system prompt; its tools are
/// the filesystem tools plus every declared ref the host has.
pub(crate) fn compile_skill(
    bundle: &SkillBundle,
    resolver: &dyn ToolResolver,
    host_tools: &ToolRegistry,
) -> Subagent {
    let manifest = &bundle.manifest;
    let mut tools = ToolRegistry::new();
    let declared = manifest
        .tools
        .iter()
        .flat_map(|tool_ref| resolved(resolver, tool_ref));
    for name in FILESYSTEM_TOOLS
        .iter()
        .map(|name| (*name).to_owned())
        .chain(declared)
    {
        if let Some(tool) = host_tools.get(&name) {
            tools.register(Arc::clone(tool));
        }
    }
    let mut interrupt_on = BTreeMap::new();
    for rule in &manifest.interrupt_on {
        let allowed: Vec<DecisionKind> = rule
            .allowed_decisions
            .iter()
            .copied()
            .map(decision_kind)
            .collect();
        for name in resolved(resolver, &rule.tool) {
            interrupt_on.insert(name, allowed.clone());
        }
    }
    Subagent {
        name: manifest.name.clone(),
        description: manifest.description.clone(),
        system_prompt: manifest.body.clone(),
        tools,
        interrupt_on,
        files: bundle
            .files
            .iter()
            .map(|file| (file.path.clone(), file.bytes.clone()))
            .collect(),
    }
}

/// The concrete tool names a ref means now; none when it cannot be used.
fn resolved(resolver: &dyn ToolResolver, tool_ref: &pizza_extensions::ToolRef) -> Vec<String> {
    match resolver.resolve(tool_ref) {
        Resolution::Ready(names) => names,
        Resolution::Loading | Resolution::Unavailable(_) => Vec::new(),
    }
}

pub(crate) fn decision_kind(decision: Decision) -> DecisionKind {
    match decision {
        Decision::Approve => DecisionKind::Approve,
        Decision::Edit => DecisionKind::Edit,
        Decision::Reject => DecisionKind::Reject,
        Decision::Respond => DecisionKind::Respond,
    }
}

#[cfg(test)]
#[path = "roster_tests.rs"]
mod tests;
