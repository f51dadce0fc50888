//! One skill on the Skills page: its name and description, where it comes
//! from, whether it can be used (a dot and a sentence), its switch and Edit.

use super::state::{Editing, use_skills};
use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{SkillReadinessState, SkillSetEnabledParams, SkillSourceKind, SkillView, cmd};

/// The source badge's words.
pub(crate) fn source_label(skill: &SkillView) -> &'static str {
    match (skill.source, skill.overridden) {
        (SkillSourceKind::Builtin, _) => "Built-in",
        (SkillSourceKind::Plugin, _) => "Plugin",
        (SkillSourceKind::User, true) => "Yours · overrides built-in",
        (SkillSourceKind::User, false) => "Yours",
    }
}

/// Readiness as the dot's class and one sentence.
pub(crate) fn readiness_sentence(skill: &SkillView) -> (&'static str, String) {
    match skill.readiness.state {
        SkillReadinessState::Ready => ("ready", String::from("Ready to use.")),
        SkillReadinessState::Loading => ("degraded", String::from("Getting ready…")),
        SkillReadinessState::Unavailable => {
            let reasons: Vec<String> = skill
                .readiness
                .reasons
                .iter()
                .map(|r| r.trim().trim_end_matches('.').to_owned())
                .filter(|r| !r.is_empty())
                .collect();
            let sentence = if reasons.is_empty() {
                String::from("Unavailable.")
            } else {
                format!("Unavailable: {}.", reasons.join("; "))
            };
            ("error", sentence)
        }
    }
}

#[component]
pub(crate) fn SkillCard(name: String) -> impl IntoView {
    let state = use_skills();
    let lookup = name.clone();
    let skill = crate::leaving::memo(move |_| {
        state
            .skills
            .with(|list| list.iter().find(|s| s.name == lookup).cloned())
    });
    let card_error = RwSignal::new(None::<String>);
    let set_enabled = {
        let name = name.clone();
        move |enabled: bool| {
            let params = SkillSetEnabledParams {
                name: name.clone(),
                enabled,
            };
            leptos::task::spawn_local(async move {
                match invoke::<cmd::SkillSetEnabled>(&params).await {
                    Ok(view) => {
                        state.upsert(view);
                        card_error.set(None);
                    }
                    Err(e) => {
                        state.changed();
                        card_error.set(Some(e.message));
                    }
                }
            });
        }
    };
    let editing_me = {
        let name = name.clone();
        move || matches!(state.editing.get(), Some(Editing::Existing(ref e)) if *e == name)
    };
    let body = move |s: SkillView| {
        let set_enabled = set_enabled.clone();
        let (dot, sentence) = readiness_sentence(&s);
        let edit_name = s.name.clone();
        let title = if s.display_name.trim().is_empty() {
            s.name.clone()
        } else {
            s.display_name.clone()
        };
        view! {
            <div class="skill__head">
                <div class="skill__main">
                    <button class="skill__name link" data-testid=format!("skill-open-{}", s.name)
                        title="Edit this skill"
                        on:click=move |_| state.editing.set(Some(Editing::Existing(edit_name.clone())))>
                        {title}
                    </button>
                    <span class="skill__id muted mono">{s.name.clone()}</span>
                    <span class="badge skill__source" data-testid=format!("skill-source-{}", s.name)
                        data-source=match s.source {
                            SkillSourceKind::Builtin => "builtin",
                            SkillSourceKind::Plugin => "plugin",
                            SkillSourceKind::User => "user",
                        }>{source_label(&s)}</span>
                </div>
                <label class="toggle skill__switch" title="Let Pizza Bot use this skill">
                    <input type="checkbox" role="switch" data-testid=format!("skill-enabled-{}", s.name)
                        prop:checked=s.enabled
                        aria-label=format!("Use {}", s.name)
                        on:change=move |ev| set_enabled(event_target_checked(&ev)) />
                    <span class="muted">{if s.enabled { "On" } else { "Off" }}</span>
                </label>
            </div>
            <p class="skill__description">{s.description.clone()}</p>
            <p class="skill__readiness" data-testid=format!("skill-readiness-{}", s.name)
                data-state=match s.readiness.state {
                    SkillReadinessState::Ready => "ready",
                    SkillReadinessState::Loading => "loading",
                    SkillReadinessState::Unavailable => "unavailable",
                }>
                <span class=format!("status-dot status-dot--{dot}") aria-hidden="true"></span>
                {sentence}
            </p>
        }
    };
    view! {
        <li class="skill" class:skill--off=move || skill.get().is_some_and(|s| !s.enabled)
            class:skill--active=editing_me
            data-testid=format!("skill-card-{name}") data-skill=name.clone()>
            {move || skill.get().map(body.clone())}
            {move || card_error.get().map(|m| view! {
                <p class="banner banner--error" role="alert" data-testid="skill-card-error">{m}</p>
            })}
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_protocol::SkillReadiness;
    use pretty_assertions::assert_eq;

    fn skill(source: SkillSourceKind, overridden: bool, readiness: SkillReadiness) -> SkillView {
        SkillView {
            name: "trip-planner".into(),
            display_name: "Trip planner".into(),
            description: "Plans trips.".into(),
            source,
            overridden,
            enabled: true,
            readiness,
        }
    }

    #[test]
    fn badges_and_readiness_read_as_words() {
        let ready = SkillReadiness {
            state: SkillReadinessState::Ready,
            reasons: Vec::new(),
        };
        assert_eq!(
            source_label(&skill(SkillSourceKind::Builtin, false, ready.clone())),
            "Built-in"
        );
        assert_eq!(
            source_label(&skill(SkillSourceKind::User, true, ready.clone())),
            "Yours · overrides built-in"
        );
        assert_eq!(
            source_label(&skill(SkillSourceKind::User, false, ready.clone())),
            "Yours"
        );
        assert_eq!(
            readiness_sentence(&skill(SkillSourceKind::User, false, ready)),
            ("ready", "Ready to use.".to_owned())
        );
        let unavailable = SkillReadiness {
            state: SkillReadinessState::Unavailable,
            reasons: vec![
                "MCP server files is not configured".into(),
                "tools: bad ref.".into(),
            ],
        };
        assert_eq!(
            readiness_sentence(&skill(SkillSourceKind::User, false, unavailable)),
            (
                "error",
                "Unavailable: MCP server files is not configured; tools: bad ref.".to_owned()
            )
        );
    }
}
