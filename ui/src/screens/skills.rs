//! Skills: `SKILL.md` bundles Pizza Bot hands matching work to. The page
//! lists every skill (built-in, plugin, the person's own) as a card with its
//! switch and readiness; the editor opens on the right.

mod card;
mod editor;
mod files;
mod skill_md;
pub(crate) mod state;
mod tools;

use crate::ipc::invoke;
use leptos::prelude::*;
use pizza_protocol::{AppEvent, SkillImportChooseParams, SkillImportParams, cmd};
use state::{Editing, SkillsState, use_skills};

/// Makes the page's state and keeps it told of the host's changes, for the
/// window's lifetime.
pub(crate) fn provide_state() {
    let state = SkillsState::new();
    provide_context(state);
    crate::events::listen(AppEvent::SKILLS_CHANGED, move |_| state.changed());
}

/// Asks for a ZIP in the native dialog and imports it as the person's own.
fn import(state: SkillsState) {
    leptos::task::spawn_local(async move {
        let path = match invoke::<cmd::SkillImportChoose>(&SkillImportChooseParams {}).await {
            Ok(Some(path)) => path,
            // Cancelled: nothing to say.
            Ok(None) => return,
            Err(e) => return state.notice.set(Some((false, e.message))),
        };
        match invoke::<cmd::SkillImport>(&SkillImportParams { path }).await {
            Ok(skill) => {
                let name = skill.name.clone();
                state.notice.set(Some((
                    true,
                    format!("Imported “{}”. It is yours to edit.", skill.display_name),
                )));
                state.upsert(skill);
                state.editing.set(Some(Editing::Existing(name)));
                state.changed();
            }
            Err(e) => state.notice.set(Some((
                false,
                format!("That ZIP was not imported. {}", e.message),
            ))),
        }
    });
}

#[component]
pub(crate) fn SkillsSidebar() -> impl IntoView {
    let state = use_skills();
    view! {
        <div class="sidebar__header">
            <h2 class="sidebar__title">"Skills"</h2>
        </div>
        <div class="automations-sidebar__new">
            <button class="button button--primary" on:click=move |_| state.editing.set(Some(Editing::New))>
                "+ Skill"
            </button>
        </div>
        <ul class="list" role="list">
            {move || state.skills.get().into_iter().map(|s| {
                let name = s.name.clone();
                let active_name = s.name.clone();
                let active = move || matches!(state.editing.get(), Some(Editing::Existing(ref e)) if *e == active_name);
                view! {
                    <li>
                        <button class="list__item" class:list__item--active=active class:muted=!s.enabled
                            on:click=move |_| state.editing.set(Some(Editing::Existing(name.clone())))>
                            {if s.display_name.trim().is_empty() { s.name.clone() } else { s.display_name.clone() }}
                        </button>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}

#[component]
pub(crate) fn SkillsPane() -> impl IntoView {
    let state = use_skills();
    state.sync();
    let names = move || {
        state
            .skills
            .with(|list| list.iter().map(|s| s.name.clone()).collect::<Vec<_>>())
    };
    view! {
        <div class="automations skills" class:automations--editing=move || state.editing.get().is_some()>
            <div class="automations__main">
                <h1>"Skills"</h1>
                <p class="muted skills__intro">
                    "Pizza Bot hands work that matches a skill’s description to it, and relays what it reports."
                </p>
                <div class="skills__actions">
                    <button class="button button--primary" data-testid="skill-new"
                        on:click=move |_| state.editing.set(Some(Editing::New))>"Make a skill"</button>
                    <button class="button" data-testid="skill-import" on:click=move |_| import(state)>"Import ZIP…"</button>
                </div>
                {move || state.notice.get().map(|(ok, message)| view! {
                    <div class=if ok { "banner banner--ok" } else { "banner banner--error" }
                        role=if ok { "status" } else { "alert" } data-testid="skills-notice">
                        <span class="banner__text">{message}</span>
                        <button class="link" on:click=move |_| state.notice.set(None)>"Dismiss"</button>
                    </div>
                })}
                {move || state.error.get().map(|e| view! {
                    <div class="banner banner--error" role="alert" data-testid="skills-error" data-code=e.code.as_str()>
                        <span class="banner__text">{e.message}</span>
                        <button class="button" on:click=move |_| state.changed()>"Try again"</button>
                    </div>
                })}
                <Show
                    when=move || state.skills.with(|s| !s.is_empty())
                    fallback=move || view! {
                        <div class="empty automations__empty">
                            <p class="muted">"No skills yet. Make one to teach Pizza Bot a kind of work."</p>
                        </div>
                    }
                >
                    <ul class="skill-list" role="list" data-testid="skill-list">
                        // Keyed by name: a card keeps its error while the
                        // host re-sends the catalog.
                        <For each=names key=|name| name.clone() let:name>
                            <card::SkillCard name />
                        </For>
                    </ul>
                </Show>
            </div>
            {move || state.editing.get().map(|editing| view! {
                <aside class="automations__editor" aria-label="Skill editor">
                    {match editing {
                        Editing::New => view! { <editor::NewSkill draft=None /> }.into_any(),
                        Editing::Draft(draft) => view! { <editor::NewSkill draft=Some(draft) /> }.into_any(),
                        Editing::Existing(name) => view! { <editor::ExistingSkill name /> }.into_any(),
                    }}
                </aside>
            })}
        </div>
    }
}
