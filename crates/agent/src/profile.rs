//! What one run works with: its system prompt, a snapshot of its tools, its
//! limits, its namespace in the event stream, the approval policy, the clock
//! and the mounts. The host builds one per run from the settings as they are
//! when the run starts, so a changed setting applies to the next run.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;
use std::sync::Arc;

use pizza_protocol::{ApprovalPolicy, DecisionKind};
use pizza_tools::{MEMORY_PROMPT, MountSource, Mounts, ToolRegistry, grants_line};
use serde_json::Value;

use crate::task::{Subagent, UnavailableSkill, delegation_prompt, unavailable_prompt};

/// Model calls one run may make (seed §4: a runaway-call ceiling).
pub const DEFAULT_MAX_MODEL_CALLS: u32 = 40;
/// The orchestrator's tool calls per run (setting `max_tool_calls`).
pub const DEFAULT_MAX_TOOL_CALLS: i64 = 100;
/// A subagent's tool calls per invocation (setting `max_subagent_tool_calls`).
pub const DEFAULT_MAX_SUBAGENT_TOOL_CALLS: i64 = 150;
/// The longest persona addendum used; longer text is cut.
pub const PERSONA_MAX_CHARS: usize = 8_000;
/// Summarize once a request would fill this share of the context window.
pub const DEFAULT_SUMMARIZE_AT: f64 = 0.85;

/// The orchestrator's base system prompt.
pub const BASE_PROMPT: &str = "You are Pizza Bot, an assistant that works through long tasks \
for one person, who reads the results later in an inbox. Work step by step and use the tools \
when they help. The thread has its own files (absolute paths such as /notes.md): use ls, \
read_file, glob and grep to look, write_file and edit_file to change them. When a tool fails, \
read the error and correct the call. Some calls need the user's approval; if the user rejects \
one, do not retry it unchanged. Finish with a clear answer that stands on its own.";

/// Where the agent reads local time, so tests can fix it.
pub trait LocalClock: Send + Sync + Debug {
    fn now(&self) -> jiff::Zoned;
}

/// The system's time zone and wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl LocalClock for SystemClock {
    fn now(&self) -> jiff::Zoned {
        jiff::Zoned::now()
    }
}

/// Always the same instant; for tests.
#[derive(Debug, Clone)]
pub struct FixedClock(pub jiff::Zoned);

impl LocalClock for FixedClock {
    fn now(&self) -> jiff::Zoned {
        self.0.clone()
    }
}

/// The line added to every model call (never stored): local time rounded to
/// the minute, with the zone, so the model can reason about "today".
pub fn clock_line(now: &jiff::Zoned) -> String {
    let rounded = now
        .round(jiff::ZonedRound::new().smallest(jiff::Unit::Minute))
        .unwrap_or_else(|_| now.clone());
    let offset = rounded.strftime("%:z");
    let zone = match rounded.time_zone().iana_name() {
        Some(name) => format!("{name}, UTC{offset}"),
        // A bare offset zone has no name worth repeating.
        None => format!("UTC{offset}"),
    };
    format!(
        "Current local time: {} ({zone}).",
        rounded.strftime("%A %Y-%m-%d %H:%M")
    )
}

/// What the approval policy makes of one tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    Run,
    /// Wait for the person's decision.
    Ask,
    /// Not run; the model is told the person does not allow the tool.
    Refuse,
}

/// The result the model gets for a call the person's policy refuses.
pub fn refused_by_policy(tool: &str) -> String {
    format!(
        "Error: not run. The person does not allow {tool} in Settings › Approvals; do not call it \
         again, and tell them if the task needs it."
    )
}

/// One run's (or one subagent invocation's) profile.
#[derive(Debug, Clone)]
pub struct RunProfile {
    /// The tools this run offers, fixed when it starts: a tool that comes or
    /// goes later is seen by the next run.
    pub tools: ToolRegistry,
    pub max_model_calls: u32,
    /// Tool calls per run; `-1` means unlimited (the model-call ceiling still bounds a run).
    pub max_tool_calls: i64,
    /// The person's approval policy per tool name; a tool without one
    /// follows its own default ([`pizza_tools::Tool::asks_by_default`]).
    pub approval_policies: BTreeMap<String, ApprovalPolicy>,
    /// The decisions a gated call of a tool may get; a tool without an
    /// entry allows all four (a skill's `interruptOn` narrows them).
    pub allowed_decisions: BTreeMap<String, Vec<DecisionKind>>,
    /// Where this run's events go in the stream: empty for the orchestrator.
    pub namespace: Vec<String>,
    /// The last allowed model call is made without tools, so the run ends
    /// with an answer about what it did rather than one more call.
    pub last_call_tool_free: bool,
    /// The person's persona addendum to the system prompt (≤ 8,000 chars used).
    pub persona: Option<String>,
    pub base_prompt: String,
    pub clock: Arc<dyn LocalClock>,
    /// Share of the context window at which older turns are summarized.
    pub summarize_at: f64,
    /// Share of the context window the recent, unsummarized turns may keep.
    pub keep_recent: f64,
    pub max_output_tokens: Option<u32>,
    /// Granted folders and the memory folder, read at every model call and
    /// every filesystem operation. `None`: the thread's own files only.
    pub mounts: Option<Arc<dyn MountSource>>,
    /// The ready, enabled skills the `task` tool routes to, fixed when the
    /// run starts. Empty: no `task` tool and no delegation text. Always
    /// empty inside a subagent (subagents cannot delegate).
    pub subagents: Vec<Arc<Subagent>>,
    /// Enabled skills that cannot be used now, named in the prompt.
    pub unavailable_skills: Vec<UnavailableSkill>,
    /// A subagent's tool calls per invocation; `-1` means unlimited (its
    /// 40 model calls still bound it).
    pub max_subagent_tool_calls: i64,
}

impl Default for RunProfile {
    fn default() -> Self {
        Self {
            tools: ToolRegistry::with_builtins(),
            max_model_calls: DEFAULT_MAX_MODEL_CALLS,
            max_tool_calls: DEFAULT_MAX_TOOL_CALLS,
            approval_policies: BTreeMap::new(),
            allowed_decisions: BTreeMap::new(),
            namespace: Vec::new(),
            last_call_tool_free: false,
            persona: None,
            base_prompt: BASE_PROMPT.to_owned(),
            clock: Arc::new(SystemClock),
            summarize_at: DEFAULT_SUMMARIZE_AT,
            keep_recent: 0.3,
            max_output_tokens: None,
            mounts: None,
            subagents: Vec::new(),
            unavailable_skills: Vec::new(),
            max_subagent_tool_calls: DEFAULT_MAX_SUBAGENT_TOOL_CALLS,
        }
    }
}

impl RunProfile {
    /// The system prompt of one model call: base, persona, the memory
    /// addendum while memory is on, the clock line and the granted folders.
    /// The last two are transient: rebuilt per call, never stored.
    pub(crate) fn system_prompt(&self, mounts: Option<&Mounts>) -> String {
        let mut prompt = self.base_prompt.clone();
        if let Some(persona) = self.persona.as_deref().map(str::trim)
            && !persona.is_empty()
        {
            prompt.push_str("\n\n");
            prompt.extend(persona.chars().take(PERSONA_MAX_CHARS));
        }
        if let Some(relay) = delegation_prompt(&self.subagents) {
            prompt.push_str("\n\n");
            prompt.push_str(relay);
        }
        if let Some(unavailable) = unavailable_prompt(&self.unavailable_skills) {
            prompt.push_str("\n\n");
            prompt.push_str(&unavailable);
        }
        if mounts.is_some_and(|m| m.memories.is_some()) {
            prompt.push_str("\n\n");
            prompt.push_str(MEMORY_PROMPT);
        }
        prompt.push_str("\n\n");
        prompt.push_str(&clock_line(&self.clock.now()));
        if let Some(line) = mounts.and_then(|m| grants_line(&m.grants)) {
            prompt.push('\n');
            prompt.push_str(&line);
        }
        prompt
    }

    /// What happens to this call: "never" refuses it whatever else holds;
    /// a tool that must ask (a changed MCP definition) asks; a tool
    /// allowed in this thread runs; else the tool's policy, else the
    /// tool's own default.
    pub(crate) fn gate(
        &self,
        tool: &dyn pizza_tools::Tool,
        args: &Value,
        allowed_in_thread: &BTreeSet<String>,
    ) -> Gate {
        match self.approval_policies.get(tool.name()) {
            Some(ApprovalPolicy::Never) => Gate::Refuse,
            _ if tool.must_ask(args) => Gate::Ask,
            _ if allowed_in_thread.contains(tool.name()) => Gate::Run,
            Some(ApprovalPolicy::Allow) => Gate::Run,
            Some(ApprovalPolicy::Ask) => Gate::Ask,
            None if tool.asks_by_default(args) => Gate::Ask,
            None => Gate::Run,
        }
    }

    /// Whether the next model call is the run's last allowed one and must
    /// therefore be made without tools.
    pub(crate) fn next_call_is_tool_free(&self, calls_made: u32) -> bool {
        self.last_call_tool_free && calls_made + 1 >= self.max_model_calls
    }

    /// The tools one model call is offered: the run's, plus `task` while
    /// there are skills to delegate to.
    pub(crate) fn tool_specs(&self) -> Vec<pizza_llm::ToolSpec> {
        let mut specs = self.tools.specs();
        if !self.subagents.is_empty() {
            specs.push(crate::task::task_spec(&self.subagents));
        }
        specs
    }

    /// Whether `used` tool calls leave room for one more.
    pub(crate) fn tool_call_allowed(&self, used: u32) -> bool {
        self.max_tool_calls < 0 || i64::from(used) < self.max_tool_calls
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> jiff::Zoned {
        s.parse().unwrap()
    }

    #[test]
    fn clock_line_rounds_to_the_minute_and_names_the_zone() {
        assert_eq!(
            clock_line(&at("2026-03-04T09:15:31+01:00[+01:00]")),
            "Current local time: Wednesday 2026-03-04 09:16 (UTC+01:00)."
        );
        assert_eq!(
            clock_line(&at("2026-03-04T09:15:29Z[UTC]")),
            "Current local time: Wednesday 2026-03-04 09:15 (UTC, UTC+00:00)."
        );
    }

    #[test]
    fn system_prompt_has_persona_capped_and_the_clock() {
        let config = RunProfile {
            persona: Some(format!("  {}", "p".repeat(9_000))),
            clock: Arc::new(FixedClock(at("2026-03-04T09:15:00Z[UTC]"))),
            ..RunProfile::default()
        };
        let prompt = config.system_prompt(None);
        assert!(prompt.starts_with(BASE_PROMPT));
        assert_eq!(
            prompt.matches('p').count() - BASE_PROMPT.matches('p').count(),
            8_000
        );
        assert!(prompt.ends_with("09:15 (UTC, UTC+00:00)."), "{prompt}");
    }

    #[test]
    fn memory_and_grants_lines_follow_the_mounts() {
        let config = RunProfile {
            clock: Arc::new(FixedClock(at("2026-03-04T09:15:00Z[UTC]"))),
            ..RunProfile::default()
        };
        let off = config.system_prompt(Some(&Mounts::default()));
        assert!(!off.contains(MEMORY_PROMPT));
        assert!(off.ends_with("(UTC, UTC+00:00)."), "{off}");
        let on = Mounts {
            grants: vec![pizza_tools::Grant {
                id: "notes".into(),
                path: "/home/p/notes".into(),
                access: pizza_tools::Access::ReadOnly,
            }],
            memories: Some("/data/memories".into()),
        };
        let prompt = config.system_prompt(Some(&on));
        assert!(prompt.contains(MEMORY_PROMPT));
        let last = prompt.lines().last().unwrap_or_default();
        assert_eq!(Some(last.to_owned()), grants_line(&on.grants));
        assert!(last.contains("/local/notes/"), "{last}");
    }

    #[test]
    fn never_beats_a_thread_allowance_which_beats_ask() {
        let tools = ToolRegistry::with_builtins();
        let write = tools.get("write_file").unwrap();
        let local = serde_json::json!({"file_path": "/local/n/a.md", "content": ""});
        let own = serde_json::json!({"file_path": "/a.md", "content": ""});
        let none = BTreeSet::new();
        let thread: BTreeSet<String> = ["write_file".to_owned()].into();
        let with = |policy: Option<ApprovalPolicy>| RunProfile {
            approval_policies: policy
                .map(|p| [("write_file".to_owned(), p)].into())
                .unwrap_or_default(),
            ..RunProfile::default()
        };
        let cases = [
            (None, &local, &none, Gate::Ask),
            (None, &own, &none, Gate::Run),
            (None, &local, &thread, Gate::Run),
            (Some(ApprovalPolicy::Ask), &own, &none, Gate::Ask),
            (Some(ApprovalPolicy::Ask), &own, &thread, Gate::Run),
            (Some(ApprovalPolicy::Allow), &local, &none, Gate::Run),
            (Some(ApprovalPolicy::Never), &own, &thread, Gate::Refuse),
        ];
        for (policy, args, allowed, gate) in cases {
            assert_eq!(
                with(policy).gate(write.as_ref(), args, allowed),
                gate,
                "{policy:?} {args} {allowed:?}"
            );
        }
    }

    #[test]
    fn minus_one_means_unlimited_tool_calls() {
        let mut config = RunProfile::default();
        assert!(config.tool_call_allowed(99));
        assert!(!config.tool_call_allowed(100));
        config.max_tool_calls = -1;
        assert!(config.tool_call_allowed(u32::MAX));
    }
}
