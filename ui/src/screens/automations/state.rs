//! The Automations page's state: the triggers, the automations switch and
//! listener, and what the editor has open. The shell owns it (its event
//! listeners live as long as the window); the page reads on each change.

use crate::ipc::invoke;
use crate::latest::Latest;
use leptos::prelude::*;
use pizza_protocol::{
    ApiError, Automations, AutomationsGetParams, TriggerKind, TriggerListParams, TriggerView, cmd,
};

/// What the editor shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Editing {
    New(TriggerKind),
    Existing(String),
    /// A webhook's secret, shown once after it was made or rotated.
    Secret {
        trigger: Box<TriggerView>,
        secret: String,
    },
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct AutomationsState {
    pub(crate) triggers: RwSignal<Vec<TriggerView>>,
    /// The zone a trigger without one follows.
    pub(crate) default_timezone: RwSignal<String>,
    /// `None` until read (or while the host cannot answer).
    pub(crate) automations: RwSignal<Option<Automations>>,
    pub(crate) editing: RwSignal<Option<Editing>>,
    pub(crate) error: RwSignal<Option<ApiError>>,
    /// Bumped whenever the host says triggers, automations or threads changed.
    pub(crate) revision: RwSignal<u64>,
    /// Whether the start-at-login question was already asked in this window.
    pub(crate) login_offered: RwSignal<bool>,
}

impl AutomationsState {
    pub(crate) fn new() -> Self {
        Self {
            triggers: RwSignal::new(Vec::new()),
            default_timezone: RwSignal::new(String::new()),
            automations: RwSignal::new(None),
            editing: RwSignal::new(None),
            error: RwSignal::new(None),
            revision: RwSignal::new(0),
            login_offered: RwSignal::new(false),
        }
    }

    pub(crate) fn changed(self) {
        self.revision.update(|r| *r += 1);
    }

    /// Re-reads the list and the switch on every change while the page is
    /// shown (the effect ends with the component that starts it).
    pub(crate) fn sync(self) {
        let (triggers_asked, switch_asked) = (Latest::new(), Latest::new());
        Effect::new(move |_| {
            self.revision.track();
            let ticket = triggers_asked.ask();
            leptos::task::spawn_local(async move {
                let answer = invoke::<cmd::TriggerList>(&TriggerListParams {}).await;
                if !ticket.is_newest() {
                    return;
                }
                match answer {
                    Ok(list) => {
                        self.triggers.set(list.triggers);
                        self.default_timezone.set(list.default_timezone);
                    }
                    Err(error) => self.error.set(Some(error)),
                }
                crate::snapshot::painted(crate::snapshot::Part::Automations);
            });
        });
        Effect::new(move |_| {
            self.revision.track();
            let ticket = switch_asked.ask();
            leptos::task::spawn_local(async move {
                let answer = invoke::<cmd::AutomationsGet>(&AutomationsGetParams {}).await;
                if !ticket.is_newest() {
                    return;
                }
                match answer {
                    Ok(automations) => self.automations.set(Some(automations)),
                    Err(error) => self.error.set(Some(error)),
                }
            });
        });
    }

    pub(crate) fn trigger(self, id: &str) -> Option<TriggerView> {
        self.triggers
            .with_untracked(|list| list.iter().find(|t| t.id == id).cloned())
    }

    /// Puts a trigger the host just answered with into the list, so the page
    /// shows it before the next re-read.
    pub(crate) fn upsert(self, trigger: TriggerView) {
        self.triggers
            .update(|list| match list.iter_mut().find(|t| t.id == trigger.id) {
                Some(slot) => *slot = trigger,
                None => list.push(trigger),
            });
    }
}

pub(crate) fn use_automations() -> AutomationsState {
    expect_context::<AutomationsState>()
}
