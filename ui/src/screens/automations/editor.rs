//! The trigger editor: name, prompt, model and — for a schedule — presets
//! that fill a raw cron field checked as it is typed (the next fire times,
//! or the reason it is refused, beside it) and the time zone. A refused save
//! puts its sentence beside the field it names; nothing typed is lost.

use super::local_time;
use super::schedule::{
    COMMON_TIMEZONES, Field, Preset, PresetChoice, WEEKDAYS, field_of, parse_time,
};
use super::state::{Editing, use_automations};
use crate::components::model_picker::ModelPicker;
use crate::ipc::invoke;
use crate::latest::Latest;
use crate::screens::inbox::gloo_sleep;
use leptos::prelude::*;
use pizza_protocol::{
    TriggerKind, TriggerPreview, TriggerPreviewParams, TriggerSaveParams, TriggerView, cmd,
};

/// How long typing must pause before the cron field is checked.
const PREVIEW_DEBOUNCE_MS: i32 = 300;

/// What the host said of the cron field as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Preview {
    Empty,
    Ready(TriggerPreview),
    Refused(Field, String),
}

#[derive(Debug, Clone, Copy)]
struct FieldErrors(RwSignal<Vec<(Field, String)>>);

impl FieldErrors {
    fn get(self, field: Field) -> Option<String> {
        self.0.with(|errors| {
            errors
                .iter()
                .find(|(f, _)| *f == field)
                .map(|(_, m)| m.clone())
        })
    }

    fn clear(self, field: Field) {
        self.0.update(|errors| errors.retain(|(f, _)| *f != field));
    }
}

/// The sentence beside a field, when it was refused.
fn field_error(errors: FieldErrors, field: Field, testid: &'static str) -> impl IntoView {
    move || {
        errors
            .get(field)
            .map(|m| view! { <p class="field__error" role="alert" data-testid=testid>{m}</p> })
    }
}

#[component]
pub(crate) fn Editor(kind: TriggerKind, existing: Option<TriggerView>) -> impl IntoView {
    let state = use_automations();
    let id = existing.as_ref().map(|t| t.id.clone());
    let is_new = id.is_none();
    let name = RwSignal::new(
        existing
            .as_ref()
            .map(|t| t.name.clone())
            .unwrap_or_default(),
    );
    let prompt = RwSignal::new(
        existing
            .as_ref()
            .map(|t| t.prompt.clone())
            .unwrap_or_default(),
    );
    let model = RwSignal::new(existing.as_ref().and_then(|t| t.model.clone()));
    let enabled = existing.as_ref().is_none_or(|t| t.enabled);
    let stored_cron = existing.as_ref().and_then(|t| t.cron.clone());
    let choice = RwSignal::new(
        stored_cron
            .as_deref()
            .map(PresetChoice::of)
            .unwrap_or_default(),
    );
    let cron = RwSignal::new(
        stored_cron.unwrap_or_else(|| PresetChoice::default().cron().unwrap_or_default()),
    );
    let timezone = RwSignal::new(
        existing
            .as_ref()
            .and_then(|t| t.timezone.clone())
            .unwrap_or_default(),
    );
    let errors = FieldErrors(RwSignal::new(Vec::new()));
    let general = RwSignal::new(None::<String>);
    let preview = RwSignal::new(Preview::Empty);
    let saving = RwSignal::new(false);
    let name_input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = name_input.get() {
            let _ = input.focus();
        }
    });

    // Checks the expression once typing pauses; an answer to an older
    // expression than the one in the field is dropped.
    let asked = Latest::new();
    if kind == TriggerKind::Cron {
        Effect::new(move |_| {
            let expression = cron.get();
            let zone = timezone.get();
            let ticket = asked.ask();
            leptos::task::spawn_local(async move {
                gloo_sleep(PREVIEW_DEBOUNCE_MS).await;
                if !ticket.is_newest() {
                    return;
                }
                if expression.trim().is_empty() {
                    preview.set(Preview::Empty);
                    return;
                }
                let params = TriggerPreviewParams {
                    cron: expression,
                    timezone: Some(zone).filter(|z| !z.trim().is_empty()),
                };
                let answer = invoke::<cmd::TriggerPreview>(&params).await;
                if !ticket.is_newest() {
                    return;
                }
                preview.set(match answer {
                    Ok(p) => Preview::Ready(p),
                    Err(e) => match field_of(&e.message) {
                        Some((field, message)) => Preview::Refused(field, message),
                        None => Preview::Refused(Field::Cron, e.message),
                    },
                });
            });
        });
    }

    let save = move || {
        if saving.get_untracked() {
            return;
        }
        let is_cron = kind == TriggerKind::Cron;
        let params = TriggerSaveParams {
            id: id.clone(),
            name: name.get_untracked(),
            kind,
            prompt: prompt.get_untracked(),
            model: model.get_untracked(),
            enabled,
            cron: if is_cron {
                cron.get_untracked()
            } else {
                String::new()
            },
            timezone: Some(timezone.get_untracked()).filter(|z| is_cron && !z.trim().is_empty()),
        };
        saving.set(true);
        leptos::task::spawn_local(async move {
            match invoke::<cmd::TriggerSave>(&params).await {
                Ok(saved) => {
                    state.upsert(saved.trigger.clone());
                    state.editing.set(match saved.secret {
                        Some(secret) => Some(Editing::Secret {
                            trigger: Box::new(saved.trigger),
                            secret,
                        }),
                        None => None,
                    });
                    state.changed();
                }
                Err(e) => match field_of(&e.message) {
                    Some((field, message)) => {
                        errors.0.set(vec![(field, message)]);
                        general.set(None);
                    }
                    None => {
                        errors.0.set(Vec::new());
                        general.set(Some(e.message));
                    }
                },
            }
            saving.set(false);
        });
    };
    let save = StoredValue::new(save);
    let close = move || state.editing.set(None);

    let choose = move |next: PresetChoice| {
        choice.set(next);
        if let Some(expression) = next.cron() {
            cron.set(expression);
            errors.clear(Field::Cron);
        }
    };

    let title = match (kind, is_new) {
        (TriggerKind::Cron, true) => "New schedule",
        (TriggerKind::Cron, false) => "Edit schedule",
        (TriggerKind::Webhook, true) => "New webhook",
        (TriggerKind::Webhook, false) => "Edit webhook",
    };
    let schedule_fields = (kind == TriggerKind::Cron).then(|| view! {
        <fieldset class="field">
            <legend>"Schedule"</legend>
            <div class="field__row">
                <select class="input" aria-label="Repeat" data-testid="trigger-preset"
                    on:change=move |ev| choose(PresetChoice { preset: Preset::parse(&event_target_value(&ev)), ..choice.get_untracked() })>
                    {Preset::ALL.into_iter().map(|p| view! {
                        <option value=p.as_str() prop:selected=move || choice.get().preset == p>{p.label()}</option>
                    }).collect_view()}
                </select>
                <Show when=move || choice.get().preset == Preset::Weekly>
                    <select class="input" aria-label="Day" data-testid="trigger-preset-day"
                        on:change=move |ev| {
                            let weekday = event_target_value(&ev).parse().unwrap_or(1);
                            choose(PresetChoice { weekday, ..choice.get_untracked() });
                        }>
                        {WEEKDAYS.iter().enumerate().map(|(n, day)| view! {
                            <option value=n.to_string() prop:selected=move || usize::from(choice.get().weekday) == n>{*day}</option>
                        }).collect_view()}
                    </select>
                </Show>
                <Show when=move || choice.get().preset.has_time()>
                    <input class="input" type="time" aria-label="At" data-testid="trigger-preset-time"
                        prop:value=move || choice.get().time()
                        on:change=move |ev| if let Some((hour, minute)) = parse_time(&event_target_value(&ev)) {
                            choose(PresetChoice { hour, minute, ..choice.get_untracked() });
                        } />
                </Show>
            </div>
            <label class="field__label" for="trigger-cron">"Cron expression"</label>
            <input id="trigger-cron" class="input mono" data-testid="trigger-cron" spellcheck="false" autocomplete="off"
                aria-invalid=move || matches!(preview.get(), Preview::Refused(Field::Cron, _)) || errors.get(Field::Cron).is_some()
                prop:value=move || cron.get()
                on:input=move |ev| {
                    let typed = event_target_value(&ev);
                    // A typed preset shows as that preset; anything else is custom
                    // and keeps the time chosen so far.
                    let recognised = PresetChoice::of(&typed);
                    choice.set(if recognised.preset == Preset::Custom {
                        PresetChoice { preset: Preset::Custom, ..choice.get_untracked() }
                    } else {
                        recognised
                    });
                    cron.set(typed);
                    errors.clear(Field::Cron);
                } />
            <p class="hint muted">"Minute, hour, day of month, month, day of week — or @hourly, @daily, @weekly."</p>
            {field_error(errors, Field::Cron, "trigger-error-cron")}
            {move || match preview.get() {
                Preview::Empty => None,
                Preview::Refused(field, message) => Some(view! {
                    <p class="field__error" role="alert" data-testid="trigger-preview-error" data-field=match field {
                        Field::Timezone => "timezone",
                        _ => "cron",
                    }>{message}</p>
                }.into_any()),
                Preview::Ready(p) => Some(view! {
                    <div class="preview" data-testid="trigger-preview">
                        <p class="preview__words" data-testid="trigger-preview-words">{p.description}</p>
                        <p class="hint muted">"Next fires, in your time:"</p>
                        <ol class="preview__fires">
                            {p.next_fires.into_iter().map(|at| view! { <li data-testid="trigger-preview-fire">{local_time(at)}</li> }).collect_view()}
                        </ol>
                    </div>
                }.into_any()),
            }}
        </fieldset>
        <div class="field">
            <label class="field__label" for="trigger-timezone">"Time zone"</label>
            <input id="trigger-timezone" class="input" list="trigger-timezones" data-testid="trigger-timezone"
                spellcheck="false" autocomplete="off"
                placeholder=move || state.default_timezone.get()
                aria-invalid=move || errors.get(Field::Timezone).is_some()
                prop:value=move || timezone.get()
                on:input=move |ev| { timezone.set(event_target_value(&ev)); errors.clear(Field::Timezone) } />
            <datalist id="trigger-timezones">
                {COMMON_TIMEZONES.into_iter().map(|z| view! { <option value=z></option> }).collect_view()}
            </datalist>
            <p class="hint muted">{move || format!("Blank: this computer’s zone ({}).", state.default_timezone.get())}</p>
            {field_error(errors, Field::Timezone, "trigger-error-timezone")}
        </div>
    });

    view! {
        <form class="editor form" data-testid="trigger-editor" data-kind=match kind { TriggerKind::Cron => "cron", TriggerKind::Webhook => "webhook" }
            on:submit=move |ev| { ev.prevent_default(); save.with_value(|save| save()) }
            on:keydown=move |ev| if ev.key() == "Escape" { ev.stop_propagation(); close() }>
            <h2>{title}</h2>
            <div class="field">
                <label class="field__label" for="trigger-name">"Name"</label>
                <input id="trigger-name" class="input" data-testid="trigger-name-input" node_ref=name_input
                    aria-invalid=move || errors.get(Field::Name).is_some()
                    prop:value=move || name.get()
                    on:input=move |ev| { name.set(event_target_value(&ev)); errors.clear(Field::Name) } />
                {field_error(errors, Field::Name, "trigger-error-name")}
            </div>
            <div class="field">
                <label class="field__label" for="trigger-prompt">"Prompt"</label>
                <textarea id="trigger-prompt" class="input editor__prompt" rows="5" data-testid="trigger-prompt"
                    placeholder=match kind {
                        TriggerKind::Cron => "What should Pizza Bot do each time?",
                        TriggerKind::Webhook => "What to do when a request brings no prompt of its own",
                    }
                    prop:value=move || prompt.get()
                    on:input=move |ev| { prompt.set(event_target_value(&ev)); errors.clear(Field::Prompt) }
                    on:keydown=move |ev| if ev.key() == "Enter" && crate::keys::primary(&ev) {
                        ev.prevent_default();
                        save.with_value(|save| save());
                    }></textarea>
                <p class="hint muted">"Each run starts a new thread titled after this trigger. Ctrl+Enter saves."</p>
                {field_error(errors, Field::Prompt, "trigger-error-prompt")}
            </div>
            <div class="field">
                <span class="field__label">"Model"</span>
                <ModelPicker selected=model on_change=Callback::new(move |m| { model.set(m); errors.clear(Field::Model) })
                    automatic="Default model" testid="trigger-model" />
                {field_error(errors, Field::Model, "trigger-error-model")}
            </div>
            {schedule_fields}
            {move || general.get().map(|m| view! { <p class="banner banner--error" role="alert" data-testid="trigger-save-error">{m}</p> })}
            <div class="editor__actions">
                <button type="button" class="button" data-testid="trigger-cancel" on:click=move |_| close()>"Cancel"</button>
                <button type="submit" class="button button--primary" data-testid="trigger-save" disabled=move || saving.get()>
                    {if is_new { "Create" } else { "Save" }}
                </button>
            </div>
        </form>
    }
}
