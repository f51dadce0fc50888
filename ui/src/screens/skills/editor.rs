//! The skill editor: name, display name, description (with its counter),
//! tools, the instructions and the sibling files; Save writes `SKILL.md`
//! from them. A `SKILL.md` that does not parse opens as its raw text and is
//! saved as typed. Reset to built-in drops an override; Delete asks first.

use super::files::{FileDrafts, SiblingFiles};
use super::skill_md::{KeptFrontMatter, SkillDraft, compose, field_of};
use super::state::{Editing, SkillsState, use_skills};
use super::tools::{ToolPicks, ToolsPicker};
use crate::ipc::invoke;
use crate::screens::inbox::state::{ConfirmRequest, Inbox};
use leptos::prelude::*;
use pizza_protocol::{
    McpSkillDraft, SkillDetail, SkillNameParams, SkillSaveParams, SkillSourceKind, SkillView, cmd,
};

/// The most characters a description may have (the host refuses more).
const DESCRIPTION_MAX_CHARS: usize = 1024;

/// A new skill, empty or prefilled from `draft`; it is written only when
/// the person saves it.
#[component]
pub(crate) fn NewSkill(draft: Option<McpSkillDraft>) -> impl IntoView {
    view! { <SkillForm detail=None draft /> }
}

#[component]
pub(crate) fn ExistingSkill(name: String) -> impl IntoView {
    let detail = RwSignal::new(None::<Result<SkillDetail, String>>);
    let params = SkillNameParams { name };
    leptos::task::spawn_local(async move {
        let answer = invoke::<cmd::SkillGet>(&params).await;
        // The editor may have closed meanwhile.
        let _ = detail.try_set(Some(answer.map_err(|e| e.message)));
    });
    move || {
        match detail.get() {
        None => view! { <p class="muted" data-testid="skill-editor-loading">"Loading…"</p> }.into_any(),
        Some(Err(message)) => view! {
            <p class="banner banner--error" role="alert" data-testid="skill-editor-error">{message}</p>
        }
        .into_any(),
        Some(Ok(detail)) => view! { <SkillForm detail=Some(detail) draft=None /> }.into_any(),
    }
    }
}

/// A refused save: the field it names (when it names one of the form's) and
/// the host's sentence.
type SaveError = (Option<&'static str>, String);

#[component]
fn SkillForm(detail: Option<SkillDetail>, draft: Option<McpSkillDraft>) -> impl IntoView {
    let state = use_skills();
    let inbox = expect_context::<Inbox>();
    let existing: Option<SkillView> = detail.as_ref().map(|d| d.skill.clone());
    let is_new = existing.is_none();
    // `None` from the host: the file does not parse, so it is edited as text.
    let (draft_name, draft_fields) = draft.map(|d| (d.name, d.fields)).unzip();
    let fields = match &detail {
        None => Some(draft_fields.unwrap_or_default()),
        Some(d) => d.fields.clone(),
    };
    let raw_mode = fields.is_none();
    let fields = fields.unwrap_or_default();
    let source = existing.as_ref().map(|s| s.source);
    let overridden = existing.as_ref().is_some_and(|s| s.overridden);
    let reasons = existing
        .as_ref()
        .map(|s| s.readiness.reasons.join("; "))
        .unwrap_or_default();

    let name = RwSignal::new(
        existing
            .as_ref()
            .map(|s| s.name.clone())
            .or(draft_name)
            .unwrap_or_default(),
    );
    let display_name = RwSignal::new(fields.display_name);
    let description = RwSignal::new(fields.description);
    let body = RwSignal::new(fields.body);
    let raw = RwSignal::new(
        detail
            .as_ref()
            .map(|d| d.skill_md.clone())
            .unwrap_or_default(),
    );
    let kept = StoredValue::new(
        detail
            .as_ref()
            .map(|d| KeptFrontMatter::of(&d.skill_md))
            .unwrap_or_default(),
    );
    let picks = ToolPicks::new(fields.tools, fields.interrupt_on);
    let files = FileDrafts::new(detail.map(|d| d.files).unwrap_or_default());
    let error = RwSignal::new(None::<SaveError>);
    let saved = RwSignal::new(false);
    let saving = RwSignal::new(false);
    let invalid = move |field: &'static str| {
        error.with(|e| e.as_ref().is_some_and(|(f, _)| *f == Some(field)))
    };
    let edited = move || {
        saved.set(false);
    };

    // A new skill starts at its name; an existing one at its display name.
    let name_input = NodeRef::<leptos::html::Input>::new();
    let first_input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        let target = if is_new {
            name_input.get()
        } else {
            first_input.get()
        };
        if let Some(input) = target {
            let _ = input.focus();
        }
    });

    let save = move || {
        if saving.get_untracked() {
            return;
        }
        let skill_md = if raw_mode {
            raw.get_untracked()
        } else {
            compose(&SkillDraft {
                name: name.get_untracked(),
                display_name: display_name.get_untracked(),
                description: description.get_untracked(),
                tools: picks.tools.get_untracked(),
                interrupt_on: picks.asks.get_untracked(),
                body: body.get_untracked(),
                kept: kept.get_value(),
            })
        };
        let params = SkillSaveParams {
            name: name.get_untracked().trim().to_owned(),
            skill_md,
            files: files.to_save(),
        };
        // A new skill, a first override or a repaired file: reopen it as the
        // host now has it, so the form shows its fields and buttons.
        let reopen = is_new || raw_mode || source != Some(SkillSourceKind::User);
        saving.set(true);
        leptos::task::spawn_local(async move {
            match invoke::<cmd::SkillSave>(&params).await {
                Ok(view) => {
                    let name = view.name.clone();
                    state.upsert(view);
                    state.changed();
                    if reopen {
                        state.editing.set(Some(Editing::Existing(name)));
                    } else {
                        let _ = error.try_set(None);
                        let _ = saved.try_set(true);
                    }
                }
                Err(e) => {
                    let _ = error.try_set(Some((field_of(&e.message), e.message)));
                }
            }
            let _ = saving.try_set(false);
        });
    };
    let save = StoredValue::new(save);
    let close = move || state.editing.set(None);

    let title = match (is_new, source, overridden) {
        (true, ..) => "New skill",
        (false, Some(SkillSourceKind::User), true) => "Edit your copy",
        (false, Some(SkillSourceKind::User), false) => "Edit skill",
        (false, ..) => "Edit built-in skill",
    };
    let copy_hint = (!is_new && source != Some(SkillSourceKind::User)).then(|| view! {
        <p class="hint muted skill-editor__copy">
            "Saving makes your own copy. The shipped skill stays as it is and comes back when you reset."
        </p>
    });
    let skill_name = move || name.get_untracked();

    let fields_view = (!raw_mode).then(|| view! {
        <div class="field">
            <label class="field__label" for="skill-display-name">"Display name"</label>
            <input id="skill-display-name" class="input" data-testid="skill-display-name" node_ref=first_input
                placeholder="Trip planner" aria-invalid=move || invalid("display-name")
                prop:value=move || display_name.get()
                on:input=move |ev| { display_name.set(event_target_value(&ev)); edited() } />
        </div>
        <div class="field">
            <label class="field__label" for="skill-description">"Description"</label>
            <textarea id="skill-description" class="input input--multiline" rows="3" data-testid="skill-description"
                placeholder="Use when the person asks to plan a trip. Returns a day-by-day itinerary."
                aria-describedby="skill-description-hint" aria-invalid=move || invalid("description")
                prop:value=move || description.get()
                on:input=move |ev| { description.set(event_target_value(&ev)); edited() }></textarea>
            <p class="hint muted skill-editor__counted" id="skill-description-hint">
                <span>"Say when to pick this skill and what it returns"</span>
                <span data-testid="skill-description-count"
                    class:error=move || description.with(|d| d.chars().count() > DESCRIPTION_MAX_CHARS)>
                    {move || format!("{} / {DESCRIPTION_MAX_CHARS}", description.with(|d| d.chars().count()))}
                </span>
            </p>
        </div>
        <ToolsPicker picks />
        <div class="field">
            <label class="field__label" for="skill-body">"Instructions"</label>
            <textarea id="skill-body" class="input mono skill-editor__body" rows="14" spellcheck="false" data-testid="skill-body"
                placeholder="How to do the work, step by step, and what to report back."
                aria-invalid=move || invalid("body")
                prop:value=move || body.get()
                on:input=move |ev| { body.set(event_target_value(&ev)); edited() }
                on:keydown=move |ev| if ev.key() == "Enter" && crate::keys::primary(&ev) {
                    ev.prevent_default();
                    save.with_value(|save| save());
                }></textarea>
            <p class="hint muted">"Markdown: how the skill works, step by step. Ctrl+Enter saves."</p>
        </div>
    });
    let raw_view = raw_mode.then(|| view! {
        <div class="banner banner--warning" role="status" data-testid="skill-raw-notice">
            <span class="banner__text">
                {format!("This SKILL.md does not read as a skill: {reasons}. Fix the text and save it.")}
            </span>
        </div>
        <div class="field">
            <label class="field__label" for="skill-raw">"SKILL.md"</label>
            <textarea id="skill-raw" class="input mono skill-editor__body" rows="18" spellcheck="false" data-testid="skill-raw"
                prop:value=move || raw.get()
                on:input=move |ev| { raw.set(event_target_value(&ev)); edited() }></textarea>
        </div>
    });

    let reset_or_delete = match (source, overridden) {
        (Some(SkillSourceKind::User), true) => Some(view! {
            <div class="skill-editor__danger">
                <button type="button" class="button" data-testid="skill-reset"
                    on:click=move |_| confirm_reset(inbox, state, skill_name(), error)>"Reset to built-in"</button>
                <p class="hint muted">"Deletes your copy; the built-in skill comes back."</p>
            </div>
        }.into_any()),
        (Some(SkillSourceKind::User), false) => Some(view! {
            <div class="skill-editor__danger">
                <button type="button" class="button button--danger" data-testid="skill-delete"
                    on:click=move |_| confirm_delete(inbox, state, skill_name(), error)>"Delete skill"</button>
            </div>
        }.into_any()),
        _ => None,
    };

    view! {
        <form class="editor form skill-editor" data-testid="skill-editor" data-raw=raw_mode.to_string()
            on:submit=move |ev| { ev.prevent_default(); save.with_value(|save| save()) }
            on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); close() }>
            <h2>{title}</h2>
            {copy_hint}
            <div class="field">
                <label class="field__label" for="skill-name">"Name"</label>
                <input id="skill-name" class="input mono" data-testid="skill-name" spellcheck="false" autocomplete="off" node_ref=name_input
                    placeholder="trip-planner" readonly=!is_new aria-invalid=move || invalid("name")
                    prop:value=move || name.get()
                    on:input=move |ev| { name.set(event_target_value(&ev)); edited() } />
                {is_new.then(|| view! {
                    <p class="hint muted">"Lowercase letters, digits and dashes. It can’t be changed later."</p>
                })}
            </div>
            {fields_view}
            {raw_view}
            <SiblingFiles drafts=files editable=true />
            {move || error.get().map(|(field, message)| view! {
                <p class="banner banner--error" role="alert" data-testid="skill-save-error" data-field=field.unwrap_or("")>{message}</p>
            })}
            {move || saved.get().then(|| view! { <p class="quiet-notice" role="status" data-testid="skill-saved">"Saved."</p> })}
            <div class="editor__actions">
                <button type="button" class="button" data-testid="skill-cancel" on:click=move |_| close()>"Close"</button>
                <button type="submit" class="button button--primary" data-testid="skill-save" disabled=move || saving.get()>
                    {if is_new { "Create" } else { "Save" }}
                </button>
            </div>
            {reset_or_delete}
        </form>
    }
}

fn confirm_reset(
    inbox: Inbox,
    state: SkillsState,
    name: String,
    error: RwSignal<Option<SaveError>>,
) {
    inbox.ask(ConfirmRequest {
        title: "Reset to the built-in skill?".to_owned(),
        body: format!(
            "Your copy of “{name}” is deleted and the built-in skill comes back as shipped."
        ),
        confirm_label: "Reset",
        on_confirm: std::rc::Rc::new(move || {
            let params = SkillNameParams { name: name.clone() };
            leptos::task::spawn_local(async move {
                match invoke::<cmd::SkillDelete>(&params).await {
                    Ok(()) => {
                        state.notice.set(Some((
                            true,
                            format!("“{}” is the built-in skill again.", params.name),
                        )));
                        state.editing.set(Some(Editing::Existing(params.name)));
                        state.changed();
                    }
                    Err(e) => {
                        let _ = error.try_set(Some((None, e.message)));
                    }
                }
            });
        }),
    });
}

fn confirm_delete(
    inbox: Inbox,
    state: SkillsState,
    name: String,
    error: RwSignal<Option<SaveError>>,
) {
    inbox.ask(ConfirmRequest {
        title: "Delete this skill?".to_owned(),
        body: format!("“{name}” and its files are deleted. This can’t be undone."),
        confirm_label: "Delete",
        on_confirm: std::rc::Rc::new(move || {
            let params = SkillNameParams { name: name.clone() };
            leptos::task::spawn_local(async move {
                match invoke::<cmd::SkillDelete>(&params).await {
                    Ok(()) => {
                        state
                            .skills
                            .update(|list| list.retain(|s| s.name != params.name));
                        state
                            .notice
                            .set(Some((true, format!("Deleted “{}”.", params.name))));
                        state.editing.set(None);
                        state.changed();
                    }
                    Err(e) => {
                        let _ = error.try_set(Some((None, e.message)));
                    }
                }
            });
        }),
    });
}
