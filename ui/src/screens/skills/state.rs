//! The Skills page's state: the catalog and what the editor has open. The
//! shell owns it (its `skills_changed` listener lives as long as the
//! window); the page re-reads the catalog on each change while it is shown.

use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{ApiError, McpSkillDraft, SkillListParams, SkillView, cmd};

/// What the editor shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Editing {
    New,
    /// A new skill prefilled from a draft (an MCP server's "Make a skill").
    Draft(McpSkillDraft),
    Existing(String),
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct SkillsState {
    pub(crate) skills: RwSignal<Vec<SkillView>>,
    pub(crate) editing: RwSignal<Option<Editing>>,
    /// The catalog could not be read.
    pub(crate) error: RwSignal<Option<ApiError>>,
    /// A sentence about the last import, reset or delete: (went well, text).
    pub(crate) notice: RwSignal<Option<(bool, String)>>,
    /// Bumped whenever the host says the catalog changed.
    pub(crate) revision: RwSignal<u64>,
}

impl SkillsState {
    pub(crate) fn new() -> Self {
        Self {
            skills: RwSignal::new(Vec::new()),
            editing: RwSignal::new(None),
            error: RwSignal::new(None),
            notice: RwSignal::new(None),
            revision: RwSignal::new(0),
        }
    }

    pub(crate) fn changed(self) {
        self.revision.update(|r| *r += 1);
    }

    /// Re-reads the catalog on every change while the page is shown (the
    /// effect ends with the component that starts it).
    pub(crate) fn sync(self) {
        let asked = Latest::new();
        Effect::new(move |_| {
            self.revision.track();
            let ticket = asked.ask();
            leptos::task::spawn_local(async move {
                let answer = invoke::<cmd::SkillList>(&SkillListParams {}).await;
                if !ticket.is_newest() {
                    return;
                }
                match answer {
                    Ok(list) => {
                        self.skills.set(list.skills);
                        self.error.set(None);
                    }
                    Err(error) => self.error.set(Some(error)),
                }
                crate::snapshot::painted(crate::snapshot::Part::Skills);
            });
        });
    }

    /// Puts a skill the host just answered with into the list, so the page
    /// shows it before the next re-read.
    pub(crate) fn upsert(self, skill: SkillView) {
        self.skills.update(
            |list| match list.iter_mut().find(|s| s.name == skill.name) {
                Some(slot) => *slot = skill,
                None => list.push(skill),
            },
        );
    }
}

pub(crate) fn use_skills() -> SkillsState {
    expect_context::<SkillsState>()
}
